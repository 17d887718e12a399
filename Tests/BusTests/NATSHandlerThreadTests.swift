import Bus
@testable import BusNATS
import BusTestKit
import Foundation
import NIOCore
import Synchronization
import Testing

/// Where a NATS responder runs its handlers (issue 42): the requests of one read start together on
/// one cooperative thread (``RequestBatches``); a handler declared quick runs on the event loop
/// that read it. Neither may let one slow handler stall the others. Serialized: each blocks a
/// thread of the two-core machine's cooperative pool, and the rescue needs the other.
@Suite("NATS bus: the threads handlers run on", .serialized)
struct NATSHandlerThreadTests {
    struct QuickSleepy: BusRequest {
        static let name: MessageName = "test.quick-sleepy.v1"
        static let quick = true
        typealias Reply = Empty
        var milliseconds: Int
    }

    /// Declared quick, but blocks its thread (what a handler reading storage would do).
    struct QuickBlocking: BusRequest {
        static let name: MessageName = "test.quick-blocking.v1"
        static let quick = true
        typealias Reply = Empty
        var milliseconds: Int
    }

    struct QuickPing: BusRequest {
        static let name: MessageName = "test.quick-ping.v1"
        static let quick = true
        typealias Reply = ContractPong
        var value: Int
    }

    /// Holds the calling thread (as a synchronous database read would).
    static func block(milliseconds: Int) {
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    }

    @Test("a batch whose handler blocks its thread: the requests after it start while it still blocks, on another task")
    func blockedBatchIsRescued() async throws {
        let started = Mutex<Set<UInt64>>([])
        let seenAllWhileBlocking = Mutex(false)
        let batches = RequestBatches { _ in }
        let start: @Sendable (NATSMessage, RequestBatches.Batch?) -> Void = { message, _ in
            started.withLock { _ = $0.insert(message.sid) }
            guard message.sid == 0 else { return }
            // Holds its thread (as a synchronous read would) until the others have started, for 5 s at most.
            let blocked = ContinuousClock.now
            while ContinuousClock.now - blocked < .seconds(5) {
                if started.withLock({ $0.count }) == 6 {
                    seenAllWhileBlocking.withLock { $0 = true }
                    return
                }
                Self.block(milliseconds: 5)
            }
        }
        for index in 0..<6 {
            batches.add(NATSMessage(subject: "s", sid: UInt64(index), replyTo: nil, status: nil, headers: [], payload: ByteBuffer()), start)
        }
        batches.startGathered()
        let waited = ContinuousClock.now
        while started.withLock({ $0.count }) < 6 || !seenAllWhileBlocking.withLock({ $0 }), ContinuousClock.now - waited < .seconds(8) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(started.withLock { $0.count } == 6)
        #expect(seenAllWhileBlocking.withLock { $0 }, "the requests behind the blocking one waited for it to finish")
        #expect(batches.rescues.load(ordering: .relaxed) >= 1)
    }

    @Test("a quick handler that waits answers, and is cancelled at its caller's deadline",
          .enabled(if: TestNATS.available, "no NATS server: run tools/test, or tools/nats start"))
    func quickHandlerThatWaits() async throws {
        let (harness, buses) = try await TestNATS.harness()
        defer { Task { for bus in buses { await bus.connection.close() } } }
        let cancelled = Mutex(false)
        try harness.responder.handle(QuickSleepy.self) { request, _ in
            do {
                try await Task.sleep(for: .milliseconds(request.milliseconds))
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
            return Empty()
        }
        try await harness.settle()
        _ = try await harness.caller.request(QuickSleepy(milliseconds: 20), timeout: .seconds(10))
        do {
            _ = try await harness.caller.request(QuickSleepy(milliseconds: 30_000), timeout: .milliseconds(200))
            Issue.record("expected deadline_exceeded")
        } catch {
            #expect(error.code == .deadlineExceeded)
        }
        let waited = ContinuousClock.now
        while !cancelled.withLock({ $0 }), ContinuousClock.now - waited < .seconds(5) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(cancelled.withLock { $0 }, "the quick handler was not cancelled")
    }

    @Test("a handler declared quick that blocks is moved off the event loop: then a long block stalls nobody",
          .enabled(if: TestNATS.available, "no NATS server: run tools/test, or tools/nats start"))
    func quickHandlerThatBlocks() async throws {
        let (harness, buses) = try await TestNATS.harness()
        defer { Task { for bus in buses { await bus.connection.close() } } }
        try harness.responder.handle(QuickBlocking.self) { request, _ in
            Self.block(milliseconds: request.milliseconds)
            return Empty()
        }
        try harness.responder.handle(QuickPing.self) { ping, _ in ContractPong(value: ping.value) }
        try await harness.settle()
        // Three overruns in a row on the event loop (each stalls it 30 ms): it runs elsewhere from then on.
        for _ in 0..<InPlace.strikes {
            _ = try await harness.caller.request(QuickBlocking(milliseconds: 30), timeout: .seconds(10))
        }
        let caller = harness.caller
        let blocking = Task { try await caller.request(QuickBlocking(milliseconds: 1_500), timeout: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let asked = ContinuousClock.now
        #expect(try await caller.request(QuickPing(value: 7), timeout: .seconds(10)) == ContractPong(value: 7))
        let took = ContinuousClock.now - asked
        #expect(took < .milliseconds(900), "a quick ping waited \(took) behind a blocking handler")
        _ = try await blocking.value
    }
}
