import Foundation
public import Hummingbird
import HTTPTypes
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The process's memory budget for large request work (`server.memory_budget`): an upload reserves
/// what it will hold (its body and its decode) before it reads a byte, and gives it back when done,
/// however it ends (success, error or cancellation). Work that does not fit waits its turn, in
/// arrival order, for at most ``wait``; past that it is refused with 503, code `unavailable` with
/// `limit: memory_budget`, and `Retry-After`, and the server goes on answering everyone else.
///
/// A reservation larger than the whole budget is counted as the whole budget: it runs alone rather
/// than never. When the budget goes idle after heavy work, glibc's free memory is handed back to the
/// system (`malloc_trim`), so that the RSS after a burst is close to the RSS before it.
public final class MemoryBudget: Sendable {
    /// The process's budget, set at start from `server.memory_budget` (``configure(bytes:wait:)``).
    public static let shared = MemoryBudget(bytes: defaultBytes)

    /// The default: request work on a 1 GB machine, beside the server's own ~100 MB and the OS.
    public static let defaultBytes = 320 << 20
    /// How long work waits for room before it is refused.
    public static let defaultWait: Duration = .seconds(20)
    /// Reserved-and-released bytes since the last trim worth giving back at idle.
    static let trimThreshold = 32 << 20

    private struct Waiter {
        var id: Int
        var bytes: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var total: Int
        var wait: Duration
        var inUse = 0
        var peak = 0
        var nextID = 0
        var queue: [Waiter] = []
        /// Tickets of work that did not fit: waiting to enter the queue (with the error that came
        /// first, if its time ran out or it was cancelled before it got there), or in the queue.
        var tickets: [Int: Ticket] = [:]
        var sinceTrim = 0
        var refused = 0
        var trims = 0
    }

    private enum Ticket {
        case arriving(failure: (any Error)?)
        case queued
    }

    private let state: Mutex<State>
    private let trimmer: @Sendable () -> Void

    /// - Parameter trim: what runs when the budget goes idle after heavy work (`malloc_trim(0)`).
    public init(bytes: Int, wait: Duration = defaultWait, trim: @escaping @Sendable () -> Void = MemoryBudget.releaseFreeMemory) {
        state = Mutex(State(total: max(1, bytes), wait: wait))
        trimmer = trim
    }

    /// Sets the budget (at start, from the config). Waiters that now fit are let in.
    public func configure(bytes: Int, wait: Duration = defaultWait) {
        let granted = state.withLock { state in
            state.total = max(1, bytes)
            state.wait = wait
            return Self.grant(&state)
        }
        granted.forEach { $0.resume() }
    }

    public var totalBytes: Int { state.withLock { $0.total } }
    public var inUseBytes: Int { state.withLock { $0.inUse } }
    /// The most ever reserved at once.
    public var peakBytes: Int { state.withLock { $0.peak } }
    public var waiting: Int { state.withLock { $0.queue.count } }
    /// Work refused since start.
    public var refusals: Int { state.withLock { $0.refused } }
    /// Times free memory was handed back at idle.
    public var trims: Int { state.withLock { $0.trims } }

    /// Runs `work` with `bytes` reserved, waiting for room as long as the budget's wait allows;
    /// the bytes are given back when `work` returns, throws or is cancelled.
    /// - Throws: ``Problem`` 503 `unavailable` (`limit`: `memory_budget`) with `Retry-After` when no
    ///   room came in time;
    ///   `CancellationError` when the task was cancelled while waiting; whatever `work` throws.
    public func withReservation<T>(_ bytes: Int, for what: String, isolation: isolated (any Actor)? = #isolation,
                                   _ work: () async throws -> T) async throws -> T {
        let reserved = try await reserve(bytes, for: what)
        do {
            let result = try await work()
            release(reserved)
            return result
        } catch {
            release(reserved)
            throw error
        }
    }

    /// ``withReservation(_:for:isolation:_:)`` for a request whose body is not read yet. When the
    /// budget refuses, the body is read to its end and dropped (piece by piece, up to `limit` bytes)
    /// before the 503 goes: a client that sends its whole body before it reads the answer (most
    /// do) would otherwise be stuck sending, and never see the 503 or its Retry-After.
    public func withReservation<T>(_ bytes: Int, for what: String, draining request: Request, limit: Int,
                                   isolation: isolated (any Actor)? = #isolation, _ work: () async throws -> T) async throws -> T {
        let reserved: Int
        do {
            reserved = try await reserve(bytes, for: what)
        } catch let refusal as Problem {
            var read = 0
            do {
                for try await piece in request.body {
                    read += piece.readableBytes
                    if read > limit { break }
                }
            } catch {
                // The client went away: nobody to answer.
            }
            throw refusal
        }
        do {
            let result = try await work()
            release(reserved)
            return result
        } catch {
            release(reserved)
            throw error
        }
    }

