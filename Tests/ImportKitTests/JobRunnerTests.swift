import AppHostTestKit
import Bus
import Foundation
import Logging
import PluginKit
import Synchronization
import Testing

/// The contract of the one job runner both imports use (and any third): a job is recorded queued,
/// runs with progress, ends done, or failed or cancelled with what it wrote rolled back, and a job
/// a stopped process left behind is rolled back once it has been silent long enough (by a manual
/// clock, never by sleeping).
@Suite struct JobRunnerTests {
    /// A job's record as a plugin would keep it.
    struct TestJob: RunnableJob, Equatable {
        var id: String
        var phase: JobPhase = .queued
        var finishedAt: Date?
        var failure: String?
        var code: String?
        /// Items the job counts as written (its plugin's own field).
        var written = 0
        var interruptedRollBack: Bool?

        init(id: String) { self.id = id }

        mutating func failed(_ message: String, code: BusError.Code) {
            failure = message
            self.code = code.rawValue
        }

        mutating func rolledBack(interrupted: Bool) {
            written = 0
            interruptedRollBack = interrupted
        }
    }

    /// Storage for the test: the jobs' records stamped by the manual clock (their heartbeat), every
    /// write of them in order, and the items each job wrote.
    final class World: Sendable {
        let clock = ManualClock()
        private let state = Mutex<(records: [String: (owner: String, job: TestJob, updatedAt: Date)], saves: [TestJob],
                                   items: [String: Int], rollBacks: [String], failRollBacks: Bool)>(([:], [], [:], [], false))

        var saves: [TestJob] { state.withLock { $0.saves } }
        var rollBacks: [String] { state.withLock { $0.rollBacks } }
        func record(_ id: String) -> TestJob? { state.withLock { $0.records[id]?.job } }
        func items(_ id: String) -> Int { state.withLock { $0.items[id, default: 0] } }
        func write(_ id: String) { state.withLock { $0.items[id, default: 0] += 1 } }
        func failRollBacks(_ fail: Bool) { state.withLock { $0.failRollBacks = fail } }

        /// A record a stopped process left, written now.
        func leave(_ job: TestJob, owner: String) {
            let now = clock.now
            state.withLock { $0.records[job.id] = (owner, job, now) }
        }

        var ledger: JobLedger<TestJob> {
            JobLedger(save: { job, owner, new async throws(BusError) in
                let now = self.clock.now
                try self.state.withLock { state throws(BusError) in
                    if new != (state.records[job.id] == nil) { throw BusError(.conflict, "job \(job.id): new \(new)") }
                    state.records[job.id] = (owner, job, now)
                    state.saves.append(job)
                }
            }, silent: { seconds async throws(BusError) in
                let stale = self.clock.now.addingTimeInterval(-seconds)
                return self.state.withLock { state in
                    state.records.values.filter { [.queued, .running].contains($0.job.phase) && $0.updatedAt < stale }.map { ($0.owner, $0.job) }
                }
            })
        }

        func rollBack(_ id: String) throws(BusError) {
            try state.withLock { state throws(BusError) in
                if state.failRollBacks { throw BusError(.unavailable, "storage is away") }
                state.items[id] = 0
                state.rollBacks.append(id)
            }
        }
    }

    final class Input: JobInput {
        let closed = Mutex(false)
        func close() { closed.withLock { $0 = true } }
    }

    /// A runner over `world`, its background work running until the test ends (or shuts it down).
    struct Harness {
        let world = World()
        let background = BackgroundWork(plugin: "test")
        let queue = JobQueue(.init(workers: 1))
        let runner: JobRunner<TestJob>
        let service: Task<Void, Never>

        init() {
            let world = self.world
            let background = self.background
            runner = JobRunner(name: "test", ledger: world.ledger, rollBack: { id, _ async throws(BusError) in try world.rollBack(id) },
                               queue: queue, background: background, clock: world.clock.pluginClock, logger: Logger(label: "test"),
                               settings: .init(progressEvery: .zero))
            service = Task { await background.run() }
        }

        func start(_ id: String, input: Input = Input(), work: @escaping @Sendable (JobRun<TestJob>) async throws(BusError) -> Void) async throws -> TestJob {
            let ticket = try queue.reserve(owner: "alice")
            return try await runner.start(TestJob(id: id), owner: "alice", ticket: ticket, prepare: { input }, work: { run, _ async throws(BusError) in
                try await work(run)
            })
        }

