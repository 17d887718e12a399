public import Bus
import Dispatch
import Synchronization

/// The one queue of heavy jobs (imports of every plugin, other long jobs) of a process: a fixed
/// number of workers, a fair share per user, and a bounded length.
///
/// - **Workers**: at most ``Settings/workers`` jobs run at once; the others wait their turn,
///   holding no thread.
/// - **Fair share**: when a worker frees, the user with the fewest jobs running gets it (among
///   equals, round-robin: the one served longest ago), so one user's six imports do not keep
///   another's waiting behind all six.
/// - **Bounded**: a job is admitted (``reserve(owner:)``) before its file is read; past
///   ``Settings/maxJobs`` admitted in all the answer is `unavailable` (503), past
///   ``Settings/maxJobsPerUser`` for one user `rate_limited` (429), both with `retryAfter`.
/// - **Never starves requests**: a worker's CPU-heavy steps (parsing a file) run on the worker's own
///   thread through ``Worker/blocking(_:)``, not on Swift's cooperative threads that answer
///   requests (on a 2-core machine there are two of those: one busy parse was half the server).
///
/// Where the job runs is the plugin's business (its ``BackgroundWork``, cancelled at shutdown);
/// the queue only says when, and on which worker.
public final class JobQueue: Sendable {
    /// `server.jobs` in the app's YAML.
    public struct Settings: Sendable, Equatable {
        /// Jobs running at once.
        public var workers: Int
        /// Jobs admitted (running and waiting) in all; more are refused with 503.
        public var maxJobs: Int
        /// Jobs admitted for one user; more are refused with 429.
        public var maxJobsPerUser: Int
        /// What `Retry-After` says to a refused job, in seconds.
        public var retryAfterSeconds: Int

        public init(workers: Int = 2, maxJobs: Int = 32, maxJobsPerUser: Int = 8, retryAfterSeconds: Int = 30) {
            self.workers = workers
            self.maxJobs = maxJobs
            self.maxJobsPerUser = maxJobsPerUser
            self.retryAfterSeconds = retryAfterSeconds
        }
    }

    /// A job's place, from its admission to its end (or ``abandon(_:)``).
    public struct Ticket: Sendable, Hashable {
        public let owner: String
        let id: UInt64
    }

    /// A worker, for the job that holds it.
    public struct Worker: Sendable {
        /// 0 ..< workers.
        public let index: Int
        let queue: DispatchQueue

