public import AppConfig
public import Bus
import Foundation
import QuotasAPI
public import HTTPKit
import HTTPTypes
import Hummingbird
public import PluginKit
public import ServiceLifecycle
import StorageAPI
import Synchronization

/// The `quotas` plugin: an app's limits as configuration (AR Notebook's database constraints,
/// DBC1–4), each refused with its own status and a message naming the limit:
/// the largest image (413), simultaneous connections (503), operations per user per day (429 with
/// `Retry-After`), stored bytes per user (507, counted at each write so it is never overshot).
///
/// The operator may set one user's stored-bytes limit apart (``SetStoredBytesLimit``, the admin
/// screen): kept in `quotas.limits`.
///
/// ```yaml
/// quotas: { max_image_bytes: 10485760, max_connections: 100, ops_per_user_per_day: 90000, max_stored_bytes_per_user: 5368709120 }
/// ```
public struct QuotasPlugin: Plugin {
    public struct Config: Sendable {
        var maxImageBytes: Int
        var maxConnections: Int
        var opsPerDay: Int
        var maxStoredBytes: Int
        var usageCacheSeconds: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "quotas",
        summary: "Per-app limits: largest image, simultaneous connections, operations per user per day, stored bytes per user",
        dependencies: ["storage", "auth"],
        settings: [
            SettingDescription("max_image_bytes", "int 1...1073741824", default: "10485760", "Largest image upload (413 beyond)"),
            SettingDescription("max_connections", "int 1...100000", default: "100", "Requests served at once (503 beyond)"),
            SettingDescription("ops_per_user_per_day", "int 1...100000000", default: "90000", "Requests per user per UTC day (429 beyond, with Retry-After)"),
            SettingDescription("max_stored_bytes_per_user", "int 1...1099511627776", default: "5368709120", "What one user may store (507 on writes beyond)"),
            SettingDescription("usage_cache_seconds", "int 0...3600", default: "30", "How long a user's measured storage is reused before measuring again"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        Config(maxImageBytes: section.int("max_image_bytes", default: 10 << 20, in: 1...(1 << 30)),
               maxConnections: section.int("max_connections", default: 100, in: 1...100_000),
               opsPerDay: section.int("ops_per_user_per_day", default: 90_000, in: 1...100_000_000),
               maxStoredBytes: section.int("max_stored_bytes_per_user", default: 5 << 30, in: 1...(1 << 40)),
               usageCacheSeconds: section.int("usage_cache_seconds", default: 30, in: 0...3600))
    }

    let quotaGate: QuotaGate
    let peers: QuotaPeers

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        try await store.declare(QuotaGate.limitsSchema)
        quotaGate = QuotaGate(config: config, bus: context.bus, store: store, clock: context.clock)
        peers = QuotaPeers(gate: quotaGate, bus: context.bus, used: context.bus.subscribe(to: QuotaUsed.self))
    }

    public var gate: (any RequestGate)? { quotaGate }
    public var services: [any Service] { [peers] }
    public var features: [String] { ["quotas"] }

    public func register(on bus: any MessageBus) async throws {
        let gate = quotaGate
        try bus.handle(GetQuotaUsage.self) { request, _ in
            let usage = try await gate.usageReport(request.owner)
            return .init(storedBytes: usage.storedBytes, maxStoredBytes: usage.maxStoredBytes, operationsToday: usage.operationsToday,
                         maxOperationsPerDay: usage.maxOperationsPerDay, maxImageBytes: usage.maxImageBytes)
        }
        try bus.handle(SetStoredBytesLimit.self) { request, _ in
            let usage = try await gate.setLimit(request.owner, request.maxStoredBytes)
            return .init(storedBytes: usage.storedBytes, maxStoredBytes: usage.maxStoredBytes, operationsToday: usage.operationsToday,
                         maxOperationsPerDay: usage.maxOperationsPerDay, maxImageBytes: usage.maxImageBytes)
        }
        try bus.handle(GetStoredBytesLimits.self) { request, _ in
            var limits: [String: Int] = [:]
            for owner in request.owners.prefix(500) { limits[owner] = await gate.limit(for: owner) }
            return .init(maxStoredBytes: limits)
        }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let gate = quotaGate
        try routes.add(.get, "usage", summary: "What I store and how many operations I used today, against this app's limits") { _, _, identity in
            try .json(try await gate.usageReport(identity.accountID))
        }
    }
}

/// `GET /quotas/usage`: the caller's use against the app's limits.
struct QuotaUsage: Codable, Sendable {
    var storedBytes: Int
    var maxStoredBytes: Int
    var operationsToday: Int
    var maxOperationsPerDay: Int
    var maxImageBytes: Int
}

final class QuotaGate: RequestGate {
    let config: QuotasPlugin.Config
    let bus: any MessageBus
    /// Where the limits the operator set for one user are kept (`quotas.limits`, one record per
    /// user, id the account's, owned by the plugin).
    let store: any RecordStore
    static let limitsCollection = "quotas.limits"
    static let limitsOwner = "quotas"
    static let limitsSchema = CollectionSchema(name: limitsCollection)
    /// The largest stored-bytes limit an operator may set (as the setting's).
    static let maxLimit = 1 << 40
    struct Limit: Codable { var maxStoredBytes: Int }
    /// Each user's own limit as last read (nil: the app's), reused for `usage_cache_seconds`: a
    /// limit set on another node of a cluster holds here within that.
    private let limits = Mutex<[String: (value: Int?, at: Date)]>([:])
    /// The plugin's clock: a day's operations and a measurement's age are counted in its time.
    let clock: PluginClock
    private let inFlight = Atomic<Int>(0)
    private let operations = Mutex<(day: Int, counts: [String: Int])>((0, [:]))
    private let usage = Mutex<[String: (bytes: Int, at: Date)]>([:])
    /// What this node counted since it last told the others (``QuotaPeers``).
    private let unsent = Mutex<(day: Int, operations: [String: Int], bytes: [String: Int])>((0, [:], [:]))

