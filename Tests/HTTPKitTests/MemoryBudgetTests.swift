import Foundation
import HTTPKit
import Synchronization
import Testing

/// Waits (yielding, never sleeping a fixed time) until `condition` holds; false if it never did
/// within many turns of the scheduler.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<200_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// A door a task waits at until the test opens it: holds a reservation for as long as the test likes.
final class Door: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// A value shared between tasks.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}

@Suite("Memory budget")
struct MemoryBudgetTests {
    @Test("work that fits runs at once, and its bytes are given back when it returns")
    func fits() async throws {
        let budget = MemoryBudget(bytes: 100, trim: {})
        let seen = try await budget.withReservation(60, for: "a photo") { budget.inUseBytes }
        #expect(seen == 60)
        #expect(budget.inUseBytes == 0)
        #expect(budget.peakBytes == 60)
    }

    @Test("work past the budget waits its turn, then runs when the earlier work gives its bytes back")
    func waits() async throws {
        let budget = MemoryBudget(bytes: 100, wait: .seconds(3600), trim: {})
        let door = Door()
        let first = Task { try await budget.withReservation(80, for: "the first") { await door.wait() } }
        #expect(await eventually { budget.inUseBytes == 80 })
        let second = Task { try await budget.withReservation(50, for: "the second") { budget.inUseBytes } }
        #expect(await eventually { budget.waiting == 1 })
        #expect(budget.inUseBytes == 80)  // the second has not started
        door.open()
        try await first.value
        #expect(try await second.value == 50)  // ran alone, after the first
        #expect(budget.inUseBytes == 0)
        #expect(budget.peakBytes == 80)
    }

