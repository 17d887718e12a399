import Bus
import Synchronization

/// Two ends of a bus for one contract case: `responder` handles and subscribes, `caller` requests
/// and publishes. In one process they are the same bus; over a network they are two connections,
/// as two nodes would be.
public struct BusHarness: Sendable {
    public var caller: any MessageBus
    public var responder: any MessageBus
    /// Waits until subscriptions made so far are in effect (a network round trip; nothing in-process).
    public var settle: @Sendable () async throws -> Void

    public init(caller: any MessageBus, responder: any MessageBus, settle: @escaping @Sendable () async throws -> Void = {}) {
        self.caller = caller
        self.responder = responder
        self.settle = settle
    }
}

/// One behaviour every transport must have.
public struct BusContractCase: Sendable, CustomStringConvertible {
    public let description: String
    public let run: @Sendable (BusHarness) async throws -> Void

    init(_ description: String, _ run: @escaping @Sendable (BusHarness) async throws -> Void) {
        self.description = description
        self.run = run
    }
}

/// A contract expectation that did not hold.
public struct BusContractFailure: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// The number of the last tick an observer saw, read from other tasks.
private final class LatestTick: Sendable {
    let number = Atomic<Int>(-1)
}

private func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) throws {
    if !condition { throw BusContractFailure(description: "line \(line): \(message())") }
}

private func expectError<T>(_ code: BusError.Code, _ what: String, line: Int = #line, _ body: () async throws(BusError) -> T) async throws -> BusError {
    do {
        _ = try await body()
    } catch {
        try expect(error.code == code, "\(what): expected \(code.rawValue), got \(error.code.rawValue): \(error.message)", line: line)
        return error
    }
    throw BusContractFailure(description: "line \(line): \(what): expected \(code.rawValue), but it succeeded")
}

public struct ContractPing: BusRequest {
    public static let name: MessageName = "contract.ping.v1"
    public typealias Reply = ContractPong
    public var value: Int
    public init(value: Int) { self.value = value }
}

public struct ContractPong: Codable, Sendable, Equatable {
    public var value: Int
    public var by: String?
    public init(value: Int, by: String? = nil) {
        self.value = value
        self.by = by
    }
}

public struct ContractLookup: BusRequest {
    public static let name: MessageName = "contract.lookup.v1"
    public typealias Reply = ContractPong?
    public var value: Int?
}

public struct ContractSleepy: BusRequest {
    public static let name: MessageName = "contract.sleepy.v1"
    public typealias Reply = Empty
    public var milliseconds: Int
}

public struct ContractFailing: BusRequest {
    public static let name: MessageName = "contract.failing.v1"
    public typealias Reply = Empty
    public var useBusError: Bool
}

public struct ContractTick: BusEvent {
    public static let name: MessageName = "contract.tick.v1"
    public var number: Int
    public var text: String
    public init(number: Int, text: String) {
        self.number = number
        self.text = text
    }
}

