public import Bus
public import Foundation
public import Logging
import Synchronization

/// Where a background job is in its life, as the runner sees it. What clients and the admin screen
/// see is the job's own record (its plugin's wire format); ``RunnableJob/phase`` maps one onto the
/// other.
public enum JobPhase: String, Sendable, Codable, CaseIterable {
    /// Recorded and waiting for a worker of the job queue.
    case queued
    case running
    case done
    /// Ended by an error; what it wrote was rolled back.
    case failed
    /// Stopped on request (``JobRunner/cancel(_:)``); what it wrote was rolled back.
    case cancelled
}

/// A background job's state record: what its plugin stores in a collection of its own and shows.
/// The runner moves it through its phases; the job's own fields (counts, progress, problems) are
/// its plugin's.
public protocol RunnableJob: Codable, Sendable {
    var id: String { get }
    /// Read from and written to the record's own fields (a record may have fewer states: a queued
    /// job may be `running` with a flag, a cancelled one `failed`).
    var phase: JobPhase { get set }
    var finishedAt: Date? { get set }
    /// Records why the job ended badly: a sentence for the user (what went wrong, what to do) and
    /// the error's stable code (a record without a field for the code keeps the sentence only).
    mutating func failed(_ message: String, code: BusError.Code)
    /// Forgets what the job counted as written once its rollback removed it. `interrupted`: the
    /// rollback of a job a stopped process left behind (``JobRunner/recover()``).
    mutating func rolledBack(interrupted: Bool)
}

/// A job record whose `state` is `running` (with `queued: true` while it waits for a worker),
/// `succeeded` or `failed`, with a `failure` that says why: the imports' wire format, which clients
/// and the admin screen read. A cancelled job is recorded `failed`; the error's code is not kept.
public protocol SucceededOrFailedJob: RunnableJob {
    associatedtype State: RawRepresentable where State.RawValue == String
    var state: State { get set }
    var queued: Bool? { get set }
    var failure: String? { get set }
}

extension SucceededOrFailedJob {
    public var phase: JobPhase {
        get {
            switch state.rawValue {
            case "succeeded": .done
            case "failed": .failed
            default: queued == true ? .queued : .running
            }
        }
        set {
            let raw = switch newValue {
            case .queued, .running: "running"
            case .done: "succeeded"
            case .failed, .cancelled: "failed"
            }
            if let state = State(rawValue: raw) { self.state = state }
            queued = newValue == .queued ? true : nil
        }
    }

    public mutating func failed(_ message: String, code: BusError.Code) {
        failure = message
    }
}

/// What a job reads as it runs (an opened file), handed from its intake to its worker; closed
/// once the job has ended, or when it never runs.
public protocol JobInput: Sendable {
    func close()
}

/// Where a runner keeps its jobs' records: in storage, a plugin's collection (its `updatedAt`,
/// stamped by the store, is the job's heartbeat).
public struct JobLedger<Job: RunnableJob>: Sendable {
    /// Writes a job's record: `new` for its first write.
    public typealias Save = @Sendable (_ job: Job, _ owner: String, _ new: Bool) async throws(BusError) -> Void
    /// The jobs recorded as not ended (queued or running) whose record was last written more than
    /// `seconds` ago.
    public typealias Silent = @Sendable (_ seconds: TimeInterval) async throws(BusError) -> [(owner: String, job: Job)]

    public let save: Save
    public let silent: Silent

    public init(save: @escaping Save, silent: @escaping Silent) {
        self.save = save
        self.silent = silent
    }
}

