import Bus
import BusInProcess
import BusNATS
import BusTestKit
import Foundation
import Logging
import NIOCore
import Synchronization
import Testing

/// The NATS server `tools/test` starts (`tools/nats start`), if any. Without one the NATS suites are
/// skipped, saying why; `tools/test` sets `QUIRE_REQUIRE_NATS`, so there a missing server fails.
enum TestNATS {
    static let url = ProcessInfo.processInfo.environment["QUIRE_TEST_NATS_URL"]
    static var available: Bool { url != nil || ProcessInfo.processInfo.environment["QUIRE_REQUIRE_NATS"] != nil }

    /// A connected bus with subjects of its own (cases run in parallel on one server).
    static func bus(prefix: String, localFirst: Bool = true, logger: Logger = .quiet) async throws -> NATSBus {
        guard let url else { throw BusContractFailure.noServer }
        let connection = NATSConnection(options: try NATSOptions(url: url), logger: logger)
        try await connection.connect()
        return NATSBus(connection: connection, subjectPrefix: prefix, localFirst: localFirst, logger: logger)
    }

    /// Two connections, as two nodes: one answers and subscribes, the other asks and publishes.
    static func harness() async throws -> (BusHarness, [NATSBus]) {
        let prefix = "t" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let responder = try await bus(prefix: prefix)
        let caller = try await bus(prefix: prefix)
        let harness = BusHarness(caller: caller, responder: responder) {
            try await responder.connection.flush()
            try await caller.connection.flush()
        }
        return (harness, [responder, caller])
    }
}

extension BusContractFailure {
    static let noServer = BusContractFailure(description: "QUIRE_TEST_NATS_URL is not set: start a server with eval \"$(tools/nats start)\"")
}

@Suite("Bus contract")
struct BusContractTests {
    @Test("in-process", arguments: BusContract.cases)
    func inProcess(_ contract: BusContractCase) async throws {
        let bus = InProcessBus(logger: .quiet)
        try await contract.run(BusHarness(caller: bus, responder: bus))
    }

    @Test("in-process, every message through JSON", arguments: BusContract.cases)
    func encoding(_ contract: BusContractCase) async throws {
        let bus = EncodingBus(logger: .quiet)
        try await contract.run(BusHarness(caller: bus, responder: bus))
    }

    @Test("NATS, two connections", .enabled(if: TestNATS.available, "no NATS server: run tools/test, or tools/nats start"),
          arguments: BusContract.cases)
    func nats(_ contract: BusContractCase) async throws {
        let (harness, buses) = try await TestNATS.harness()
        try await contract.run(harness)
        for bus in buses { await bus.connection.close() }
    }
}

@Suite("Encoding bus")
struct EncodingBusTests {
    struct Big: BusRequest {
        static let name: MessageName = "test.big.v1"
        typealias Reply = Empty
        var bytes: String
    }

    @Test("a message over NATS' 1 MB is refused in-process, saying to send a blob reference")
    func tooLarge() async throws {
        let bus = EncodingBus(logger: .quiet)
        try bus.handle(Big.self) { _, _ in Empty() }
        do {
            _ = try await bus.request(Big(bytes: String(repeating: "x", count: 1_100_000)))
            Issue.record("expected too_large")
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.message.contains("blob reference"))
        }
        _ = try await bus.request(Big(bytes: "small"))
    }
}