/// What every transport of the bus does, run by BusTests on in-process, encoding and NATS buses.
public enum BusContract {
    public static let cases: [BusContractCase] = [
        BusContractCase("a request gets its handler's typed reply, with its name and the caller's deadline") { bus in
            let deadline = ContinuousClock.now + .seconds(30)
            try bus.responder.handle(ContractPing.self) { ping, context in
                // The deadline travels as the time left: within a few seconds of the caller's.
                let close = context.deadline > deadline - .seconds(5) && context.deadline < deadline + .seconds(5)
                return ContractPong(value: ping.value * 2, by: context.name == ContractPing.name && close ? "ok" : "wrong context")
            }
            try await bus.settle()
            let reply = try await bus.caller.request(ContractPing(value: 21), deadline: deadline)
            try expect(reply == ContractPong(value: 42, by: "ok"), "reply \(reply)")
        },
        BusContractCase("an optional reply crosses as nothing and as a value") { bus in
            try bus.responder.handle(ContractLookup.self) { lookup, _ in lookup.value.map { ContractPong(value: $0) } }
            try await bus.settle()
            let none = try await bus.caller.request(ContractLookup(value: nil))
            try expect(none == nil, "expected nothing, got \(String(describing: none))")
            let some = try await bus.caller.request(ContractLookup(value: 7))
            try expect(some == ContractPong(value: 7), "expected 7, got \(String(describing: some))")
        },
        BusContractCase("a handler's BusError reaches the caller unchanged; any other error is 'internal' and keeps its text to itself") { bus in
            try bus.responder.handle(ContractFailing.self) { request, _ in
                if request.useBusError { throw BusError(.conflict, "taken", details: ["id": "7"]) }
                struct Secret: Error { let password = "hunter2" }
                throw Secret()
            }
            try await bus.settle()
            let typed = try await expectError(.conflict, "a BusError") { () async throws(BusError) in
                try await bus.caller.request(ContractFailing(useBusError: true))
            }
            try expect(typed == BusError(.conflict, "taken", details: ["id": "7"]), "the error changed on the way: \(typed)")
            let other = try await expectError(.internal, "another error") { () async throws(BusError) in
                try await bus.caller.request(ContractFailing(useBusError: false))
            }
            try expect(!other.message.contains("hunter2") && other.message.contains(ContractFailing.name.rawValue), "message: \(other.message)")
        },
        BusContractCase("a request nobody handles fails at once with no_handler, naming the message") { bus in
            let started = ContinuousClock.now
            let error = try await expectError(.noHandler, "no handler") { () async throws(BusError) in
                try await bus.caller.request(ContractPing(value: 1), timeout: .seconds(30))
            }
            try expect(error.details["message"] == ContractPing.name.rawValue, "details \(error.details)")
            try expect(ContinuousClock.now - started < .seconds(10), "waited for the deadline")
        },
        BusContractCase("a handler that overruns the deadline: the caller gets deadline_exceeded at the deadline") { bus in
            try bus.responder.handle(ContractSleepy.self) { request, _ in
                try await Task.sleep(for: .milliseconds(request.milliseconds))
                return Empty()
            }
            try await bus.settle()
            let started = ContinuousClock.now
            let error = try await expectError(.deadlineExceeded, "a slow handler") { () async throws(BusError) in
                try await bus.caller.request(ContractSleepy(milliseconds: 30_000), timeout: .milliseconds(300))
            }
            try expect(error.message.contains(ContractSleepy.name.rawValue), "message: \(error.message)")
            try expect(ContinuousClock.now - started < .seconds(10), "waited for the handler")
        },
        BusContractCase("a handler still running at the caller's deadline is cancelled: nobody waits for its reply") { bus in
            let cancelled = Mutex(false)
            try bus.responder.handle(ContractSleepy.self) { request, _ in
                do {
                    try await Task.sleep(for: .milliseconds(request.milliseconds))
                } catch {
                    cancelled.withLock { $0 = true }
                    throw error
                }
                return Empty()
            }
            try await bus.settle()
            _ = try await expectError(.deadlineExceeded, "a slow handler") { () async throws(BusError) in
                try await bus.caller.request(ContractSleepy(milliseconds: 30_000), timeout: .milliseconds(200))
            }
            let waited = ContinuousClock.now
            while !cancelled.withLock({ $0 }), ContinuousClock.now - waited < .seconds(5) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try expect(cancelled.withLock { $0 }, "the handler was not cancelled")
        },
        BusContractCase("a second handler for one request on one node is refused; cancelling a registration frees the name") { bus in
            let registration = try bus.responder.handle(ContractPing.self) { ping, _ in ContractPong(value: ping.value) }
            _ = try await expectError(.duplicateHandler, "a second handler") { () async throws(BusError) in
                try bus.responder.handle(ContractPing.self) { ping, _ in ContractPong(value: -ping.value) }
            }
            try await bus.settle()
            try expect(try await bus.caller.request(ContractPing(value: 3)) == ContractPong(value: 3), "the first handler answers")
            registration.cancel()
            try await bus.settle()
            _ = try await expectError(.noHandler, "after cancel") { () async throws(BusError) in
                try await bus.caller.request(ContractPing(value: 3))
            }
            try bus.responder.handle(ContractPing.self) { _, _ in ContractPong(value: 0) }
        },
        BusContractCase("many concurrent requests each get their own reply") { bus in
            try bus.responder.handle(ContractPing.self) { ping, _ in
                if ping.value % 7 == 0 { try await Task.sleep(for: .milliseconds(1)) }
                return ContractPong(value: ping.value)
            }
            try await bus.settle()
            let wrong = try await withThrowingTaskGroup(of: Bool.self) { group in
                for value in 0..<500 {
                    group.addTask { try await bus.caller.request(ContractPing(value: value), timeout: .seconds(30)).value != value }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try expect(wrong == 0, "\(wrong) replies went to the wrong caller")
        },
        BusContractCase("a cancelled caller gets 'cancelled'") { bus in
            try bus.responder.handle(ContractSleepy.self) { request, _ in
                try await Task.sleep(for: .milliseconds(request.milliseconds))
                return Empty()
            }
            try await bus.settle()
            let task = Task { () -> BusError.Code? in
                do throws(BusError) {
                    _ = try await bus.caller.request(ContractSleepy(milliseconds: 30_000), timeout: .seconds(30))
                    return nil
                } catch {
                    return error.code
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            task.cancel()
            let code = await task.value
            try expect(code == .cancelled, "got \(String(describing: code))")
        },
        BusContractCase("a caller cancelled before it asks gets 'cancelled' at once, not the reply or its deadline") { bus in
            try bus.responder.handle(ContractSleepy.self) { request, _ in
                try await Task.sleep(for: .milliseconds(request.milliseconds))
                return Empty()
            }
            try await bus.settle()
            let started = ContinuousClock.now
            let task = Task { () -> BusError.Code? in
                withUnsafeCurrentTask { $0?.cancel() }
                do throws(BusError) {
                    _ = try await bus.caller.request(ContractSleepy(milliseconds: 3_000), timeout: .seconds(30))
                    return nil
                } catch {
                    return error.code
                }
            }
            let code = await task.value
            try expect(code == .cancelled, "got \(String(describing: code))")
            try expect(ContinuousClock.now - started < .seconds(2), "waited \(ContinuousClock.now - started) for the handler")
        },
        BusContractCase("a deadline shorter than the deadline timer's tick (5 ms): deadline_exceeded, and the handler cancelled") { bus in
            let cancelled = Mutex(false)
            try bus.responder.handle(ContractSleepy.self) { request, _ in
                do {
                    try await Task.sleep(for: .milliseconds(request.milliseconds))
                } catch {
                    cancelled.withLock { $0 = true }
                    throw error
                }
                return Empty()
            }
            try await bus.settle()
            let started = ContinuousClock.now
            _ = try await expectError(.deadlineExceeded, "a 5 ms deadline") { () async throws(BusError) in
                try await bus.caller.request(ContractSleepy(milliseconds: 30_000), timeout: .milliseconds(5))
            }
            try expect(ContinuousClock.now - started < .seconds(2), "waited \(ContinuousClock.now - started)")
            let waited = ContinuousClock.now
            while !cancelled.withLock({ $0 }), ContinuousClock.now - waited < .seconds(5) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try expect(cancelled.withLock { $0 }, "the handler was not cancelled")
        },
        BusContractCase("every subscriber gets every event, whole and in publish order") { bus in
            let first = bus.responder.subscribe(to: ContractTick.self)
            let second = bus.responder.subscribe(to: ContractTick.self)
            try await bus.settle()
            for number in 0..<300 { await bus.caller.publish(ContractTick(number: number, text: "tick \(number) — é✓")) }
            for subscription in [first, second] {
                var received: [Int] = []
                for await tick in subscription {
                    try expect(tick.text == "tick \(tick.number) — é✓", "text \(tick.text)")
                    received.append(tick.number)
                    if received.count == 300 { break }
                }
                try expect(received == Array(0..<300), "received \(received.prefix(10))… (\(received.count))")
            }
        },
        BusContractCase("an observer sees every event in publish order, and none once its registration is cancelled") { bus in
            let seen = Mutex<[Int]>([])
            let registration = bus.responder.observe(ContractTick.self) { tick in seen.withLock { $0.append(tick.number) } }
            try await bus.settle()
            for number in 0..<200 { await bus.caller.publish(ContractTick(number: number, text: "tick")) }
            try await bus.caller.settle()
            try await bus.responder.catchUp(since: .now)
            try expect(seen.withLock { $0 } == Array(0..<200), "observed \(seen.withLock { $0 }.prefix(10))… (\(seen.withLock { $0.count }))")
            registration.cancel()
            try await bus.settle()
            await bus.caller.publish(ContractTick(number: 200, text: "tick"))
            try await bus.caller.settle()
            try await bus.responder.catchUp(since: .now)
            try expect(seen.withLock { $0.count } == 200, "an event reached a cancelled observer")
        },
        BusContractCase("an event settled by one end has been observed by the other once it catches up: no waiting, no sleeping") { bus in
            let latest = LatestTick()
            let registration = bus.responder.observe(ContractTick.self) { tick in latest.number.store(tick.number, ordering: .sequentiallyConsistent) }
            defer { registration.cancel() }
            try await bus.settle()
            // What a cluster does: node A writes and settles its event before answering; the client's
            // next request reaches node B, which catches up with that request's arrival before
            // trusting its cache. Each round must see its own event, at once.
            for round in 0..<200 {
                await bus.caller.publish(ContractTick(number: round, text: "write"))
                try await bus.caller.settle()
                let arrival = ContinuousClock.now
                try await bus.responder.catchUp(since: arrival)
                let seen = latest.number.load(ordering: .sequentiallyConsistent)
                try expect(seen == round, "round \(round): the other end had seen \(seen)")
            }
            // Many requests arriving together share the round trip and all see the write.
            await bus.caller.publish(ContractTick(number: 1000, text: "write"))
            try await bus.caller.settle()
            let arrival = ContinuousClock.now
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        try await bus.responder.catchUp(since: arrival)
                        return latest.number.load(ordering: .sequentiallyConsistent)
                    }
                }
                for try await seen in group { try expect(seen == 1000, "a concurrent catch-up saw \(seen)") }
            }
        },
    ]
}