/// The one way a plugin runs a long job in the background (an import of any format, of any
/// plugin): record it, queue it, run it with progress, roll it back when it fails or is cancelled,
/// and at a start roll back what a stopped process left running.
///
/// - **Start**: ``start(_:owner:ticket:scratch:prepare:work:)`` opens the job's input off the
///   request threads (a refused input records nothing), records the job `queued` and queues it on
///   the server's ``JobQueue``; while it waits its record is rewritten every heartbeat, so no node
///   takes it for one a stopped process left behind.
/// - **Run**: `work` gets a ``JobRun``: the record to fill in, the worker for CPU-heavy steps,
///   ``JobRun/progress()`` to record progress a few times a second (the heartbeat too) and
///   ``JobRun/checkCancelled()`` between steps.
/// - **End**: done; or failed/cancelled, when the plugin's rollback deletes what the job wrote
///   (marked with the job's id) and the record says why. A rollback that fails leaves the record
///   as it was: the next ``recover()`` rolls it back.
/// - **Recovery**: ``recover()`` (often, from the plugin's janitor) rolls back every job recorded
///   as not ended that has been silent for ``Settings/staleAfter`` and is not running here.
///
/// What is the plugin's own: opening its input, what a step writes, how to roll back.
public final class JobRunner<Job: RunnableJob>: Sendable {
    /// Deletes what a job wrote (everything marked with its id).
    public typealias RollBack = @Sendable (_ jobID: String, _ owner: String) async throws(BusError) -> Void

    public struct Settings: Sendable {
        /// A job silent for this long belongs to a process that stopped (a running one records its
        /// progress several times a second; a waiting one every ``heartbeat``).
        public var staleAfter: TimeInterval
        /// How often ``JobRun/progress()`` writes the record at most.
        public var progressEvery: Duration
        /// How often a waiting job's record is rewritten.
        public var heartbeat: Duration
        /// What the job is, in its messages: "The import stopped…".
        public var noun: String

        public init(staleAfter: TimeInterval = 15, progressEvery: Duration = .milliseconds(250), heartbeat: Duration = .seconds(5),
                    noun: String = "import") {
            self.staleAfter = staleAfter
            self.progressEvery = progressEvery
            self.heartbeat = heartbeat
            self.noun = noun
        }
    }

    /// The code a cancelled job's error has.
    public static var cancelledCode: BusError.Code { "cancelled" }

    /// Whose jobs these are, in log lines ("notes", "vocabulary").
    public let name: String
    public let settings: Settings
    let ledger: JobLedger<Job>
    let rollBack: RollBack
    /// The server's one queue of heavy jobs (when and on which worker a job runs).
    public let queue: JobQueue
    let background: BackgroundWork
    let clock: PluginClock
    let logger: Logger
    /// Jobs of this process (started and not yet ended): never taken for a stopped process's.
    public let active = RunningJobs()
    private let cancelled = Mutex<Set<String>>([])

    /// - Parameters:
    ///   - background: where the jobs run (the plugin's, among its services: shutdown cancels them,
    ///     and their rollback follows).
    ///   - clock: the plugin's (`context.clock`): a job's `startedAt` and `finishedAt`.
    public init(name: String, ledger: JobLedger<Job>, rollBack: @escaping RollBack, queue: JobQueue, background: BackgroundWork,
                clock: PluginClock, logger: Logger, settings: Settings = Settings()) {
        self.name = name
        self.ledger = ledger
        self.rollBack = rollBack
        self.queue = queue
        self.background = background
        self.clock = clock
        self.logger = logger
        self.settings = settings
    }

    // MARK: Start