        /// Runs CPU-heavy or blocking `work` on this worker's own thread and answers its result.
        /// Keep each call short (a batch of rows, not the whole file) so that cancellation and
        /// progress are seen between calls.
        public func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: work()) }
            }
        }
    }

    public let settings: Settings
    private let queues: [DispatchQueue]
    /// For a job's intake (unpacking and checking its file before it is admitted to wait): off
    /// the cooperative threads, as many at once as there are workers.
    private let intakeGate: BlockingGate
    private let state: Mutex<State>

    public init(_ settings: Settings = Settings()) {
        var settings = settings
        settings.workers = max(1, settings.workers)
        settings.maxJobs = max(settings.workers, settings.maxJobs)
        settings.maxJobsPerUser = max(1, settings.maxJobsPerUser)
        self.settings = settings
        // Dispatch's overcommitting threads (a serial queue each), as BlockingGate's: a busy one does
        // not hold back the pool Swift's cooperative threads draw from.
        queues = (0..<settings.workers).map { DispatchQueue(label: "quire.jobs.\($0)", qos: .utility) }
        state = Mutex(State(free: Array((0..<settings.workers).reversed())))
        intakeGate = BlockingGate(limit: settings.workers, label: "quire.jobs.intake")
    }

    /// Runs a job's intake — opening and checking its file, which may mean unpacking it — off the
    /// threads that answer requests.
    public func intake<T: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> T) async throws(BusError) -> T {
        try await intakeGate.run(work)
    }

    /// Admits a job of `owner`: call it before reading the job's input, and give the ticket to
    /// ``run(_:whileWaiting:_:)`` (or back with ``abandon(_:)``).
    /// - Throws: `unavailable` (503) when the queue is full, `rate_limited` (429) when the user has
    ///   their share of it; each with `retryAfter`.
    public func reserve(owner: String) throws(BusError) -> Ticket {
        let settings = self.settings
        let outcome: Result<Ticket, BusError> = state.withLock { state in
            if state.admitted >= settings.maxJobs {
                return .failure(BusError(.unavailable,
                                         "The server is busy with \(state.admitted) imports and other long jobs; try again in \(settings.retryAfterSeconds) seconds.",
                                         details: ["retryAfter": String(settings.retryAfterSeconds)]))
            }
            if state.perOwner[owner, default: 0] >= settings.maxJobsPerUser {
                return .failure(BusError(.rateLimited,
                                         "You have \(settings.maxJobsPerUser) imports or other long jobs waiting or running, the most at once; "
                                         + "start this one when one of them has finished.",
                                         details: ["retryAfter": String(settings.retryAfterSeconds)]))
            }
            state.nextID += 1
            state.admitted += 1
            state.perOwner[owner, default: 0] += 1
            return .success(Ticket(owner: owner, id: state.nextID))
        }
        return try outcome.get()
    }

    /// Gives back a ticket whose job will not run (its file was refused, the server is stopping).
    public func abandon(_ ticket: Ticket) {
        state.withLock { $0.leave(ticket.owner) }
    }

    /// Waits for a worker, runs `body` with it and frees it; the ticket is used up.
    ///
    /// - Parameter whileWaiting: called every `heartbeat` while the job waits (a job records that it
    ///   is alive, so that no node takes it for one a stopped process left behind).
    /// - Returns: `body`'s result; nil when the task was cancelled before a worker was free (then
    ///   `body` did not run).
    public func run<T>(_ ticket: Ticket, heartbeat: Duration = .seconds(5), whileWaiting: (@Sendable () async -> Void)? = nil,
                       _ body: (Worker) async -> T) async -> T? {
        let slot: Int?
        if let whileWaiting {
            slot = await withTaskGroup(of: Int?.self) { group in
                group.addTask { await self.acquire(ticket) }
                group.addTask {
                    while !Task.isCancelled {
                        do { try await Task.sleep(for: heartbeat) } catch { return nil }
                        await whileWaiting()
                    }
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                // The heartbeat ends with nil; the acquire's answer is the one that counts.
                var got = first
                while let next = await group.next() { if got == nil { got = next } }
                return got
            }
        } else {
            slot = await acquire(ticket)
        }
        guard let slot else { return nil }
        let result = await body(Worker(index: slot, queue: queues[slot]))
        release(slot, ticket: ticket)
        return result
    }

    /// How many jobs run and wait now.
    public var load: (running: Int, waiting: Int) {
        state.withLock { state in (settings.workers - state.free.count, state.waiting.values.reduce(0) { $0 + $1.count }) }
    }

    // MARK: Inside

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Int?, Never>
    }

    private struct State {
        var free: [Int]
        var nextID: UInt64 = 0
        /// Tickets out (waiting, running, or reserved and not yet waiting), in all and per owner.
        var admitted = 0
        var perOwner: [String: Int] = [:]
        var running: [String: Int] = [:]
        var waiting: [String: [Waiter]] = [:]
        /// When each owner was last given a worker (a count of turns given).
        var lastServed: [String: UInt64] = [:]
        var served: UInt64 = 0
        /// Tickets cancelled before they started waiting.
        var cancelled: Set<UInt64> = []

        mutating func leave(_ owner: String) {
            admitted -= 1
            let left = perOwner[owner, default: 1] - 1
            perOwner[owner] = left > 0 ? left : nil
        }

        /// Hands free workers to waiting jobs: to the owner with the fewest jobs running; among
        /// equals, the one served longest ago (never first), then the one waiting longest.
        /// Answers whom to wake (outside the lock).
        mutating func dispatch() -> [(CheckedContinuation<Int?, Never>, Int)] {
            var wake: [(CheckedContinuation<Int?, Never>, Int)] = []
            while !free.isEmpty {
                var best: (owner: String, key: (Int, UInt64, UInt64))?
                for (owner, queue) in waiting {
                    guard let first = queue.first else { continue }
                    let key = (running[owner, default: 0], lastServed[owner, default: 0], first.id)
                    if let current = best, !(key < current.key) { continue }
                    best = (owner, key)
                }
                guard let owner = best?.owner, var queue = waiting[owner] else { break }
                let waiter = queue.removeFirst()
                waiting[owner] = queue.isEmpty ? nil : queue
                running[owner, default: 0] += 1
                served += 1
                lastServed[owner] = served
                wake.append((waiter.continuation, free.removeLast()))
            }
            return wake
        }
    }

    private func acquire(_ ticket: Ticket) async -> Int? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
                let wake: [(CheckedContinuation<Int?, Never>, Int)] = state.withLock { state in
                    if state.cancelled.remove(ticket.id) != nil {
                        state.leave(ticket.owner)
                        return [(continuation, -1)]
                    }
                    state.waiting[ticket.owner, default: []].append(Waiter(id: ticket.id, continuation: continuation))
                    return state.dispatch()
                }
                for (waiter, slot) in wake { waiter.resume(returning: slot < 0 ? nil : slot) }
            }
        } onCancel: {
            let found: CheckedContinuation<Int?, Never>? = state.withLock { state in
                guard var queue = state.waiting[ticket.owner], let index = queue.firstIndex(where: { $0.id == ticket.id }) else {
                    // Not waiting yet (it will see this), or already given a worker (it runs, and sees the cancellation itself).
                    state.cancelled.insert(ticket.id)
                    return nil
                }
                let waiter = queue.remove(at: index)
                state.waiting[ticket.owner] = queue.isEmpty ? nil : queue
                state.leave(ticket.owner)
                return waiter.continuation
            }
            found?.resume(returning: nil)
        }
    }

    private func release(_ slot: Int, ticket: Ticket) {
        let owner = ticket.owner
        let wake = state.withLock { state in
            state.cancelled.remove(ticket.id)
            let left = state.running[owner, default: 1] - 1
            state.running[owner] = left > 0 ? left : nil
            state.leave(owner)
            state.free.append(slot)
            return state.dispatch()
        }
        for (waiter, slot) in wake { waiter.resume(returning: slot) }
    }
}