    init(config: QuotasPlugin.Config, bus: any MessageBus, store: any RecordStore, clock: PluginClock) {
        self.config = config
        self.clock = clock
        self.bus = bus
        self.store = store
    }

    /// `owner`'s stored-bytes limit: the one the operator set, else the app's.
    func limit(for owner: String) async -> Int {
        let now = clock.now()
        if let cached = limits.withLock({ $0[owner] }), now.timeIntervalSince(cached.at) < Double(max(config.usageCacheSeconds, 1)) {
            return cached.value ?? config.maxStoredBytes
        }
        let own = try? await store.get(collection: Self.limitsCollection, id: owner, owner: Self.limitsOwner)?.decode(Limit.self)
        limits.withLock { $0[owner] = (own?.maxStoredBytes, now) }
        return own?.maxStoredBytes ?? config.maxStoredBytes
    }

    /// Sets `owner`'s own stored-bytes limit (nil: back to the app's); answers their use against it.
    func setLimit(_ owner: String, _ value: Int?) async throws -> QuotaUsage {
        if let value, !(1...Self.maxLimit).contains(value) {
            throw BusError.invalid("'maxStoredBytes' is a number of bytes from 1 to \(Self.maxLimit) (1 TiB), or null for the app's "
                                   + "\(Self.size(config.maxStoredBytes)).", field: "maxStoredBytes")
        }
        let existing = try await store.get(collection: Self.limitsCollection, id: owner, owner: Self.limitsOwner)
        if let value {
            let document = try JSONDocument(encoding: Limit(maxStoredBytes: value))
            _ = try await store.write(WriteBatch([existing == nil
                ? .insert(collection: Self.limitsCollection, id: owner, owner: Self.limitsOwner, data: document)
                : .replace(collection: Self.limitsCollection, id: owner, owner: Self.limitsOwner, data: document, expectedVersion: nil)]))
        } else if existing != nil {
            try await store.delete(from: Self.limitsCollection, id: owner, owner: Self.limitsOwner)
        }
        limits.withLock { $0[owner] = (value, clock.now()) }
        return try await usageReport(owner)
    }

    func enter(_ request: Request) throws {
        if let type = request.headers[.contentType]?.lowercased(), type.hasPrefix("image/"),
           let length = request.headers[.contentLength].flatMap(Int.init), length > config.maxImageBytes {
            throw Problem(status: .contentTooLarge, code: "too_large",
                          detail: "The image is \(Self.size(length)); the largest image this app takes is \(Self.size(config.maxImageBytes)) "
                              + "(quotas.max_image_bytes). Send a smaller one.", extra: ["limit": "max_image_bytes"])
        }
        let now = inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        if now > config.maxConnections {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            throw Problem(status: .serviceUnavailable, code: "unavailable",
                          detail: "The server is at its \(config.maxConnections) simultaneous connections (quotas.max_connections); try again in a moment.",
                          extra: ["limit": "max_connections"], headers: [.retryAfter: "1"])
        }
    }

    func leave() { inFlight.wrappingSubtract(1, ordering: .relaxed) }

    func admit(_ request: inout Request, identity: Identity) async throws {
        let now = clock.now()
        let day = Int(now.timeIntervalSince1970 / 86_400)
        let count = operations.withLock { state in
            if state.day != day { state = (day, [:]) }
            state.counts[identity.accountID, default: 0] += 1
            return state.counts[identity.accountID] ?? 0
        }
        unsent.withLock { unsent in
            if unsent.day != day { unsent = (day, [:], [:]) }
            unsent.operations[identity.accountID, default: 0] += 1
        }
        if count > config.opsPerDay {
            let wait = max(1, Int((Double(day + 1) * 86_400 - now.timeIntervalSince1970).rounded(.up)))
            throw Problem(status: .tooManyRequests, code: "rate_limited",
                          detail: "You have used today's \(config.opsPerDay) operations (quotas.ops_per_user_per_day); they renew at midnight UTC.",
                          extra: ["limit": .string("ops_per_user_per_day"), "retryAfter": .int(wait)], headers: [.retryAfter: String(wait)])
        }
        guard [.post, .put, .patch].contains(request.method) else { return }
        let owner = identity.accountID
        try await measureIfStale(owner, now: now)
        let limit = await self.limit(for: owner)
        if let declared = request.headers[.contentLength].flatMap(Int.init) {
            try reserve(declared, for: owner, limit: limit)
        } else {
            // A body of unknown length is counted as it streams in, and cut off at the limit.
            try reserve(0, for: owner, limit: limit)
            let gate = self
            let counted = request.body.map { buffer in
                try gate.reserve(buffer.readableBytes, for: owner, limit: limit)
                return buffer
            }
            request.body = RequestBody(asyncSequence: counted)
        }
    }

