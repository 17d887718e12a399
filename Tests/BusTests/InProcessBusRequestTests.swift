import Bus
import BusInProcess
import Foundation
import Synchronization
import Logging
import Testing

extension Logger {
    /// For tests that provoke errors on purpose.
    static let quiet: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()
}

@Suite("In-process bus: requests")
struct InProcessBusRequestTests {
    @Test("a request gets its handler's typed reply")
    func reply() async throws {
        let bus = InProcessBus()
        try bus.handle(Ping.self) { ping, context in
            #expect(context.name == Ping.name)
            return Pong(value: ping.value * 2)
        }
        #expect(try await bus.request(Ping(value: 21)) == Pong(value: 42))
    }

    @Test("a handler's BusError reaches the caller unchanged")
    func typedError() async throws {
        let bus = InProcessBus(logger: .quiet)
        try bus.handle(Failing.self) { request, _ in
            if request.useBusError { throw BusError(.conflict, "taken", details: ["id": "7"]) }
            struct Secret: Error { let password = "hunter2" }
            throw Secret()
        }
        do {
            _ = try await bus.request(Failing(useBusError: true))
            Issue.record("expected an error")
        } catch {
            #expect(error == BusError(.conflict, "taken", details: ["id": "7"]))
        }
        do {
            _ = try await bus.request(Failing(useBusError: false))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .internal)
            #expect(!error.message.contains("hunter2"), "other errors are not leaked")
            #expect(error.message.contains("test.failing.v1"))
        }
    }

    @Test("a request nobody handles fails at once, naming the message")
    func noHandler() async throws {
        let bus = InProcessBus()
        let started = ContinuousClock.now
        do {
            _ = try await bus.request(Ping(value: 1), timeout: .seconds(30))
            Issue.record("expected no_handler")
        } catch {
            #expect(error.code == .noHandler)
            #expect(error.message.contains("test.ping.v1"))
            #expect(error.details["message"] == "test.ping.v1")
        }
        // Well under the 30 s deadline: other suites run alongside and, on a fresh machine, hold the
        // two cooperative threads for seconds at start (libvips, cairo's font cache).
        #expect(ContinuousClock.now - started < .seconds(20), "did not wait for the deadline")
    }

    @Test("a second handler for the same request is refused at registration")
    func duplicate() throws {
        let bus = InProcessBus()
        try bus.handle(Ping.self) { ping, _ in Pong(value: ping.value) }
        #expect(throws: BusError.self) {
            try bus.handle(Ping.self) { ping, _ in Pong(value: -ping.value) }
        }
        do {
            try bus.handle(Ping.self) { ping, _ in Pong(value: -ping.value) }
        } catch {
            #expect(error.code == .duplicateHandler)
        }
    }

    @Test("a handler that overruns the deadline: the caller gets deadline_exceeded and the handler is cancelled")
    func deadline() async throws {
        let bus = InProcessBus()
        let handlerCancelled = Atomic<Bool>(false)
        try bus.handle(Sleepy.self) { request, _ in
            do {
                try await Task.sleep(for: .seconds(request.seconds))
            } catch {
                handlerCancelled.store(true, ordering: .sequentiallyConsistent)
                throw error
            }
            return Empty()
        }
        let started = ContinuousClock.now
        do {
            _ = try await bus.request(Sleepy(seconds: 30), timeout: .milliseconds(50))
            Issue.record("expected deadline_exceeded")
        } catch {
            #expect(error.code == .deadlineExceeded)
            #expect(error.message.contains("test.sleepy.v1"))
        }
        // Well under the handler's 30 s (see noHandler on why not tighter).
        #expect(ContinuousClock.now - started < .seconds(20))
        // The caller is answered first; the handler sees its cancellation right after.
        var cancelled = false
        for _ in 0..<200 where !cancelled {
            cancelled = handlerCancelled.load(ordering: .sequentiallyConsistent)
            if !cancelled { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(cancelled)
    }

    @Test("a handler that ignores cancellation still cannot hold its caller past the deadline")
    func stubbornHandler() async throws {
        let bus = InProcessBus()
        // The handler ignores cancellation and waits for a gate that opens only after the caller has
        // its answer — so the caller can be answered only if the bus does not wait for the handler.
        // A safety opener after 5 s turns a regression into a failure instead of a hang.
        let gateOpen = Atomic<Bool>(false)
        let openedBySafety = Atomic<Bool>(false)
        try bus.handle(Sleepy.self) { _, _ in
            while !gateOpen.load(ordering: .sequentiallyConsistent) { try? await Task.sleep(for: .milliseconds(5)) }
            return Empty()
        }
        let safety = Task.detached {
            try? await Task.sleep(for: .seconds(5))
            if !gateOpen.load(ordering: .sequentiallyConsistent) {
                openedBySafety.store(true, ordering: .sequentiallyConsistent)
                gateOpen.store(true, ordering: .sequentiallyConsistent)
            }
        }
        do {
            _ = try await bus.request(Sleepy(seconds: 0), timeout: .milliseconds(50))
            Issue.record("expected deadline_exceeded")
        } catch {
            #expect(error.code == .deadlineExceeded)
        }
        let needed = openedBySafety.load(ordering: .sequentiallyConsistent)
        #expect(!needed, "the caller was answered only after the handler was let go")
        gateOpen.store(true, ordering: .sequentiallyConsistent)
        safety.cancel()
    }

    @Test("many concurrent requests with deadlines all get their own reply")
    func concurrent() async throws {
        let bus = InProcessBus()
        try bus.handle(Ping.self) { ping, _ in
            if ping.value % 7 == 0 { try await Task.sleep(for: .milliseconds(1)) }
            return Pong(value: ping.value)
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for value in 0..<2000 {
                group.addTask { try await bus.request(Ping(value: value), timeout: .seconds(30)).value == value }
            }
            for try await correct in group { #expect(correct) }
        }
    }

    @Test("a cancelled caller gets 'cancelled'")
    func callerCancelled() async throws {
        let bus = InProcessBus()
        try bus.handle(Sleepy.self) { request, _ in
            try await Task.sleep(for: .seconds(request.seconds))
            return Empty()
        }
        let task = Task { () -> BusError.Code? in
            do {
                _ = try await bus.request(Sleepy(seconds: 30))
                return nil
            } catch let error as BusError {
                return error.code
            } catch {
                return nil
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        #expect(await task.value == .cancelled)
    }

    @Test("cancelling a registration removes the handler")
    func unregister() async throws {
        let bus = InProcessBus()
        let registration = try bus.handle(Ping.self) { ping, _ in Pong(value: ping.value) }
        #expect(try await bus.request(Ping(value: 1)) == Pong(value: 1))
        registration.cancel()
        await #expect(throws: BusError.self) { try await bus.request(Ping(value: 1)) }
        try bus.handle(Ping.self) { _, _ in Pong(value: 0) }  // the name is free again
    }

    @Test("errors survive a network hop: BusError round-trips through JSON")
    func errorCodable() throws {
        let error = BusError(.rateLimited, "slow down", details: ["retryAfter": "30"])
        let decoded = try JSONDecoder().decode(BusError.self, from: JSONEncoder().encode(error))
        #expect(decoded == error)
    }

    @Test("message names: segments and a version", arguments: [
        ("media.thumbnail.v1", true), ("a.v2", true), ("notes.note.created.v10", true),
        ("media.thumbnail", false), ("v1", false), ("Media.x.v1", false), ("a..v1", false), ("a.v", false), ("a.vx", false),
    ])
    func names(_ name: String, _ valid: Bool) {
        #expect(MessageName.isValid(name) == valid)
    }
}
