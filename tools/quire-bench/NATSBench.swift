import ArgumentParser
import Bus
import BusNATS
import Foundation
import NIOCore
import NIOPosix

/// `quire-bench bus-nats`: request/reply between two connections (a responder and a caller, as two
/// nodes), one at a time and with many in flight: first through the client alone (bytes echoed, as
/// the peers measure theirs), then through NATSBus (typed messages as JSON, deadline header).
/// `tools/bench.d/nats_bus.py` starts the server and runs the nats-py and Go clients beside it.
struct NATSBusBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bus-nats", abstract: "NATS bus: request/reply between two connections, sequential and concurrent.")

    @Option(help: "The NATS server, e.g. nats://token@127.0.0.1:4222.") var url: String
    @Option(help: "Requests to measure in each mode (after a warm-up of a tenth as many).") var count = 20_000
    @Option(help: "Requests in flight in the concurrent mode.") var inFlight = 64
    @Flag(help: "Run Swift's tasks on NIO's event loops (the global executor taken over).") var nioExecutor = false
    @Option(help: "Requests in the sequential mode (default: --count; 0 skips it, to profile the concurrent mode alone).") var sequentialCount: Int?
    @Flag(help: "Code the bus's payloads with Foundation's JSON coders alone (the coder before 2026-11-26), for an A/B in one binary.")
    var foundationJSON = false
    @Flag(help: "Skip the client's own mode (the bus alone, to profile it).") var busOnly = false
    @Option(help: "Then this many pairs of runs with many in flight, client then bus, each of --count: the ratio of each pair.")
    var pairs = 0
    @Flag(help: "Ask a request not declared quick: its handler runs off the event loop, as one that reads storage does (before 2026-11-26, every handler).")
    var pooled = false

    func run() async throws {
        if nioExecutor {
            guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
                throw ValidationError("NIO could not take over the global executor")
            }
        }
        let options = try NATSOptions(url: url)
        let responderConnection = NATSConnection(options: options), callerConnection = NATSConnection(options: options)
        try await responderConnection.connect()
        try await callerConnection.connect()

        // The client, as the peers are measured: the payload's bytes echoed, no headers.
        _ = responderConnection.subscribe(subject: "bench.client.ping", queue: "bench") { message in
            guard let replyTo = message.replyTo else { return }
            try? responderConnection.publish(subject: replyTo, payload: message.payload)
        }
        // The bus: a typed request, as JSON, with its deadline in a header, and a typed reply.
        let codec = JSONPayloadCodec(fast: !foundationJSON)
        let responder = NATSBus(connection: responderConnection, subjectPrefix: "bench", codec: codec)
        let caller = NATSBus(connection: callerConnection, subjectPrefix: "bench", codec: codec)
        // BenchPing is declared quick (its handler answers on the event loop); BenchPooledPing is not.
        try responder.handle(BenchPing.self) { ping, _ in BenchPong(sequence: ping.sequence) }
        try responder.handle(BenchPooledPing.self) { ping, _ in BenchPong(sequence: ping.sequence) }
        try await responderConnection.flush()

        let askClient: @Sendable (Int) async throws -> Void = { index in
            var payload = ByteBuffer()
            payload.writeString(String(index))
            let reply = try await callerConnection.request(subject: "bench.client.ping", payload: payload, deadline: .now + .seconds(5))
            guard reply.payload == payload else { throw ValidationError("a reply went to the wrong caller") }
        }
        let askBus: @Sendable (Int) async throws -> Void = pooled ? Self.ask(caller, BenchPooledPing.init) : Self.ask(caller, BenchPing.init)
        let client = try await busOnly ? (sequential: Summary([], elapsed: .zero), concurrent: Summary([], elapsed: .zero)) : measure(askClient)
        let bus = try await measure(askBus)
        var ratios: [Double] = [], rates: [[Int]] = []
        for _ in 0..<pairs {
            let clientRate = try await concurrent(askClient).perSecond
            let busRate = try await concurrent(askBus).perSecond
            ratios.append(busRate / clientRate)
            rates.append([Int(clientRate.rounded()), Int(busRate.rounded())])
        }
        await responderConnection.close()
        await callerConnection.close()
        var object: [String: Any] = ["sequential": bus.sequential.dictionary, "concurrent": bus.concurrent.dictionary,
                                     "client": ["sequential": client.sequential.dictionary, "concurrent": client.concurrent.dictionary],
                                     "count": count, "in_flight": inFlight]
        if !ratios.isEmpty {
            object["pair_ratios"] = ratios.map { ($0 * 100).rounded() / 100 }
            object["pair_ratio_median"] = ratios.sorted()[ratios.count / 2]
            object["pair_rates"] = rates  // [client/s, bus/s] of each pair
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// Asks `make(index)` over `bus` and checks the reply is its own.
    private static func ask<Request: BusRequest>(_ bus: NATSBus, _ make: @escaping @Sendable (Int) -> Request) -> @Sendable (Int) async throws -> Void
    where Request.Reply == BenchPong {
        { index in
            let reply = try await bus.request(make(index))
            guard reply.sequence == index else { throw ValidationError("a reply went to the wrong caller") }
        }
    }

    /// One request at a time, after a warm-up of a tenth as many; then `inFlight` callers at once.
    private func measure(_ ask: @escaping @Sendable (Int) async throws -> Void) async throws -> (sequential: Summary, concurrent: Summary) {
        let clock = ContinuousClock()
        let sequentialCount = self.sequentialCount ?? count
        var sequential = Summary([], elapsed: .zero)
        if sequentialCount > 0 {
            for index in 0..<max(1, sequentialCount / 10) { try await ask(index) }
            var latencies = [Duration](repeating: .zero, count: sequentialCount)
            let started = clock.now
            for index in 0..<sequentialCount {
                let start = clock.now
                try await ask(index)
                latencies[index] = clock.now - start
            }
            sequential = Summary(latencies, elapsed: clock.now - started)
        }
        return (sequential, try await concurrent(ask))
    }

    /// `inFlight` callers at once, `count` requests in all.
    private func concurrent(_ ask: @escaping @Sendable (Int) async throws -> Void) async throws -> Summary {
        let clock = ContinuousClock()
        let perWorker = max(1, count / inFlight)
        let concurrentStarted = clock.now
        let samples = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for worker in 0..<inFlight {
                group.addTask {
                    var mine: [Duration] = []
                    mine.reserveCapacity(perWorker)
                    for index in worker * perWorker..<(worker + 1) * perWorker {
                        let start = clock.now
                        try await ask(index)
                        mine.append(clock.now - start)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return Summary(samples, elapsed: clock.now - concurrentStarted)
    }
}