    /// Admits a job of `owner` to the queue, then brings its input into `scratch` (a new directory
    /// the job owns from here), then `start`s it with the file `bringIn` answered. A full queue is
    /// refused before anything is read, and `letGo` lets go of the input then (`bringIn` lets go of
    /// it once it has read it, or failed to); an input that cannot be brought in gives the place
    /// back and leaves no scratch.
    /// - Throws: `unavailable` (503) or `rate_limited` (429) with `retryAfter` when the queue is full;
    ///   `bringIn`'s or `start`'s error.
    public func admit<T>(owner: String, scratch: URL, letGo: () async -> Void = {}, bringIn: (_ scratch: URL) async throws -> URL,
                         then start: (_ file: URL, _ ticket: JobQueue.Ticket) async throws -> T) async throws -> T {
        let ticket: JobQueue.Ticket
        do throws(BusError) {
            ticket = try queue.reserve(owner: owner)
        } catch {
            await letGo()
            throw error
        }
        let file: URL
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            queue.abandon(ticket)
            await letGo()
            throw BusError(.internal, "Cannot create a scratch directory for the \(settings.noun) in \(scratch.path): \(error.localizedDescription); "
                           + "is the temporary directory writable?")
        }
        do {
            file = try await bringIn(scratch)
        } catch {
            queue.abandon(ticket)
            Self.remove(scratch)
            throw error
        }
        return try await start(file, ticket)
    }

    /// Opens the job's input with `prepare` (off the threads that answer requests), records `job`
    /// as queued and queues it; `work` runs when a worker of the queue is free.
    ///
    /// - Parameters:
    ///   - ticket: the job's place in the queue, reserved before its input was read; given back
    ///     whatever happens.
    ///   - scratch: a directory the job owns from here (its upload): removed once it has ended, or
    ///     at once when it does not start.
    /// - Returns: the job as recorded (queued).
    /// - Throws: `prepare`'s error (the input is refused; nothing was recorded); storage's; or
    ///   `unavailable` with `retryAfter` when the server is shutting down.
    public func start<Input: JobInput>(_ job: Job, owner: String, ticket: JobQueue.Ticket, scratch: URL? = nil,
                                       prepare: @escaping @Sendable () throws(BusError) -> Input,
                                       work: @escaping @Sendable (JobRun<Job>, Input) async throws(BusError) -> Void) async throws(BusError) -> Job {
        var queued = job
        queued.phase = .queued
        let input: Input
        do {
            input = try await queue.intake(prepare)
            try await ledger.save(queued, owner, true)
        } catch {
            queue.abandon(ticket)
            Self.remove(scratch)
            throw error
        }
        active.insert(queued.id)
        let waiting = queued
        let started = background.start { [self] in
            let ran: Void? = await queue.run(ticket, heartbeat: settings.heartbeat, whileWaiting: { [ledger] in
                // Waiting is alive: no node takes the job for one a stopped process left behind.
                try? await ledger.save(waiting, owner, false)
            }) { worker in
                await run(waiting, input: input, worker: worker, owner: owner, work: work)
            }
            if ran == nil {
                logger.info("\(name): an \(settings.noun) waiting in the queue was stopped with the server", metadata: ["job": "\(waiting.id)"])
            }
            input.close()
            end(waiting.id, scratch: scratch)
        }
        guard started else {
            queue.abandon(ticket)
            input.close()
            end(queued.id, scratch: scratch)
            throw BusError(.unavailable, "The server is shutting down; start the \(settings.noun) again in a moment.", details: ["retryAfter": "5"])
        }
        return queued
    }

    /// Asks a job running (or waiting) in this process to stop: it is rolled back and ends
    /// cancelled, at its next ``JobRun/checkCancelled()``. False when it is not one of this
    /// process's jobs.
    @discardableResult
    public func cancel(_ id: String) -> Bool {
        guard active.contains(id) else { return false }
        cancelled.withLock { _ = $0.insert(id) }
        return true
    }

    func isCancelled(_ id: String) -> Bool {
        cancelled.withLock { $0.contains(id) }
    }

    private func end(_ id: String, scratch: URL?) {
        active.remove(id)
        cancelled.withLock { _ = $0.remove(id) }
        Self.remove(scratch)
    }

    private static func remove(_ scratch: URL?) {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    // MARK: Run

    private func run<Input>(_ queued: Job, input: Input, worker: JobQueue.Worker, owner: String,
                            work: @Sendable (JobRun<Job>, Input) async throws(BusError) -> Void) async {
        let run = JobRun(queued, owner: owner, worker: worker, runner: self)
        run.job.phase = .running
        try? await run.save()
        var failure: BusError?
        do throws(BusError) {
            if isCancelled(queued.id) { throw run.cancellation }
            try await work(run, input)
        } catch {
            failure = error
        }
        await finish(run.job, owner: owner, failure: failure)
    }

    private func finish(_ ended: Job, owner: String, failure: BusError?) async {
        var job = ended
        if let failure {
            let cancelled = failure.code == Self.cancelledCode
            job.phase = cancelled ? .cancelled : .failed
            job.failed(cancelled ? failure.message
                       : "The \(settings.noun) stopped and was rolled back, nothing of it was kept: \(failure.message)", code: failure.code)
            if cancelled {
                logger.info("\(name): an \(settings.noun) was cancelled", metadata: ["job": "\(job.id)"])
            } else {
                logger.error("\(name): an \(settings.noun) failed", metadata: ["job": "\(job.id)", "code": "\(failure.code.rawValue)",
                                                                             "error": "\(failure.message)"])
            }
            do {
                try await rollBack(job.id, owner)
            } catch {
                logger.error("\(name): rolling back an \(settings.noun) failed (it is retried at the next start)",
                             metadata: ["job": "\(job.id)", "error": "\(error.message)"])
                return
            }
            job.rolledBack(interrupted: false)
        } else {
            job.phase = .done
        }
        job.finishedAt = clock.now()
        do {
            try await ledger.save(job, owner, false)
        } catch {
            logger.error("\(name): recording the end of an \(settings.noun) failed", metadata: ["job": "\(job.id)", "error": "\(error.message)"])
        }
    }

    // MARK: Recovery

    /// Rolls back every job a stopped process left queued or running: silent for
    /// ``Settings/staleAfter`` and not running here. Each ends failed, saying so.
    public func recover() async {
        do {
            for (owner, stale) in try await ledger.silent(settings.staleAfter) where !active.contains(stale.id) {
                var job = stale
                logger.warning("\(name): an \(settings.noun) was interrupted by a restart; rolling it back", metadata: ["job": "\(job.id)"])
                try await rollBack(job.id, owner)
                job.phase = .failed
                job.failed("The server stopped during the \(settings.noun); nothing of it was kept. Run the \(settings.noun) again.",
                           code: .unavailable)
                job.rolledBack(interrupted: true)
                job.finishedAt = clock.now()
                try await ledger.save(job, owner, false)
            }
        } catch {
            logger.error("\(name): rolling back interrupted \(settings.noun)s failed", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
        }
    }
}

/// A job as it runs, for its `work`: its record to fill in, its worker, its progress and its
/// cancellation. Used by the job's task alone.
public final class JobRun<Job: RunnableJob> {
    /// The record: `work` fills in its own fields (counts, progress), the runner its phase.
    public var job: Job
    public let owner: String
    /// For CPU-heavy steps (``JobQueue/Worker/blocking(_:)``).
    public let worker: JobQueue.Worker
    private let runner: JobRunner<Job>
    private var lastSaved = ContinuousClock.now

    init(_ job: Job, owner: String, worker: JobQueue.Worker, runner: JobRunner<Job>) {
        self.job = job
        self.owner = owner
        self.worker = worker
        self.runner = runner
    }

    var cancellation: BusError {
        BusError(JobRunner<Job>.cancelledCode, "The \(runner.settings.noun) was cancelled and rolled back; nothing of it was kept. Start it again to run it.")
    }

    /// Throws when the job is to stop: cancelled (``JobRunner/cancel(_:)``), or the server is
    /// shutting down (`unavailable`). Call it between steps.
    public func checkCancelled() throws(BusError) {
        if runner.isCancelled(job.id) { throw cancellation }
        if Task.isCancelled { throw BusError(.unavailable, "The server is shutting down.") }
    }

    /// Records the job's progress when ``JobRunner/Settings/progressEvery`` has passed since it
    /// was last recorded (a running job's heartbeat too).
    public func progress() async throws(BusError) {
        guard ContinuousClock.now - lastSaved > runner.settings.progressEvery else { return }
        try await save()
    }

    /// Records the job now.
    public func save() async throws(BusError) {
        try await runner.ledger.save(job, owner, false)
        lastSaved = ContinuousClock.now
    }
}

extension BusError {
    /// `body`'s result, its error as a `BusError`: one that is one as it is, any other as
    /// `internal` (for a bus handler calling code that throws any error, like ``JobRunner/admit(owner:scratch:letGo:bringIn:then:)``).
    public static func rethrowing<T>(_ body: () async throws -> T) async throws(BusError) -> T {
        do {
            return try await body()
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError(.internal, "The server failed unexpectedly: \(error.localizedDescription)")
        }
    }
}