@Suite("NATS bus", .enabled(if: TestNATS.available, "no NATS server: run tools/test, or tools/nats start"))
struct NATSBusTests {
    @Test("two nodes answering one request: each request is answered by exactly one of them, and both take a share")
    func queueGroup() async throws {
        let prefix = "q" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let first = try await TestNATS.bus(prefix: prefix), second = try await TestNATS.bus(prefix: prefix)
        let caller = try await TestNATS.bus(prefix: prefix)
        let answered = Mutex<[String: Int]>([:])
        for (node, bus) in [("a", first), ("b", second)] {
            try bus.handle(ContractPing.self) { ping, _ in
                answered.withLock { $0[node, default: 0] += 1 }
                return ContractPong(value: ping.value, by: node)
            }
            try await bus.connection.flush()
        }
        var replies: [String: Int] = [:]
        for value in 0..<200 {
            let reply = try await caller.request(ContractPing(value: value))
            #expect(reply.value == value)
            replies[reply.by ?? "?", default: 0] += 1
        }
        #expect(answered.withLock { $0 } == replies, "every handler call is one reply")
        #expect(replies.values.reduce(0, +) == 200)
        #expect((replies["a"] ?? 0) > 0 && (replies["b"] ?? 0) > 0, "both nodes answered: \(replies)")
        for bus in [first, second, caller] { await bus.connection.close() }
    }

    @Test("local first: a node answers its own requests; with local_first off they cross to any node of the queue group")
    func localFirst() async throws {
        let prefix = "l" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let near = try await TestNATS.bus(prefix: prefix), crossing = try await TestNATS.bus(prefix: prefix, localFirst: false)
        let far = try await TestNATS.bus(prefix: prefix)
        for (node, bus) in [("near", near), ("crossing", crossing), ("far", far)] {
            try bus.handle(ContractPing.self) { ping, _ in ContractPong(value: ping.value, by: node) }
            try await bus.connection.flush()
        }
        var nearReplies: Set<String> = [], crossingReplies: [String: Int] = [:]
        for value in 0..<60 {
            nearReplies.insert(try await near.request(ContractPing(value: value)).by ?? "?")
            crossingReplies[try await crossing.request(ContractPing(value: value)).by ?? "?", default: 0] += 1
        }
        #expect(nearReplies == ["near"])
        #expect(crossingReplies.keys.count > 1, "requests crossed to other nodes: \(crossingReplies)")
        for bus in [near, crossing, far] { await bus.connection.close() }
    }

    @Test("the caller's request id reaches the handler on another node")
    func requestTrace() async throws {
        let prefix = "r" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let responder = try await TestNATS.bus(prefix: prefix), caller = try await TestNATS.bus(prefix: prefix)
        try responder.handle(ContractPing.self) { ping, _ in ContractPong(value: ping.value, by: RequestTrace.id) }
        try await responder.connection.flush()
        let traced = try await RequestTrace.$id.withValue("req-42") { try await caller.request(ContractPing(value: 1)) }
        let untraced = try await caller.request(ContractPing(value: 2))
        #expect(traced.by == "req-42")
        #expect(untraced.by == nil)
        for bus in [responder, caller] { await bus.connection.close() }
    }

    @Test("a URL's mistakes are explained; tls:// asks for TLS, and one URL never mixes the two")
    func urls() throws {
        let options = try NATSOptions(url: "nats://alice:s3cret@10.0.0.1:4223,nats://10.0.0.2")
        #expect(options.servers.map(\.description) == ["10.0.0.1:4223", "10.0.0.2:4222"])
        #expect(options.user == "alice" && options.password == "s3cret")
        #expect(options.tls == nil)
        #expect(try NATSOptions(url: "nats://tok@h:1").token == "tok")
        #expect(try NATSOptions(url: "tls://tok@h:1,tls://g:2").tls == NATSOptions.TLS())
        for bad in ["", "nats://host:notaport", "tls://a:4222,nats://b:4222", "nats://:4222"] {
            #expect(throws: NATSError.self) { try NATSOptions(url: bad) }
        }
    }

