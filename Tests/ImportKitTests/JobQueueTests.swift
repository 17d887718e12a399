import Bus
import PluginKit
import Synchronization
import Testing

/// The job queue's bound and its fair share, driven step by step (no clocks): jobs hold their
/// worker until the test lets them go.
@Suite struct JobQueueTests {
    /// A job that runs until released, and the order jobs started in.
    final class Gates: Sendable {
        private let state = Mutex<(started: [String], open: Set<String>, waiting: [String: CheckedContinuation<Void, Never>])>(([], [], [:]))

        var started: [String] { state.withLock { $0.started } }

        func enter(_ name: String) async {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state -> Bool in
                    state.started.append(name)
                    if state.open.contains(name) { return true }
                    state.waiting[name] = continuation
                    return false
                }
                if go { continuation.resume() }
            }
        }

        func release(_ name: String) {
            let waiter = state.withLock { state in
                state.open.insert(name)
                return state.waiting.removeValue(forKey: name)
            }
            waiter?.resume()
        }
    }

    /// Yields until `condition` holds (the other tasks get the threads meanwhile).
    func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test func aUserWithManyJobsDoesNotKeepAnotherWaitingBehindAll() async throws {
        let queue = JobQueue(.init(workers: 1, maxJobs: 10, maxJobsPerUser: 10))
        let gates = Gates()
        let a = try (1...3).map { _ in try queue.reserve(owner: "alice") }
        let b = try queue.reserve(owner: "bob")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await queue.run(a[0]) { _ in await gates.enter("a1") } }
            await until { gates.started == ["a1"] }
            // Alice's two more wait first, Bob's after them.
            group.addTask { _ = await queue.run(a[1]) { _ in await gates.enter("a2") } }
            await until { queue.load.waiting == 1 }
            group.addTask { _ = await queue.run(a[2]) { _ in await gates.enter("a3") } }
            await until { queue.load.waiting == 2 }
            group.addTask { _ = await queue.run(b) { _ in await gates.enter("b1") } }
            await until { queue.load.waiting == 3 }
            #expect(queue.load.running == 1)
            gates.release("a1")
            await until { gates.started.count == 2 }
            #expect(gates.started == ["a1", "b1"], "Bob's job goes before Alice's second")
            gates.release("b1")
            await until { gates.started.count == 3 }
            gates.release("a2")
            await until { gates.started.count == 4 }
            gates.release("a3")
        }
        #expect(gates.started == ["a1", "b1", "a2", "a3"])
        #expect(queue.load.running == 0 && queue.load.waiting == 0)
    }

    @Test func workersRunAtMostTheirNumberAtOnce() async throws {
        let queue = JobQueue(.init(workers: 2, maxJobs: 10, maxJobsPerUser: 10))
        let gates = Gates()
        let tickets = try ["a", "b", "c", "d"].map { try queue.reserve(owner: $0) }
        await withTaskGroup(of: Void.self) { group in
            for (ticket, name) in zip(tickets, ["a", "b", "c", "d"]) {
                group.addTask { _ = await queue.run(ticket) { _ in await gates.enter(name) } }
            }
            await until { gates.started.count == 2 && queue.load.waiting == 2 }
            #expect(queue.load.running == 2)
            for name in gates.started { gates.release(name) }
            await until { gates.started.count == 4 }
            for name in gates.started { gates.release(name) }
        }
        #expect(Set(gates.started) == ["a", "b", "c", "d"])
    }

    @Test func theQueueIsBoundedInAllAndPerUser() throws {
        let queue = JobQueue(.init(workers: 1, maxJobs: 3, maxJobsPerUser: 2, retryAfterSeconds: 7))
        let first = try queue.reserve(owner: "alice")
        _ = try queue.reserve(owner: "alice")
        do {
            _ = try queue.reserve(owner: "alice")
            Issue.record("a third job of one user was admitted")
        } catch {
            #expect(error.code == .rateLimited)
            #expect(error.details["retryAfter"] == "7")
            #expect(!error.message.contains("Ticket") && !error.message.contains("JobQueue"))
        }
        _ = try queue.reserve(owner: "bob")
        do {
            _ = try queue.reserve(owner: "carol")
            Issue.record("a job past the queue's length was admitted")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.details["retryAfter"] == "7")
        }
        // A place given back is free again.
        queue.abandon(first)
        _ = try queue.reserve(owner: "carol")
    }

    @Test func aJobCancelledWhileWaitingLeavesTheQueue() async throws {
        let queue = JobQueue(.init(workers: 1, maxJobs: 2, maxJobsPerUser: 2))
        let gates = Gates()
        let running = try queue.reserve(owner: "alice")
        let waiting = try queue.reserve(owner: "alice")
        let holder = Task { _ = await queue.run(running) { _ in await gates.enter("first") } }
        await until { gates.started == ["first"] }
        let waiter = Task { await queue.run(waiting) { _ in "ran" } }
        await until { queue.load.waiting == 1 }
        waiter.cancel()
        #expect(await waiter.value == nil)
        #expect(queue.load.waiting == 0)
        // Its place is free: another job of the user is admitted.
        let again = try queue.reserve(owner: "alice")
        gates.release("first")
        await holder.value
        #expect(await queue.run(again) { _ in "ran" } == "ran")
    }

    @Test func blockingWorkRunsOnTheWorkersThreadAndAnswers() async throws {
        let queue = JobQueue(.init(workers: 1))
        let ticket = try queue.reserve(owner: "alice")
        let sum = await queue.run(ticket) { worker in await worker.blocking { (1...1000).reduce(0, +) } }
        #expect(sum == 500_500)
    }
}