    /// Reserves `bytes` (capped at the whole budget); answers the bytes to ``release(_:)``.
    public func reserve(_ bytes: Int, for what: String) async throws -> Int {
        let (granted, ticket): (Int?, (id: Int, bytes: Int, wait: Duration)?) = state.withLock { state in
            let amount = min(max(0, bytes), state.total)
            if state.queue.isEmpty, state.inUse + amount <= state.total {
                state.inUse += amount
                state.peak = max(state.peak, state.inUse)
                return (amount, nil)
            }
            state.nextID += 1
            state.tickets[state.nextID] = .arriving(failure: nil)
            return (nil, (state.nextID, amount, state.wait))
        }
        if let granted { return granted }
        guard let ticket else { return 0 }
        defer { state.withLock { _ = $0.tickets.removeValue(forKey: ticket.id) } }
        let timer = Task { [weak self] in
            try await Task.sleep(for: ticket.wait)
            self?.giveUp(ticket.id, because: self?.busy(what) ?? CancellationError())
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (failure, granted) = state.withLock { state -> ((any Error)?, [CheckedContinuation<Void, any Error>]) in
                    if case .arriving(let failure?) = state.tickets[ticket.id] { return (failure, []) }
                    state.tickets[ticket.id] = .queued
                    state.queue.append(Waiter(id: ticket.id, bytes: ticket.bytes, continuation: continuation))
                    return (nil, Self.grant(&state))
                }
                if let failure { continuation.resume(throwing: failure) }
                granted.forEach { $0.resume() }
            }
        } onCancel: {
            giveUp(ticket.id, because: CancellationError())
        }
        return ticket.bytes
    }

    /// Gives back what ``reserve(_:for:)`` answered.
    public func release(_ bytes: Int) {
        let (granted, trim) = state.withLock { state in
            state.inUse = max(0, state.inUse - bytes)
            state.sinceTrim += bytes
            let granted = Self.grant(&state)
            let trim = state.inUse == 0 && state.queue.isEmpty && state.sinceTrim >= Self.trimThreshold
            if trim {
                state.sinceTrim = 0
                state.trims += 1
            }
            return (granted, trim)
        }
        granted.forEach { $0.resume() }
        if trim {
            let trimmer = self.trimmer
            DispatchQueue.global(qos: .utility).async { trimmer() }
        }
    }

    /// The refusal: how long to wait is the budget's wait, in whole seconds (at least 1).
    func busy(_ what: String) -> Problem {
        let (total, wait) = state.withLock { ($0.total, $0.wait) }
        let seconds = max(1, Int(wait.components.seconds / 4))
        return Problem(status: .serviceUnavailable, code: "unavailable",
                       detail: "The server is busy with other large requests (its memory budget of \(total >> 20) MB is in use) and could not take "
                           + "\(what) now; send it again in \(seconds) s. An operator can raise server.memory_budget on a machine with more memory.",
                       extra: ["limit": "memory_budget", "retryAfter": .int(seconds)], headers: [.retryAfter: String(seconds)])
    }

    /// Takes a waiter out of the queue (timed out or cancelled), failing it with `error`.
    private func giveUp(_ id: Int, because error: any Error) {
        let (waiter, granted) = state.withLock { state -> (Waiter?, [CheckedContinuation<Void, any Error>]) in
            switch state.tickets[id] {
            case .arriving(failure: nil):
                // Not in the queue yet: it fails as it gets there.
                state.tickets[id] = .arriving(failure: error)
                if error is Problem { state.refused += 1 }
                return (nil, [])
            case .queued: break
            case .arriving, nil: return (nil, [])  // failed already, or let in
            }
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return (nil, []) }
            let waiter = state.queue.remove(at: index)
            state.tickets[id] = nil
            if error is Problem { state.refused += 1 }
            // The head left: those behind it may fit now.
            return (waiter, Self.grant(&state))
        }
        waiter?.continuation.resume(throwing: error)
        granted.forEach { $0.resume() }
    }

    /// Lets in waiters from the head of the queue while they fit (arrival order: a large one at
    /// the head is not overtaken, so it is never starved by small ones).
    private static func grant(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var granted: [CheckedContinuation<Void, any Error>] = []
        while let head = state.queue.first, state.inUse + head.bytes <= state.total {
            state.queue.removeFirst()
            state.tickets[head.id] = nil
            state.inUse += head.bytes
            state.peak = max(state.peak, state.inUse)
            granted.append(head.continuation)
        }
        return granted
    }

    /// glibc keeps freed memory in its arenas; `malloc_trim(0)` returns what it can to the system.
    /// Found at run time (Swift's Glibc module leaves it out); a no-op on other C libraries.
    public static let releaseFreeMemory: @Sendable () -> Void = {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        #endif
    }
}
