import Bus
import Synchronization

/// The one reply a waiting caller gets: the first of handler, deadline or cancellation to finish it
/// wins; later finishes are ignored. Finishing also cancels the handler's task, which matters when
/// the deadline or the caller won.
final class PendingReply<Reply: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<Reply, BusError>, Never>?
        var task: Task<Void, Never>?
        /// Set when finished before the continuation was attached (a caller cancelled at once).
        var early: Result<Reply, BusError>?
        var finished = false
    }

    private let state = Mutex(State())

    func attach(_ continuation: CheckedContinuation<Result<Reply, BusError>, Never>) {
        let early: Result<Reply, BusError>? = state.withLock { state in
            if let early = state.early {
                state.early = nil
                return early
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func attach(_ task: Task<Void, Never>) {
        let finished = state.withLock { state in
            if !state.finished { state.task = task }
            return state.finished
        }
        if finished { task.cancel() }
    }

    /// Finishes with `result`. `fromHandler` says the handler's own task is finishing, so there is
    /// nothing to cancel.
    func finish(_ result: Result<Reply, BusError>, fromHandler: Bool = false) {
        let (continuation, task): (CheckedContinuation<Result<Reply, BusError>, Never>?, Task<Void, Never>?) =
            state.withLock { state in
                guard !state.finished else { return (nil, nil) }
                state.finished = true
                let continuation = state.continuation
                state.continuation = nil
                if continuation == nil { state.early = result }
                let task = state.task
                state.task = nil
                return (continuation, task)
            }
        continuation?.resume(returning: result)
        if !fromHandler { task?.cancel() }
    }
}
