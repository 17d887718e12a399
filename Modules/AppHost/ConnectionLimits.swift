import AppConfig
import Foundation
import Logging
import NIOCore
import PluginKit
import SafeFetch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's bounds, resolved at start from `server:` and the process's open-file limit.
struct ServerLimits: Sendable, Equatable {
    var timeouts: TimeoutPolicy
    /// Open connections in all; a new one beyond is refused (after an idle one is closed for it, if any).
    var maxConnections: Int
    /// Open connections from one address (an IPv6 client's /64).
    var maxConnectionsPerAddress: Int
    /// The open-file limit at start, after raising it.
    var openFiles: OpenFileLimit

    /// Without a server (a worker, a tool): what a default config gives with 1,024 files.
    static let fallback = ServerLimits(timeouts: TimeoutPolicy(AppConfig.Connections()), maxConnections: 768, maxConnectionsPerAddress: 96,
                                       openFiles: OpenFileLimit(soft: 1024, hard: 1024, before: 1024, failure: nil))

    /// Files kept for everything but connections: the database (SQLite's file, WAL and shared
    /// memory for each pooled connection, or PostgreSQL's sockets), blobs being written, NATS, the
    /// event loops' own descriptors, logs. A quarter of the limit, at least 128 (half of a tiny one).
    static func reservedFiles(_ openFiles: Int) -> Int {
        max(min(128, openFiles / 2), openFiles / 4)
    }

    /// Beyond this, the default does not grow with the limit: each connection costs memory too.
    static let defaultCeiling = 10_000
    /// What an explicit `max_connections` must leave at least for the rest.
    static let minimumSpareFiles = 64

    /// The limits `settings` asks for under `openFiles`.
    /// - Throws: ``PluginSetupError`` (one line) when `max_connections` needs more files than the
    ///   limit allows.
    static func resolve(_ settings: AppConfig.Connections, openFiles: OpenFileLimit) throws(PluginSetupError) -> ServerLimits {
        let files = openFiles.soft
        let total: Int
        if let given = settings.maxConnections {
            guard given + minimumSpareFiles <= files else {
                throw PluginSetupError(
                    "server.max_connections: \(given) needs at least \(given + minimumSpareFiles) open files, but the limit is \(files)"
                        + (openFiles.hard.map { " (hard limit \($0))" } ?? "")
                        + "; raise it (systemd: LimitNOFILE=, a shell: ulimit -n) or lower max_connections")
            }
            total = given
        } else {
            total = max(1, min(defaultCeiling, files - reservedFiles(files)))
        }
        let each = settings.maxConnectionsPerAddress.map { min($0, total) } ?? max(min(8, total), min(256, total / 8))
        return ServerLimits(timeouts: TimeoutPolicy(settings), maxConnections: total, maxConnectionsPerAddress: each, openFiles: openFiles)
    }

    /// The listening socket's queue of connections not yet taken, long enough for a burst of
    /// thousands (the kernel caps it at `net.core.somaxconn`, 4096 by default): a queued connection
    /// costs the kernel a little memory and the server no file until it is taken.
    var acceptBacklog: Int { 4096 }

    /// The one line the server logs at start.
    var summary: String {
        let raised = openFiles.before < openFiles.soft ? "raised from \(openFiles.before) to \(openFiles.soft)" : "\(openFiles.soft)"
        let hard = openFiles.hard.map { $0 == openFiles.soft ? " (the hard limit)" : " (hard limit \($0))" } ?? " (no hard limit)"
        let failed = openFiles.failure.map { "; could not raise it: \($0)" } ?? ""
        return "Open files: \(raised)\(hard)\(failed); up to \(maxConnections) connections, \(maxConnectionsPerAddress) per address"
    }
}

/// `RLIMIT_NOFILE`: how many files (sockets included) the process may have open.
struct OpenFileLimit: Sendable, Equatable {
    /// The limit in force.
    var soft: Int
    /// The most it could be raised to without privilege; nil: unlimited.
    var hard: Int?
    /// The soft limit before ``raise()``.
    var before: Int
    /// Why raising failed, when it did.
    var failure: String?

    /// The limit as it is, unchanged.
    static func current() -> OpenFileLimit {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return OpenFileLimit(soft: 1024, hard: 1024, before: 1024, failure: nil) }
        let soft = clamp(limit.rlim_cur), hard = limit.rlim_max == Self.unlimited ? nil : clamp(limit.rlim_max)
        return OpenFileLimit(soft: soft, hard: hard, before: soft, failure: nil)
    }

    /// Raises the soft limit to the hard one (allowed without privilege). An unlimited hard limit
    /// gets the kernel's usual ceiling (`fs.nr_open`, 1,048,576). Idempotent.
    static func raise() -> OpenFileLimit {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return current() }
        let before = clamp(limit.rlim_cur)
        let target: rlim_t = limit.rlim_max == Self.unlimited ? rlim_t(nrOpen()) : limit.rlim_max
        let hard = limit.rlim_max == Self.unlimited ? nil : clamp(limit.rlim_max)
        guard limit.rlim_cur != Self.unlimited, limit.rlim_cur < target else {
            return OpenFileLimit(soft: before, hard: hard, before: before, failure: nil)
        }
        var raised = limit
        raised.rlim_cur = target
        guard setrlimit(resource, &raised) == 0 else {
            let reason = String(cString: strerror(errno))
            return OpenFileLimit(soft: before, hard: hard, before: before, failure: reason)
        }
        return OpenFileLimit(soft: clamp(target), hard: hard, before: before, failure: nil)
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    /// `RLIM_INFINITY` (all ones), which Swift cannot import from its macro.
    private static let unlimited = rlim_t.max

    private static func clamp(_ value: rlim_t) -> Int {
        value >= rlim_t(Int.max) ? Int.max : Int(value)
    }

    /// `fs.nr_open`, the most a process may have open on Linux.
    private static func nrOpen() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8),
              let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0 else { return 1 << 20 }
        return value
    }
}

