import Bus
import Dispatch
import Synchronization

/// A one-shot timer on its own dispatch queue that calls its sweep one tick (10 ms) after ``arm()``,
/// and again a tick later each time the sweep answers true. Idle, it schedules nothing.
///
/// Its owners keep deadlines for work that nearly always ends within a tick (a request over NATS
/// and the handler answering it): registering one is an array append under a lock the owner takes
/// anyway, where a ``DeadlineWatchdog`` ticket costs a closure and a dictionary entry in and out.
/// The sweep gives a ticket to what is still running after a tick, so a deadline is decided as
/// before: on the timer's own queue, within a tick of its instant, even when every cooperative
/// thread is busy.
///
/// The owner arms it when it registers work while not armed (a flag under its own lock), and
/// clears that flag in the sweep, under the same lock, when nothing is left: the two never race.
final class SweepTimer: Sendable {
    static let tick: DispatchTimeInterval = .milliseconds(10)
    // Dispatch sources are thread-safe (schedule from any thread); the type predates Sendable.
    nonisolated(unsafe) private let timer: any DispatchSourceTimer

    init(label: String) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label))
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// What runs each tick; it answers whether to run again a tick later.
    func onTick(_ sweep: @escaping @Sendable () -> Bool) {
        timer.setEventHandler { [weak self] in
            if sweep() { self?.arm() }
        }
    }

    func arm() {
        timer.schedule(deadline: .now() + Self.tick, leeway: .milliseconds(1))
    }
}

/// The handlers running for requests off the wire, each to be cancelled at its caller's deadline.
///
/// A handler is registered with an append; a tick later the sweep forgets those that finished,
/// cancels those whose deadline has passed, and gives the rest a ``DeadlineWatchdog`` ticket.
final class RunningHandlers: Sendable {
    /// One handler's deadline and whether it has finished; a ticket once the sweep gave it one.
    /// Whichever of "finished" and "ticket set" comes second removes the ticket.
    final class Entry: Sendable {
        let deadline: ContinuousClock.Instant
        private let state = Mutex<(ticket: DeadlineWatchdog.Ticket?, finished: Bool)>((nil, false))

        init(deadline: ContinuousClock.Instant) { self.deadline = deadline }

        /// Called by the handler's task when its reply is ready.
        func finish(_ watchdog: DeadlineWatchdog) {
            let ticket = state.withLock { state in
                state.finished = true
                return state.ticket
            }
            if let ticket { watchdog.remove(ticket) }
        }

        var finished: Bool { state.withLock { $0.finished } }

        fileprivate func set(_ ticket: DeadlineWatchdog.Ticket, _ watchdog: DeadlineWatchdog) {
            let finished = state.withLock { state in
                state.ticket = ticket
                return state.finished
            }
            if finished { watchdog.remove(ticket) }
        }
    }

    private struct State {
        var young: [(entry: Entry, task: Task<Void, Never>)] = []
        var armed = false
    }

    let watchdog = DeadlineWatchdog()
    private let state = Mutex(State())
    private let timer = SweepTimer(label: "quire.bus.handlers")

    init() {
        timer.onTick { [weak self] in self?.sweep() ?? false }
    }

    func add(_ entry: Entry, _ task: Task<Void, Never>) {
        let arm = state.withLock { state -> Bool in
            state.young.append((entry, task))
            guard !state.armed else { return false }
            state.armed = true
            return true
        }
        if arm { timer.arm() }
    }

    /// Everything registered since the last sweep: forgotten, cancelled or ticketed.
    private func sweep() -> Bool {
        let young = state.withLock { state in
            state.armed = false
            var taken: [(entry: Entry, task: Task<Void, Never>)] = []
            swap(&taken, &state.young)
            return taken
        }
        let now = ContinuousClock.now
        for (entry, task) in young where !entry.finished {
            if entry.deadline <= now {
                task.cancel()
            } else {
                entry.set(watchdog.add(entry.deadline) { task.cancel() }, watchdog)
            }
        }
        return false
    }
}
