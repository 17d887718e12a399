import Dispatch
import Synchronization

/// Fires callbacks at deadlines, for every pending request of one bus (any transport), from one Dispatch timer.
///
/// A `Task.sleep` per request costs several microseconds — more than the whole request otherwise —
/// so deadlines are grouped into 10 ms buckets and one timer wakes for the earliest bucket. The
/// timer runs on its own dispatch queue, not on Swift's cooperative threads: a deadline must be
/// decided on time even when every cooperative thread is busy (blocking work elsewhere in the
/// process), or a late handler would win the race it should have lost. An idle bus schedules nothing.
public final class DeadlineWatchdog: Sendable {
    public typealias Fire = @Sendable () -> Void

    /// A registered deadline, to remove once the request is done.
    public struct Ticket: Sendable {
        fileprivate let tick: Int64
        fileprivate let id: UInt64
    }

    private struct State {
        var buckets: [Int64: [UInt64: Fire]] = [:]
        var nextID: UInt64 = 0
        /// The tick the timer is set for; nil when it is idle.
        var scheduledTick: Int64?
    }

    private static let tickNanoseconds: Int64 = 10_000_000
    private let origin = ContinuousClock.now
    private let state = Mutex(State())
    // Dispatch sources are thread-safe (schedule/cancel from any thread); the type predates Sendable.
    nonisolated(unsafe) private let timer: any DispatchSourceTimer

    public init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "quire.bus.deadlines"))
        timer.setEventHandler { [weak self] in self?.fireDue() }
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Calls `fire` at `deadline` (rounded up to the next 10 ms) unless removed first.
    public func add(_ deadline: ContinuousClock.Instant, _ fire: @escaping Fire) -> Ticket {
        let tick = self.tick(of: deadline)
        return state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            state.buckets[tick, default: [:]][id] = fire
            if state.scheduledTick.map({ tick < $0 }) ?? true {
                schedule(&state, at: tick)
            }
            return Ticket(tick: tick, id: id)
        }
    }

    /// Forgets a deadline whose request finished.
    public func remove(_ ticket: Ticket) {
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

    /// Sets the timer for `tick`. Called under the lock.
    private func schedule(_ state: inout State, at tick: Int64) {
        state.scheduledTick = tick
        let wait = (origin + .nanoseconds(tick * Self.tickNanoseconds)) - .now
        let (seconds, attoseconds) = wait.components
        let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), leeway: .milliseconds(1))
    }

    /// Fires every bucket that is due and sets the timer for the next one, if any.
    private func fireDue() {
        let now = tick(of: .now)
        let due: [Fire] = state.withLock { state in
            var due: [Fire] = []
            for tick in state.buckets.keys where tick <= now {
                due += state.buckets.removeValue(forKey: tick)?.values ?? [:].values
            }
            if let earliest = state.buckets.keys.min() {
                schedule(&state, at: earliest)
            } else {
                state.scheduledTick = nil
            }
            return due
        }
        for fire in due { fire() }
    }
}