/// Every open connection of the server's listeners, counted in all and per address.
///
/// A new connection beyond `max_connections` takes the place of the connection that has waited
/// longest without a request in flight (one that has sent nothing yet, a head still coming, a
/// kept-alive one between requests): silent connections cannot keep anyone out. When every
/// connection is busy, or its address already has `max_connections_per_address`, the new one is
/// refused at once (plain HTTP: a 503 with `Retry-After`). Refusals and the connections cut off
/// by a timeout are logged in one line per period, never one per connection.
final class ConnectionRegistry: Sendable {
    struct Limits: Sendable {
        var total: Int
        var perAddress: Int
        /// Reverse proxies: every client comes through them, so their connections are not limited per address.
        var exempt: [IPNetwork]
    }

    enum Admission: Equatable {
        case admitted(UInt64)
        case refused(Refusal)
    }

    enum Refusal: Equatable {
        case total
        case perAddress
    }

    /// What a summary line counts.
    enum Event: Sendable, Equatable {
        case refused(Refusal)
        case evicted
        case timedOut(TimeoutReason)
    }

    private struct Entry {
        let channel: any Channel
        let address: IPAddress?
        /// When it last became evictable (a stamp of ``State/evictionOrder``); nil while a request is in flight.
        var evictableStamp: UInt64?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var perAddress: [IPAddress: Int] = [:]
        /// Evictable connections, oldest first; an item whose stamp no longer matches its entry is stale.
        var evictionOrder = CircularBuffer<(id: UInt64, stamp: UInt64)>()
        var nextID: UInt64 = 1
        var nextStamp: UInt64 = 1
        var counts: [String: Int] = [:]
        var lastRefusedAddress: IPAddress?
        var lastReport: NIODeadline?
    }

    let limits: Limits
    let timeouts: TimeoutPolicy
    let reportEvery: TimeAmount
    private let state = Mutex(State())
    private let logger: Logger
    private let clock: @Sendable () -> NIODeadline

    init(limits: Limits, timeouts: TimeoutPolicy, logger: Logger, reportEvery: TimeAmount = .seconds(60),
         clock: @escaping @Sendable () -> NIODeadline = { .now() }) {
        self.limits = limits
        self.timeouts = timeouts
        self.reportEvery = reportEvery
        self.logger = logger
        self.clock = clock
    }

    convenience init(_ server: ServerLimits, trustedProxies: [IPNetwork], logger: Logger) {
        self.init(limits: Limits(total: server.maxConnections, perAddress: server.maxConnectionsPerAddress, exempt: trustedProxies),
                  timeouts: server.timeouts, logger: logger)
    }

    /// Open connections now.
    var count: Int { state.withLock { $0.entries.count } }
    /// Items in the eviction order, stale ones included (for the tests: it must not grow without bound).
    var evictionBacklog: Int { state.withLock { $0.evictionOrder.count } }

    /// Counts a new connection in, closing the longest-idle one to make room when the server is
    /// full, or refuses it.
    func admit(_ channel: any Channel) -> Admission {
        let address = channel.remoteAddress.flatMap(Self.addressKey)
        let exempt = channel.remoteAddress.flatMap(Self.fullAddress).map { full in limits.exempt.contains { $0.contains(full) } } ?? false
        var victim: (any Channel)?
        let admission = state.withLock { state -> Admission in
            if !exempt, let address, state.perAddress[address, default: 0] >= limits.perAddress {
                state.lastRefusedAddress = address
                return .refused(.perAddress)
            }
            if state.entries.count >= limits.total {
                guard let evicted = Self.popOldestEvictable(&state) else {
                    state.lastRefusedAddress = address
                    return .refused(.total)
                }
                victim = evicted
            }
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(channel: channel, address: exempt ? nil : address, evictableStamp: nil)
            if !exempt, let address { state.perAddress[address, default: 0] += 1 }
            return .admitted(id)
        }
        if let victim {
            victim.close(promise: nil)
            note(.evicted)
        }
        if case .refused(let why) = admission { note(.refused(why)) }
        return admission
    }

