import NIOCore
import Synchronization

/// The requests of one read from the socket, started together: one cooperative thread woken per
/// read instead of one per request.
///
/// On the event loop, each request off the wire is appended (``add(_:_:)``); when the read's
/// messages have all been delivered (``startGathered()``), one task takes them in turn and starts
/// each handler's own task with `Task.immediate`, on its thread: a handler that does not suspend
/// runs to its reply there, with no hop of its own. A handler that suspends goes on as any task does.
///
/// Handlers never run on the event loop, so a slow one does not stall the node's bus. A handler
/// that blocks its thread would hold up those after it in the same read, so a batch still being
/// worked through a tick (10 ms) after the last one was started gets another task taking the rest
/// (the tasks share one index: each request is started once).
final class RequestBatches: Sendable {
    /// One request and what starts its handler (made once per registration).
    struct Pending: Sendable {
        let message: NATSMessage
        let start: @Sendable (NATSMessage, Batch?) -> Void
    }

    final class Batch: Sendable {
        let requests: [Pending]
        private let next = Atomic<Int>(0)
        /// Replies ready while the batch is being started, sent together; closed once all are started.
        private let replies = Mutex<(open: Bool, ready: [(subject: String, payload: ByteBuffer)])>((true, []))
        private let send: @Sendable ([(subject: String, payload: ByteBuffer)]) -> Void

        init(_ requests: [Pending], send: @escaping @Sendable ([(subject: String, payload: ByteBuffer)]) -> Void) {
            self.requests = requests
            self.send = send
        }

        /// Starts requests not yet taken by another task, in turn, until none is left; then sends
        /// the replies gathered meanwhile.
        func drain() {
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < requests.count else { break }
                requests[index].start(requests[index].message, self)
            }
            let ready = replies.withLock { replies in
                replies.open = false
                return replies.ready
            }
            if !ready.isEmpty { send(ready) }
        }

        /// Keeps a reply to go out with the batch's others; false once the batch is all started
        /// (the caller sends it itself).
        func keep(_ payload: ByteBuffer, for subject: String) -> Bool {
            replies.withLock { replies in
                guard replies.open else { return false }
                replies.ready.append((subject, payload))
                return true
            }
        }

        /// Sends what is ready so far (a handler blocking its thread holds up the rest).
        func sendReady() {
            let ready = replies.withLock { replies in
                defer { replies.ready = [] }
                return replies.ready
            }
            if !ready.isEmpty { send(ready) }
        }

        /// How many have been taken (started or being started).
        var taken: Int { min(next.load(ordering: .relaxed), requests.count) }
    }

    private struct State {
        var gathering: [Pending] = []
        /// Batches of more than one request still being started, with what the last sweep saw taken.
        var started: [(batch: Batch, seen: Int)] = []
        var armed = false
    }

    private let state = Mutex(State())
    private let timer = SweepTimer(label: "quire.bus.batches")
    /// Tasks started for batches held up by a blocking handler (for tests and the journal).
    let rescues = Atomic<Int>(0)

    /// Sends replies gathered in a batch (``NATSConnection/publishAll(_:)``, or one by one).
    private let send: @Sendable ([(subject: String, payload: ByteBuffer)]) -> Void

    init(send: @escaping @Sendable ([(subject: String, payload: ByteBuffer)]) -> Void) {
        self.send = send
        timer.onTick { [weak self] in self?.sweep() ?? false }
    }

    /// On the event loop: a request off the wire, started with the others of its read.
    func add(_ message: NATSMessage, _ start: @escaping @Sendable (NATSMessage, Batch?) -> Void) {
        state.withLock { $0.gathering.append(Pending(message: message, start: start)) }
    }

    /// On the event loop, after a read: starts what it brought, on one task.
    func startGathered() {
        let (batch, arm) = state.withLock { state -> (Batch?, Bool) in
            guard !state.gathering.isEmpty else { return (nil, false) }
            let batch = Batch(state.gathering, send: send)
            state.gathering.removeAll(keepingCapacity: true)
            // One request holds up nobody.
            guard batch.requests.count > 1 else { return (batch, false) }
            state.started.append((batch, 0))
            guard !state.armed else { return (batch, false) }
            state.armed = true
            return (batch, true)
        }
        guard let batch else { return }
        if arm { timer.arm() }
        Task { batch.drain() }
    }

    /// Each tick while batches are being started: one that took nothing since the last tick gets
    /// another task; finished ones are forgotten.
    private func sweep() -> Bool {
        var stuck: [Batch] = []
        let again = state.withLock { state -> Bool in
            var index = 0
            while index < state.started.count {
                let (batch, seen) = state.started[index]
                let taken = batch.taken
                if taken >= batch.requests.count {
                    state.started.swapAt(index, state.started.count - 1)
                    state.started.removeLast()
                    continue
                }
                if taken == seen { stuck.append(batch) }
                state.started[index].seen = taken
                index += 1
            }
            state.armed = !state.started.isEmpty
            return state.armed
        }
        for batch in stuck {
            rescues.wrappingAdd(1, ordering: .relaxed)
            batch.sendReady()
            Task { batch.drain() }
        }
        return again
    }
}