    /// Counts `bytes` against what `owner` stores, at the write: the measured usage (reused for
    /// `usage_cache_seconds`) plus every write admitted since it was measured. A write that would
    /// cross the limit is refused whole, so the limit is never overshot however stale the measure.
    func reserve(_ bytes: Int, for owner: String, limit: Int) throws {
        let refused: Int? = usage.withLock { usage in
            let stored = usage[owner]?.bytes ?? 0
            if stored >= limit || stored + bytes > limit { return stored }
            usage[owner, default: (0, clock.now())].bytes = stored + bytes
            return nil
        }
        if refused == nil, bytes > 0 { unsent.withLock { $0.bytes[owner, default: 0] += bytes } }
        guard let stored = refused else { return }
        let detail = stored >= limit
            ? "You store \(Self.size(stored)) of your \(Self.size(limit)) (quotas.max_stored_bytes_per_user); delete something to write more."
            : "This write (\(Self.size(bytes))) would take you past your \(Self.size(limit)) (quotas.max_stored_bytes_per_user): you store "
                + "\(Self.size(stored)). Delete something, or write less."
        throw Problem(status: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), code: "insufficient_storage",
                      detail: detail, extra: ["limit": "max_stored_bytes_per_user"])
    }

    private func measureIfStale(_ owner: String, now: Date) async throws {
        if let cached = usage.withLock({ $0[owner] }), now.timeIntervalSince(cached.at) < Double(config.usageCacheSeconds) { return }
        let measured = try await bus.request(GetStorageUsage(owner: owner)).total
        usage.withLock { $0[owner] = (measured, now) }
    }

    /// What this node counted since the last call, to tell the other nodes; nil when nothing.
    func takeUnsent() -> QuotaUsed? {
        unsent.withLock { unsent in
            guard !unsent.operations.isEmpty || !unsent.bytes.isEmpty else { return nil }
            defer { unsent.operations = [:]; unsent.bytes = [:] }
            return QuotaUsed(node: ThisNode.id, day: unsent.day, operations: unsent.operations, bytes: unsent.bytes)
        }
    }

    /// Adds what another node counted: its operations today, and the bytes it admitted on top of a
    /// measure this node holds (a measure taken later includes them already).
    func add(_ used: QuotaUsed) {
        operations.withLock { state in
            guard state.day == used.day else { return }
            for (owner, count) in used.operations { state.counts[owner, default: 0] += count }
        }
        usage.withLock { usage in
            for (owner, bytes) in used.bytes where usage[owner] != nil { usage[owner]?.bytes += bytes }
        }
    }

    /// What `owner` stores, measured now, and their limits.
    func usageReport(_ owner: String) async throws -> QuotaUsage {
        let stored = try await bus.request(GetStorageUsage(owner: owner)).total
        let now = clock.now()
        usage.withLock { $0[owner] = (stored, now) }
        let day = Int(now.timeIntervalSince1970 / 86_400)
        let used = operations.withLock { $0.day == day ? $0.counts[owner] ?? 0 : 0 }
        return QuotaUsage(storedBytes: stored, maxStoredBytes: await limit(for: owner), operationsToday: used, maxOperationsPerDay: config.opsPerDay,
                          maxImageBytes: config.maxImageBytes)
    }

    static func size(_ bytes: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .binary)
    }
}

/// What one node counted against the quotas since it last said so.
struct QuotaUsed: BusEvent {
    static let name: MessageName = "quotas.used.v1"
    var node: String
    /// Days since 1970 (UTC): the operations count for that day only.
    var day: Int
    var operations: [String: Int]
    var bytes: [String: Int]
}

/// Keeps the quotas one across nodes: each node tells the others, twice a second, what it counted
/// (operations per user, bytes admitted), and adds what they counted. A cluster can overshoot a
/// limit by at most half a second of the other nodes' traffic.
struct QuotaPeers: Service {
    static let interval: Duration = .milliseconds(500)

    let gate: QuotaGate
    let bus: any MessageBus
    let used: EventSubscription<QuotaUsed>

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in used.cancelOnGracefulShutdown() where event.node != ThisNode.id {
                    gate.add(event)
                }
            }
            group.addTask {
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    try? await Task.sleep(for: Self.interval)
                    if let counted = gate.takeUnsent() { await bus.publish(counted) }
                }
            }
        }
    }
}
