import Synchronization

/// Fires callbacks at deadlines, for every pending request of one bus, with one sleeping task.
///
/// A `Task.sleep` per request costs several microseconds — more than the whole request otherwise —
/// so deadlines are grouped into 10 ms buckets and one sleeper task wakes for the earliest bucket.
/// The sleeper exists only while requests are pending: an idle bus runs no task.
final class DeadlineWatchdog: Sendable {
    typealias Fire = @Sendable () -> Void

    /// A registered deadline, to remove once the request is done.
    struct Ticket: Sendable {
        fileprivate let tick: Int64
        fileprivate let id: UInt64
    }

    private struct State {
        var buckets: [Int64: [UInt64: Fire]] = [:]
        var nextID: UInt64 = 0
        /// The tick the running sleeper wakes at; nil when no sleeper runs.
        var sleeperTick: Int64?
        var sleeper: Task<Void, Never>?
        var generation: UInt64 = 0
    }

    private static let tickNanoseconds: Int64 = 10_000_000
    private let origin = ContinuousClock.now
    private let state = Mutex(State())

    deinit {
        state.withLock { $0.sleeper?.cancel() }
    }

    /// Calls `fire` at `deadline` (rounded up to the next 10 ms) unless removed first.
    func add(_ deadline: ContinuousClock.Instant, _ fire: @escaping Fire) -> Ticket {
        let tick = self.tick(of: deadline)
        return state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            state.buckets[tick, default: [:]][id] = fire
            if state.sleeperTick.map({ tick < $0 }) ?? true {
                startSleeper(&state, until: tick)
            }
            return Ticket(tick: tick, id: id)
        }
    }

    /// Forgets a deadline whose request finished.
    func remove(_ ticket: Ticket) {
        state.withLock { state in
            state.buckets[ticket.tick]?[ticket.id] = nil
            if state.buckets[ticket.tick]?.isEmpty == true { state.buckets[ticket.tick] = nil }
        }
    }

    private func tick(of instant: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (instant - origin).components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return max(0, (nanoseconds + Self.tickNanoseconds - 1) / Self.tickNanoseconds)
    }

    private func instant(of tick: Int64) -> ContinuousClock.Instant {
        origin + .nanoseconds(tick * Self.tickNanoseconds)
    }

    /// Replaces the sleeper with one that wakes at `tick`. Called under the lock.
    private func startSleeper(_ state: inout State, until tick: Int64) {
        state.sleeper?.cancel()
        state.generation &+= 1
        state.sleeperTick = tick
        let generation = state.generation
        let wake = instant(of: tick)
        state.sleeper = Task { [weak self] in
            var next = wake
            while true {
                do {
                    try await Task.sleep(until: next, clock: .continuous)
                } catch {
                    return  // replaced by an earlier sleeper, or the bus is gone
                }
                guard let self, let following = self.fireDue(generation: generation) else { return }
                next = following
            }
        }
    }

    /// Fires every bucket that is due; returns when to wake next, or nil to stop sleeping.
    private func fireDue(generation: UInt64) -> ContinuousClock.Instant? {
        let now = tick(of: .now)
        let (due, next): ([Fire], ContinuousClock.Instant?) = state.withLock { state in
            guard state.generation == generation else { return ([], nil) }
            var due: [Fire] = []
            for tick in state.buckets.keys where tick <= now {
                due += state.buckets.removeValue(forKey: tick)?.values ?? [:].values
            }
            guard let earliest = state.buckets.keys.min() else {
                state.sleeperTick = nil
                state.sleeper = nil
                return (due, nil)
            }
            state.sleeperTick = earliest
            return (due, instant(of: earliest))
        }
        for fire in due { fire() }
        return next
    }
}