        /// Starts a job that writes an item, waits at `gate`, and checks whether it is to stop before
        /// writing another; answers once it waits.
        func startWaiting(_ id: String, at gate: Gate) async throws {
            let world = self.world
            _ = try await start(id) { run throws(BusError) in
                world.write(run.job.id)
                run.job.written += 1
                await gate.wait()
                try run.checkCancelled()
                world.write(run.job.id)
            }
            await until("the job's first step") { gate.reached }
        }

        /// A job held at its first step (`startWaiting`), `interrupt` done to it there, then let go
        /// on: answers its record once it ended.
        func interrupted(_ id: String, by interrupt: () -> Void) async throws -> TestJob {
            let gate = Gate()
            try await startWaiting(id, at: gate)
            interrupt()
            gate.open()
            await until("the job's end") { ended(id) }
            return try #require(world.record(id))
        }

        /// Waits (yielding, at most 10 s) until `condition` holds.
        func until(_ what: String, _ condition: () -> Bool) async {
            let deadline = ContinuousClock.now + .seconds(10)
            while !condition() {
                if ContinuousClock.now > deadline {
                    Issue.record("timed out waiting for \(what)")
                    return
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }

        func ended(_ id: String) -> Bool { [.done, .failed, .cancelled].contains(world.record(id)?.phase) && !runner.active.contains(id) }
    }

    /// Lets a job's work go on when the test says.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?, reached: Bool)>((false, nil, false))
        var reached: Bool { state.withLock { $0.reached } }
        func wait() async {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state -> Bool in
                    state.reached = true
                    if state.open { return true }
                    state.waiter = continuation
                    return false
                }
                if go { continuation.resume() }
            }
        }
        func open() {
            state.withLock { state in
                state.open = true
                return state.waiter.take()
            }?.resume()
        }
    }

    @Test func aJobIsRecordedQueuedRunsWithProgressAndEndsDone() async throws {
        let harness = Harness()
        let world = harness.world
        let input = Input()
        world.clock.advance(by: 42)
        let job = try await harness.start("j1", input: input) { run throws(BusError) in
            for _ in 1...3 {
                try run.checkCancelled()
                world.write(run.job.id)
                run.job.written += 1
                try await run.progress()
            }
        }
        #expect(job.phase == .queued)
        await harness.until("the job's end") { harness.ended("j1") }
        let phases = world.saves.map(\.phase)
        #expect(phases.first == .queued, "recorded queued first: \(phases)")
        #expect(phases.contains(.running))
        #expect(world.saves.filter { $0.phase == .running }.map(\.written) == [0, 1, 2, 3], "its progress was recorded step by step")
        let end = try #require(world.record("j1"))
        #expect(end.phase == .done && end.written == 3 && end.failure == nil)
        #expect(end.finishedAt == world.clock.now, "finished by the plugin's clock")
        #expect(world.items("j1") == 3 && world.rollBacks.isEmpty)
        #expect(input.closed.withLock { $0 }, "its input was closed")
        #expect(harness.queue.load.running == 0)
        harness.service.cancel()
    }

    @Test func aJobThatFailsIsRolledBackAndSaysWhy() async throws {
        let harness = Harness()
        let world = harness.world
        _ = try await harness.start("j2") { run throws(BusError) in
            for _ in 1...2 {
                world.write(run.job.id)
                run.job.written += 1
                try await run.progress()
            }
            throw BusError(.tooLarge, "The file holds more than the server takes.")
        }
        await harness.until("the job's end") { harness.ended("j2") }
        let end = try #require(world.record("j2"))
        #expect(end.phase == .failed)
        #expect(end.failure == "The import stopped and was rolled back, nothing of it was kept: The file holds more than the server takes.")
        #expect(end.code == "too_large")
        #expect(end.written == 0 && end.interruptedRollBack == false, "what it counted was forgotten")
        #expect(world.rollBacks == ["j2"] && world.items("j2") == 0, "what it wrote was deleted")
        harness.service.cancel()
    }

    @Test func aCancelledJobStopsAtItsNextCheckAndIsRolledBack() async throws {
        let harness = Harness()
        let world = harness.world
        let end = try await harness.interrupted("j3") {
            #expect(harness.runner.cancel("j3"))
            #expect(!harness.runner.cancel("elsewhere"), "a job not running here is not cancelled")
        }
        #expect(end.phase == .cancelled)
        #expect(end.code == JobRunner<TestJob>.cancelledCode.rawValue)
        #expect(end.failure?.contains("cancelled and rolled back") == true)
        #expect(world.items("j3") == 0 && world.rollBacks == ["j3"] && end.written == 0)
        harness.service.cancel()
    }

    @Test func aShutdownStopsARunningJobAndRollsItBack() async throws {
        let harness = Harness()
        let world = harness.world
        let end = try await harness.interrupted("j4") { harness.service.cancel() }
        await harness.service.value
        #expect(end.phase == .failed)
        #expect(end.failure == "The import stopped and was rolled back, nothing of it was kept: The server is shutting down.")
        #expect(world.items("j4") == 0 && world.rollBacks == ["j4"])
        // Once shut down, a new job is refused with a time to come back, its place given back.
        let ticket = try harness.queue.reserve(owner: "alice")
        do {
            _ = try await harness.runner.start(TestJob(id: "late"), owner: "alice", ticket: ticket, prepare: { Input() },
                                               work: { _, _ async throws(BusError) in })
            Issue.record("a job was started after the shutdown")
        } catch {
            #expect(error.code == .unavailable && error.details["retryAfter"] == "5")
        }
        #expect(world.record("late")?.phase == .queued, "recorded before the background refused it")
    }

    @Test func aRefusedInputRecordsNothingAndGivesItsPlaceBack() async throws {
        let harness = Harness()
        let queue = JobQueue(.init(workers: 1, maxJobs: 1, maxJobsPerUser: 1))
        let runner = JobRunner(name: "test", ledger: harness.world.ledger, rollBack: { _, _ async throws(BusError) in }, queue: queue,
                               background: harness.background, clock: harness.world.clock.pluginClock, logger: Logger(label: "test"))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quire-runner-test-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let ticket = try queue.reserve(owner: "alice")
        do {
            _ = try await runner.start(TestJob(id: "bad"), owner: "alice", ticket: ticket, scratch: scratch,
                                       prepare: { () throws(BusError) -> Input in throw BusError.invalid("This is not a CSV file.", field: "file") },
                                       work: { _, _ async throws(BusError) in Issue.record("a refused job ran") })
            Issue.record("a refused input was started")
        } catch {
            #expect(error.code == .invalid)
        }
        #expect(harness.world.record("bad") == nil && harness.world.saves.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: scratch.path), "its scratch was removed")
        _ = try queue.reserve(owner: "alice")  // the one place is free again
        harness.service.cancel()
    }

    @Test func recoveryRollsBackWhatAStoppedProcessLeftOnceItIsSilent() async throws {
        let harness = Harness()
        let world = harness.world
        var left = TestJob(id: "crashed")
        left.phase = .running
        left.written = 7
        world.leave(left, owner: "bob")
        var queued = TestJob(id: "waited")
        queued.phase = .queued
        world.leave(queued, owner: "bob")
        // One of this process's, running, silent as long: never taken for a stopped process's.
        let gate = Gate()
        _ = try await harness.start("mine") { _ throws(BusError) in await gate.wait() }
        await harness.until("this process's job running") { gate.reached }

        await harness.runner.recover()
        #expect(world.rollBacks.isEmpty, "a job heard from within staleAfter is left alone")
        world.clock.advance(by: 16)
        await harness.runner.recover()
        #expect(Set(world.rollBacks) == ["crashed", "waited"])
        let end = try #require(world.record("crashed"))
        #expect(end.phase == .failed && end.finishedAt == world.clock.now)
        #expect(end.failure == "The server stopped during the import; nothing of it was kept. Run the import again.")
        #expect(end.code == "unavailable" && end.interruptedRollBack == true && end.written == 0)
        #expect(world.record("waited")?.phase == .failed)
        #expect(world.record("mine")?.phase == .running)
        gate.open()
        await harness.until("this process's job's end") { harness.ended("mine") }
        #expect(world.record("mine")?.phase == .done)
        harness.service.cancel()
    }

    @Test func aRollbackThatFailsLeavesTheJobForTheNextRecovery() async throws {
        let harness = Harness()
        let world = harness.world
        world.failRollBacks(true)
        _ = try await harness.start("j5") { run throws(BusError) in
            world.write(run.job.id)
            run.job.written = 1
            try await run.progress()
            throw BusError(.unavailable, "Storage stopped answering.")
        }
        await harness.until("the job's end") { !harness.runner.active.contains("j5") }
        #expect(world.record("j5")?.phase == .running, "not recorded as ended: nothing was rolled back")
        #expect(world.items("j5") == 1)
        world.failRollBacks(false)
        world.clock.advance(by: 16)
        await harness.runner.recover()
        #expect(world.record("j5")?.phase == .failed && world.items("j5") == 0)
        harness.service.cancel()
    }
}
