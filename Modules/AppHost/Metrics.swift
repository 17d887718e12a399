public import Bus
import Foundation
import Metrics
import Prometheus
import Synchronization

/// What `/metrics` shows, in Prometheus' text format: swift-metrics is the API (Hummingbird's
/// request metrics and ours), bootstrapped once per process onto one Prometheus registry.
///
/// - `hb_requests{http_route,http_request_method,http_response_status_code}` and
///   `http_server_request_duration_*` (a histogram): every request, by route, method and status;
///   `http_server_active_requests` the requests being served.
/// - `quire_bus_requests{message,outcome}` and `quire_bus_request_duration_*{message}`: bus requests
///   by name (storage's `storage.record.*` are the storage latencies), `outcome` `ok` or the error code;
///   `quire_bus_events{event}` events published; `quire_bus_event_drops{event}` events subscribers lost.
public final class MetricsExport: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let subscriptions = Mutex<[(event: String, drops: DropCounter)]>([])

    private init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    private static let shared = Mutex<MetricsExport?>(nil)

    /// The process's export; the first call bootstraps swift-metrics onto its registry (a process
    /// can bootstrap only once: every host of a test process shares it).
    public static func process() -> MetricsExport {
        shared.withLock { existing in
            if let existing { return existing }
            let export = MetricsExport(registry: PrometheusCollectorRegistry())
            var factory = PrometheusMetricsFactory(registry: export.registry)
            // Finer at the bottom than the default (5 ms first): most requests take less than that.
            factory.defaultDurationHistogramBuckets = [
                .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
                .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
                .milliseconds(2500), .seconds(5), .seconds(10),
            ]
            MetricsSystem.bootstrap(factory)
            existing = export
            return export
        }
    }

    func watch(_ drops: DropCounter, event: MessageName) {
        subscriptions.withLock { $0.append((event.rawValue, drops)) }
    }

    /// The text a scrape gets: gauges read at this moment, then everything.
    public func render() -> [UInt8] {
        let drops = subscriptions.withLock { list in
            list.reduce(into: [String: Int]()) { $0[$1.event, default: 0] += $1.drops.value }
        }
        for (event, count) in drops {
            Metrics.Gauge(label: "quire_bus_event_drops", dimensions: [("event", event)]).record(count)
        }
        return registry.emitToBuffer()
    }
}

/// A bus that counts and times what goes through it, then passes everything on unchanged.
public final class MeteredBus: ForwardingBus {
    public let inner: any MessageBus
    public var forwardee: any MessageBus { inner }
    let export: MetricsExport
    private let requestMetrics = Mutex<[String: (ok: Metrics.Counter, timer: Metrics.Timer)]>([:])
    /// Failed requests' counters, by message and error code.
    private let failureCounters = Mutex<[String: Metrics.Counter]>([:])
    private let eventCounters = Mutex<[String: Metrics.Counter]>([:])

    public init(_ inner: any MessageBus, export: MetricsExport) {
        self.inner = inner
        self.export = export
    }

    public func publish<Event: BusEvent>(_ event: Event) async {
        let name = Event.name.rawValue
        Self.counter(in: eventCounters, key: name, label: "quire_bus_events", dimensions: [("event", name)]).increment()
        await inner.publish(event)
    }

    public func subscribe<Event: BusEvent>(to type: Event.Type, buffering policy: OverflowPolicy) -> EventSubscription<Event> {
        let subscription = inner.subscribe(to: type, buffering: policy)
        export.watch(subscription.dropCounter, event: Event.name)
        return subscription
    }

    public func request<Request: BusRequest>(_ request: Request, deadline: ContinuousClock.Instant) async throws(BusError) -> Request.Reply {
        let name = Request.name.rawValue
        let metrics = requestMetrics.withLock { all in
            if let found = all[name] { return found }
            let made = (ok: Metrics.Counter(label: "quire_bus_requests", dimensions: [("message", name), ("outcome", "ok")]),
                        timer: Metrics.Timer(label: "quire_bus_request_duration", dimensions: [("message", name)]))
            all[name] = made
            return made
        }
        let started = ContinuousClock.now
        do {
            let reply = try await inner.request(request, deadline: deadline)
            metrics.timer.recordInterval(since: started)
            metrics.ok.increment()
            return reply
        } catch {
            metrics.timer.recordInterval(since: started)
            let outcome = error.code.rawValue
            Self.counter(in: failureCounters, key: name + " " + outcome, label: "quire_bus_requests",
                         dimensions: [("message", name), ("outcome", outcome)]).increment()
            throw error
        }
    }
}

extension MeteredBus {
    /// The counter kept under `key`, made the first time (making one registers it: not per call).
    static func counter(in cache: borrowing Mutex<[String: Metrics.Counter]>, key: String, label: String,
                        dimensions: [(String, String)]) -> Metrics.Counter {
        cache.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Metrics.Counter(label: label, dimensions: dimensions)
            counters[key] = counter
            return counter
        }
    }
}

extension Metrics.Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
