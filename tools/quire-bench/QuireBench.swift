import ArgumentParser
import Bus
import BusInProcess
import Foundation

/// Benchmarks that have no peer process: `quire-bench bus`. The HTTP and NATS comparisons are driven by
/// `tools/bench`, which starts the peers and calls this binary for Quire's side.
@main
struct QuireBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-bench",
        abstract: "Measure Quire's building blocks.",
        subcommands: [BusBench.self, NATSBusBench.self, BusCodecBench.self, MediaBench.self, DrawingBench.self, VocabBench.self, AlbumSeed.self, GeoBench.self])
}

struct BenchPing: BusRequest {
    static let name: MessageName = "bench.ping.v1"
    static let quick = true
    typealias Reply = BenchPong
    var sequence: Int
}

/// BenchPing's twin, not declared quick: over NATS its handler runs off the event loop.
struct BenchPooledPing: BusRequest {
    static let name: MessageName = "bench.ping.pooled.v1"
    typealias Reply = BenchPong
    var sequence: Int
}

struct BenchPong: Codable, Sendable {
    var sequence: Int
}

struct BenchEvent: BusEvent {
    static let name: MessageName = "bench.event.v1"
    var sentAt: ContinuousClock.Instant.Duration
    var sequence: Int
}

struct BusBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bus", abstract: "In-process bus: request/reply round trip and publish→deliver latency.")

    @Option(help: "Requests / events to measure (after a warm-up of a tenth as many).")
    var count = 200_000

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let bus = InProcessBus()
        try bus.handle(BenchPing.self) { ping, _ in BenchPong(sequence: ping.sequence) }
        let clock = ContinuousClock()

        // Request/reply, sequential: one caller, each request waits for its reply.
        let request = try await sequentialPings(bus, count: count)

        // Publish → deliver, one event at a time: the subscriber waits in its own task, the time is
        // from publish to the subscriber holding the event; the publisher waits for an ack before the
        // next event, so no queueing is measured.
        let origin = clock.now
        let subscription = bus.subscribe(to: BenchEvent.self)
        let (acks, ackContinuation) = AsyncStream.makeStream(of: Duration.self)
        let receiver = Task {
            for await event in subscription {
                ackContinuation.yield((clock.now - origin) - event.sentAt)
            }
            ackContinuation.finish()
        }
        var ackIterator = acks.makeAsyncIterator()
        let latencyCount = count / 4
        var deliveries: [Duration] = []
        deliveries.reserveCapacity(latencyCount)
        let publishStarted = clock.now
        for index in 0..<latencyCount {
            await bus.publish(BenchEvent(sentAt: clock.now - origin, sequence: index))
            if let latency = await ackIterator.next() { deliveries.append(latency) }
        }
        let sequentialElapsed = clock.now - publishStarted
        receiver.cancel()
        var publish = Summary(deliveries, elapsed: sequentialElapsed)

        // Throughput: a burst into a subscriber that keeps up.
        let burst = bus.subscribe(to: BenchEvent.self, buffering: OverflowPolicy(capacity: count + 1, drop: .newest))
        let total = count
        let drain = Task {
            var seen = 0
            for await _ in burst {
                seen += 1
                if seen == total { break }
            }
        }
        let burstStarted = clock.now
        for index in 0..<count { await bus.publish(BenchEvent(sentAt: .zero, sequence: index)) }
        await drain.value
        let burstElapsed = clock.now - burstStarted
        publish.perSecond = Double(count) / (Double(burstElapsed.components.seconds) + Double(burstElapsed.components.attoseconds) / 1e18)

        if json {
            let object: [String: Any] = [
                "request_reply": request.dictionary, "publish_deliver": publish.dictionary, "count": count,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("in-process bus, \(count) messages, one caller")
            print("  request/reply:   \(request.line)")
            print("  publish→deliver: \(publish.line)")
        }
    }
}

/// `count` pings, one at a time, after a warm-up of a tenth as many: each request waits for its reply.
func sequentialPings(_ bus: any MessageBus, count: Int) async throws -> Summary {
    let clock = ContinuousClock()
    for index in 0..<(count / 10) { _ = try await bus.request(BenchPing(sequence: index)) }
    var latencies = [Duration](repeating: .zero, count: count)
    let started = clock.now
    for index in 0..<count {
        let start = clock.now
        _ = try await bus.request(BenchPing(sequence: index))
        latencies[index] = clock.now - start
    }
    return Summary(latencies, elapsed: clock.now - started)
}

/// Throughput and latency percentiles of one run.
struct Summary {
    var perSecond: Double
    var p50: Double  // microseconds
    var p99: Double

    init(_ samples: [Duration], elapsed: Duration) {
        let sorted = samples.map { Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6 }.sorted()
        perSecond = samples.isEmpty ? 0 : Double(samples.count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
    }

    var line: String {
        String(format: "%10.0f /s   p50 %7.2f µs   p99 %7.2f µs", perSecond, p50, p99)
    }

    var dictionary: [String: Double] { ["per_second": perSecond.rounded(), "p50_us": p50, "p99_us": p99] }
}