    @Test("work that finds no room in time is refused with 503 unavailable (limit memory_budget) and a Retry-After, and never runs")
    func refuses() async throws {
        let budget = MemoryBudget(bytes: 100, wait: .milliseconds(1), trim: {})
        let door = Door()
        let holder = Task { try await budget.withReservation(80, for: "the first") { await door.wait() } }
        #expect(await eventually { budget.inUseBytes == 80 })
        let ran = Shared(false)
        let problem = await #expect(throws: Problem.self) {
            try await budget.withReservation(50, for: "this photo") { ran.withLock { $0 = true } }
        }
        #expect(problem?.status == .serviceUnavailable)
        #expect(problem?.code == "unavailable")
        #expect(problem?.extra["limit"] == "memory_budget")
        #expect(problem?.headers[.retryAfter].flatMap { Int($0) }.map { $0 >= 1 } == true)
        #expect(problem?.detail.contains("this photo") == true)
        #expect(problem?.detail.contains("server.memory_budget") == true)
        #expect(ran.withLock { $0 } == false)
        #expect(budget.refusals == 1)
        #expect(budget.waiting == 0)
        door.open()
        try await holder.value
        #expect(budget.inUseBytes == 0)
        // The budget is whole again: the same work now runs.
        try await budget.withReservation(50, for: "this photo") {}
    }

    @Test("bytes are given back when the work throws")
    func releasesOnError() async throws {
        struct Broken: Error {}
        let budget = MemoryBudget(bytes: 100, trim: {})
        await #expect(throws: Broken.self) {
            try await budget.withReservation(70, for: "a photo") { throw Broken() }
        }
        #expect(budget.inUseBytes == 0)
    }

    @Test("a waiter cancelled leaves the queue without its bytes; running work cancelled gives its bytes back")
    func releasesOnCancellation() async throws {
        let budget = MemoryBudget(bytes: 100, wait: .seconds(3600), trim: {})
        let door = Door()
        let running = Task {
            try await budget.withReservation(80, for: "the first") {
                await door.wait()
                try Task.checkCancellation()
            }
        }
        #expect(await eventually { budget.inUseBytes == 80 })
        let waiting = Task { try await budget.withReservation(50, for: "the second") {} }
        #expect(await eventually { budget.waiting == 1 })
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(budget.waiting == 0)
        #expect(budget.inUseBytes == 80)
        running.cancel()
        door.open()
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(budget.inUseBytes == 0)
        #expect(budget.refusals == 0)  // a cancellation is not a refusal
    }

    @Test("a task cancelled before it asks is not let in")
    func cancelledBeforeAsking() async throws {
        let budget = MemoryBudget(bytes: 100, wait: .seconds(3600), trim: {})
        let door = Door()
        let holder = Task { try await budget.withReservation(100, for: "the first") { await door.wait() } }
        #expect(await eventually { budget.inUseBytes == 100 })
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await budget.withReservation(10, for: "the second") { 1 }
        }
        await #expect(throws: CancellationError.self) { try await late.value }
        #expect(budget.waiting == 0)
        door.open()
        try await holder.value
        #expect(budget.inUseBytes == 0)
    }

    @Test("work larger than the whole budget runs alone rather than never")
    func largerThanBudget() async throws {
        let budget = MemoryBudget(bytes: 100, trim: {})
        let seen = try await budget.withReservation(500, for: "a huge photo") { budget.inUseBytes }
        #expect(seen == 100)
        #expect(budget.inUseBytes == 0)
    }

    @Test("waiters are let in in arrival order: a large one at the head is not overtaken by small ones")
    func arrivalOrder() async throws {
        let budget = MemoryBudget(bytes: 100, wait: .seconds(3600), trim: {})
        let door = Door()
        let order = Shared<[String]>([])
        let holder = Task { try await budget.withReservation(60, for: "holder") { await door.wait() } }
        #expect(await eventually { budget.inUseBytes == 60 })
        // 95 + 10 > 100: once the holder leaves, the large one is let in and the small one still waits
        // for it (with 90 both fitted at once, and which body ran first was the scheduler's choice).
        let large = Task { try await budget.withReservation(95, for: "large") { order.withLock { $0.append("large") } } }
        #expect(await eventually { budget.waiting == 1 })
        let small = Task { try await budget.withReservation(10, for: "small") { order.withLock { $0.append("small") } } }
        #expect(await eventually { budget.waiting == 2 })
        #expect(budget.inUseBytes == 60)  // 10 would fit beside the holder, but waits behind the large one
        door.open()
        try await holder.value
        try await large.value
        try await small.value
        #expect(order.withLock { $0 } == ["large", "small"])
    }

    @Test("when the budget goes idle after heavy work, free memory is handed back (malloc_trim), once per burst")
    func trimsAtIdle() async throws {
        let trims = Shared(0)
        let budget = MemoryBudget(bytes: 1 << 30, trim: { trims.withLock { $0 += 1 } })
        try await budget.withReservation(1 << 10, for: "a small request") {}
        #expect(budget.trims == 0)  // not worth a trim
        for _ in 0..<4 { try await budget.withReservation(20 << 20, for: "a photo") {} }
        #expect(await eventually { trims.withLock { $0 } == 2 })  // 80 MB in all: a trim after each 32 MB or more
        #expect(budget.trims == 2)
        MemoryBudget.releaseFreeMemory()  // the real one runs (glibc) without harm
    }

    @Test("configure changes the budget and lets in waiters that now fit")
    func configure() async throws {
        let budget = MemoryBudget(bytes: 100, wait: .seconds(3600), trim: {})
        let door = Door()
        let holder = Task { try await budget.withReservation(80, for: "holder") { await door.wait() } }
        #expect(await eventually { budget.inUseBytes == 80 })
        let waiter = Task { try await budget.withReservation(50, for: "waiter") { budget.inUseBytes } }
        #expect(await eventually { budget.waiting == 1 })
        budget.configure(bytes: 200, wait: .seconds(3600))
        #expect(try await waiter.value == 130)
        door.open()
        try await holder.value
        #expect(budget.totalBytes == 200)
    }
}
