import ArgumentParser
import Bus
import BusNATS
import Foundation
import NIOCore
import NIOPosix

/// `quire-bench bus-nats`: request/reply through NATSBus between two connections (a responder and
/// a caller, as two nodes), one at a time and with many in flight. `tools/bench.d/nats_bus.py`
/// starts the server and runs the nats-py client beside it.
struct NATSBusBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bus-nats", abstract: "NATS bus: request/reply between two connections, sequential and concurrent.")

    @Option(help: "The NATS server, e.g. nats://token@127.0.0.1:4222.") var url: String
    @Option(help: "Requests to measure in each mode (after a warm-up of a tenth as many).") var count = 20_000
    @Option(help: "Requests in flight in the concurrent mode.") var inFlight = 64
    @Flag(help: "Run Swift's tasks on NIO's event loops (the global executor taken over).") var nioExecutor = false
    @Option(help: "Requests in the sequential mode (default: --count; 0 skips it, to profile the concurrent mode alone).") var sequentialCount: Int?

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
        let responder = NATSBus(connection: responderConnection, subjectPrefix: "bench")
        let caller = NATSBus(connection: callerConnection, subjectPrefix: "bench")
        try responder.handle(BenchPing.self) { ping, _ in BenchPong(sequence: ping.sequence) }
        try await responderConnection.flush()
        let clock = ContinuousClock()

        let sequential = try await sequentialPings(caller, count: sequentialCount ?? count)

        let perWorker = max(1, count / inFlight)
        let concurrentStarted = clock.now
        let samples = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for worker in 0..<inFlight {
                group.addTask {
                    var mine: [Duration] = []
                    mine.reserveCapacity(perWorker)
                    for index in 0..<perWorker {
                        let start = clock.now
                        let reply = try await caller.request(BenchPing(sequence: worker * perWorker + index))
                        guard reply.sequence == worker * perWorker + index else { throw ValidationError("a reply went to the wrong caller") }
                        mine.append(clock.now - start)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let concurrent = Summary(samples, elapsed: clock.now - concurrentStarted)
        await responderConnection.close()
        await callerConnection.close()
        let object: [String: Any] = ["sequential": sequential.dictionary, "concurrent": concurrent.dictionary,
                                     "count": count, "in_flight": inFlight]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}