    /// Counts a connection out (when it closes; once it has been closed to make room, nothing).
    func release(_ id: UInt64) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return }
            Self.forget(entry, in: &state)
        }
    }

    /// Whether the connection may be closed to make room: true while no request is in flight.
    func setEvictable(_ id: UInt64, _ evictable: Bool) {
        state.withLock { state in
            guard state.entries[id] != nil else { return }
            if evictable {
                let stamp = state.nextStamp
                state.nextStamp += 1
                state.entries[id]?.evictableStamp = stamp
                state.evictionOrder.append((id, stamp))
                if state.evictionOrder.count > 2 * state.entries.count + 1024 {
                    let live = state.evictionOrder.filter { state.entries[$0.id]?.evictableStamp == $0.stamp }
                    state.evictionOrder = CircularBuffer(live)
                }
            } else {
                state.entries[id]?.evictableStamp = nil
            }
        }
    }

    /// Counts an event for the next summary line, and writes that line when the last one is at
    /// least ``reportEvery`` old (the first at once).
    func note(_ event: Event) {
        let now = clock()
        let line = state.withLock { state -> (String, Bool)? in
            state.counts[Self.key(event), default: 0] += 1
            if let last = state.lastReport, now - last < reportEvery { return nil }
            state.lastReport = now
            let summary = summary(of: state)
            state.counts = [:]
            return summary
        }
        guard let (message, warn) = line else { return }
        logger.log(level: warn ? .warning : .info, "\(message)")
    }

    private static func key(_ event: Event) -> String {
        switch event {
        case .refused(.total): "refused.total"
        case .refused(.perAddress): "refused.address"
        case .evicted: "evicted"
        case .timedOut(let reason): "timeout.\(reason)"
        }
    }

    private func summary(of state: State) -> (String, Bool) {
        let count = { (key: String) in state.counts[key, default: 0] }
        var parts: [String] = []
        if count("refused.total") > 0 {
            parts.append("\(count("refused.total")) refused, all \(limits.total) busy")
        }
        if count("refused.address") > 0 {
            parts.append("\(count("refused.address")) refused, \(limits.perAddress) already open from one address"
                         + (state.lastRefusedAddress.map { " (last \($0))" } ?? ""))
        }
        if count("evicted") > 0 { parts.append("\(count("evicted")) idle closed to make room") }
        if count("timeout.requestHead") > 0 {
            parts.append("\(count("timeout.requestHead")) closed with no request head within \(Self.describe(timeouts.requestHead))")
        }
        if count("timeout.slowBody") > 0 {
            parts.append("\(count("timeout.slowBody")) closed for a body under \(timeouts.bodyMinRate) bytes/s")
        }
        if count("timeout.webSocketHandshake") > 0 {
            parts.append("\(count("timeout.webSocketHandshake")) closed with no WebSocket upgrade within \(Self.describe(timeouts.webSocketHandshake))")
        }
        let warn = count("refused.total") + count("refused.address") > 0
        let message = "Connections: " + parts.joined(separator: "; ")
            + " (\(state.entries.count) open of \(limits.total); the next such line in \(Self.describe(reportEvery)) at the earliest)"
        return (message, warn)
    }

    static func describe(_ amount: TimeAmount) -> String {
        let millis = amount.nanoseconds / 1_000_000
        return millis % 1000 == 0 ? "\(millis / 1000) s" : "\(millis) ms"
    }

    private static func popOldestEvictable(_ state: inout State) -> (any Channel)? {
        while let (id, stamp) = state.evictionOrder.popFirst() {
            guard let entry = state.entries[id], entry.evictableStamp == stamp else { continue }
            state.entries[id] = nil
            forget(entry, in: &state)
            return entry.channel
        }
        return nil
    }

    private static func forget(_ entry: Entry, in state: inout State) {
        guard let address = entry.address, let count = state.perAddress[address] else { return }
        state.perAddress[address] = count > 1 ? count - 1 : nil
    }

    /// The address a connection is counted under: an IPv4 address (an IPv4-mapped IPv6 one too),
    /// or an IPv6 address's /64, what one client usually has.
    static func addressKey(_ address: SocketAddress) -> IPAddress? {
        guard let full = fullAddress(address) else { return nil }
        if full.isV4 { return full }
        return IPAddress(bytes: Array(full.bytes.prefix(8)) + [UInt8](repeating: 0, count: 8))
    }

    static func fullAddress(_ address: SocketAddress) -> IPAddress? {
        switch address {
        case .v4(let v4):
            return IPAddress(bytes: withUnsafeBytes(of: v4.address.sin_addr) { Array($0) })
        case .v6(let v6):
            let full = IPAddress(bytes: withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) })
            if let full, Array(full.bytes.prefix(12)) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] {
                return IPAddress(bytes: Array(full.bytes.suffix(4)))
            }
            return full
        case .unixDomainSocket:
            return nil
        }
    }
}

extension AppHost {
    /// The registry every listener of this server counts its connections in (HTTPS and its plain-HTTP port together).
    func connectionRegistry() -> ConnectionRegistry {
        var connectionsLogger = logger
        connectionsLogger[metadataKey: "component"] = "connections"
        return ConnectionRegistry(limits, trustedProxies: config.server.trustedProxies.compactMap(IPNetwork.init), logger: connectionsLogger)
    }
}