    @Test("TLS: with the CA that signed the server's certificate the contract holds; without it, or in the clear, a sentence says why not")
    func tls() async throws {
        let started = try tool("start", "--tls")
        var fields: [String: String] = [:]
        for part in started.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        }
        guard let url = fields["QUIRE_TEST_NATS_URL"], let ca = fields["QUIRE_NATS_CA"], let directory = fields["QUIRE_NATS_DIR"] else {
            Issue.record("tools/nats start --tls printed \(started)")
            return
        }
        defer { _ = try? tool("stop", directory) }
        func bus(trusting caFile: String?, url: String = url, prefix: String = "tls") async throws -> NATSBus {
            var options = try NATSOptions(url: url)
            if let caFile { options.tls = NATSOptions.TLS(caFile: caFile) }
            let connection = NATSConnection(options: options, logger: .quiet)
            try await connection.connect()
            return NATSBus(connection: connection, subjectPrefix: prefix, logger: .quiet)
        }
        for (index, contract) in BusContract.cases.enumerated() {
            // Two nodes over TLS, with subjects of this case's own.
            let responder = try await bus(trusting: ca, prefix: "tls\(index)"), caller = try await bus(trusting: ca, prefix: "tls\(index)")
            try await contract.run(BusHarness(caller: caller, responder: responder) {
                try await responder.connection.flush()
                try await caller.connection.flush()
            })
            for bus in [responder, caller] { await bus.connection.close() }
        }
        // The system's roots do not know the test CA.
        do {
            _ = try await bus(trusting: nil)
            Issue.record("expected the certificate to be refused")
        } catch let error as NATSError {
            #expect(error.kind == .refused && error.message.contains("TLS with NATS") && error.message.contains("tls_ca_file"), "\(error.message)")
        }
        // The same server in the clear: it requires TLS, and says to write tls://.
        do {
            _ = try await bus(trusting: nil, url: url.replacingOccurrences(of: "tls://", with: "nats://"))
            Issue.record("expected TLS to be required")
        } catch let error as NATSError {
            #expect(error.kind == .refused && error.message.contains("requires TLS") && error.message.contains("tls://"), "\(error.message)")
        }
    }

    @Test("a wrong token is refused with a sentence that says to check it")
    func wrongToken() async throws {
        guard let url = TestNATS.url, let at = url.lastIndex(of: "@") else { throw BusContractFailure.noServer }
        let connection = NATSConnection(options: try NATSOptions(url: "nats://wrong" + url[at...]), logger: .quiet)
        do {
            try await connection.connect()
            Issue.record("expected a refusal")
        } catch {
            #expect(error.kind == .refused)
            #expect(error.message.contains("credentials"))
        }
        await connection.close()
    }

    @Test("NATS stopped: requests fail at once with 'unavailable', events wait; back: both work again without a new bus")
    func outage() async throws {
        // A server of its own: stopping the shared one would fail the cases running beside this one.
        let started = try tool("start")
        var fields: [String: String] = [:]
        for part in started.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        }
        guard let url = fields["QUIRE_TEST_NATS_URL"], let directory = fields["QUIRE_NATS_DIR"] else {
            Issue.record("tools/nats start printed \(started)")
            return
        }
        defer { _ = try? tool("stop", directory) }
        func bus() async throws -> NATSBus {
            var options = try NATSOptions(url: url)
            options.maxReconnectDelay = .milliseconds(200)
            let connection = NATSConnection(options: options, logger: .quiet)
            try await connection.connect()
            return NATSBus(connection: connection, logger: .quiet)
        }
        let responder = try await bus(), caller = try await bus()
        try responder.handle(ContractPing.self) { ping, _ in ContractPong(value: ping.value) }
        let ticks = responder.subscribe(to: ContractTick.self)
        let connectivity = responder.subscribe(to: BusConnectivity.self)
        let observed = Mutex<[Bool]>([])
        let observation = responder.observe(BusConnectivity.self) { change in observed.withLock { $0.append(change.connected) } }
        try await responder.connection.flush()
        #expect(try await caller.request(ContractPing(value: 1)).value == 1)

        _ = try tool("pause", directory)
        try await waitFor { caller.connection.status == .disconnected && responder.connection.status == .disconnected }
        let asked = ContinuousClock.now
        do throws(BusError) {
            _ = try await caller.request(ContractPing(value: 2), timeout: .seconds(30))
            Issue.record("expected unavailable")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("NATS"))
        }
        #expect(ContinuousClock.now - asked < .seconds(5), "failed fast")
        // Nothing can be caught up with or settled while away: a cache stops trusting itself.
        await #expect(throws: BusError.self) { try await responder.catchUp(since: .now) }
        await #expect(throws: BusError.self) { try await caller.settle() }
        #expect(observed.withLock { $0 } == [false], "an observer hears of the loss as it happens")
        // Kept by the connection, sent after its subscriptions are made again.
        await responder.publish(ContractTick(number: 7, text: "kept while NATS was away"))

        _ = try tool("resume", directory)
        try await waitFor { caller.connection.status == .connected && responder.connection.status == .connected }
        try await responder.connection.flush()
        try await caller.connection.flush()
        #expect(try await caller.request(ContractPing(value: 3)).value == 3)
        var iterator = ticks.makeAsyncIterator()
        let tick = await iterator.next()
        #expect(tick?.number == 7)
        // The bus told this process (and only it) that it was away, then back.
        var changes = connectivity.makeAsyncIterator()
        let away = await changes.next(), back = await changes.next()
        #expect(away?.connected == false && back?.connected == true)
        #expect(observed.withLock { $0 } == [false, true])
        observation.cancel()
        for bus in [responder, caller] { await bus.connection.close() }
    }

    @Test("a node that dies holding a repeatable request loses nothing: it is asked again of another node in the rest of its time")
    func repeatableOutlivesItsNode() async throws {
        let prefix = "r" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let doomed = try await TestNATS.bus(prefix: prefix), survivor = try await TestNATS.bus(prefix: prefix)
        let caller = try await TestNATS.bus(prefix: prefix)
        let died = Mutex(false)
        // The doomed node takes a request and dies with it, as a worker under kill -9: its
        // connection closes, and no reply ever comes.
        try doomed.handle(RepeatableWork.self) { _, _ in
            died.withLock { $0 = true }
            await doomed.connection.close()
            try await Task.sleep(for: .seconds(60))
            return ContractPong(value: -1)
        }
        try survivor.handle(RepeatableWork.self) { work, _ in ContractPong(value: work.value, by: "survivor") }
        for bus in [doomed, survivor] { try await bus.connection.flush() }
        // The queue group picks at random: asked enough times, the doomed node takes one.
        var asked = 0
        while !died.withLock({ $0 }), asked < 40 {
            asked += 1
            let reply = try await caller.request(RepeatableWork(value: asked), timeout: .seconds(4))
            #expect(reply == ContractPong(value: asked, by: "survivor"))
        }
        #expect(died.withLock { $0 }, "the doomed node never took a request in \(asked)")
        // One that may not be repeated is not: its caller is told it got no reply.
        let lone = try await TestNATS.bus(prefix: prefix + "x"), loneCaller = try await TestNATS.bus(prefix: prefix + "x")
        try lone.handle(OnceOnlyWork.self) { _, _ in
            try await Task.sleep(for: .seconds(60))
            return ContractPong(value: -1)
        }
        try await lone.connection.flush()
        do {
            _ = try await loneCaller.request(OnceOnlyWork(value: 1), timeout: .seconds(1))
            Issue.record("expected no reply")
        } catch {
            #expect(error.code == .deadlineExceeded)
        }
        for bus in [survivor, caller, lone, loneCaller] { await bus.connection.close() }
    }

    /// Runs `tools/nats`; answers what it printed.
    private func tool(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/nats")
        process.arguments = arguments
        // A file, not a pipe: the server it starts inherits the descriptor, and a pipe would not end while it runs.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tools-nats-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "tools/nats \(arguments)")
        return printed
    }

    private func waitFor(_ condition: @Sendable () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(50)) }
        #expect(condition(), "waited 10 s")
    }
}

/// Work asking twice does no harm to (a thumbnail).
struct RepeatableWork: BusRequest {
    static let name: MessageName = "test.work.repeatable.v1"
    typealias Reply = ContractPong
    static var repeatable: Bool { true }
    var value: Int
}

/// Work that may not be asked twice.
struct OnceOnlyWork: BusRequest {
    static let name: MessageName = "test.work.once.v1"
    typealias Reply = ContractPong
    var value: Int
}
