@testable import AppHost
import AppConfig
import NIOCore
import NIOEmbedded
import PluginKit
import SafeFetch
import Synchronization
import Testing

@Suite("Connection bounds: in all and per address")
struct ConnectionRegistryTests {
    static func channel(from address: String) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        channel.remoteAddress = try SocketAddress(ipAddress: address, port: 40_000)
        return channel
    }

    static func registry(total: Int, perAddress: Int, exempt: [String] = [], logger: LogLines = LogLines(),
                         clock: @escaping @Sendable () -> NIODeadline = { .now() }) -> ConnectionRegistry {
        ConnectionRegistry(limits: .init(total: total, perAddress: perAddress, exempt: exempt.compactMap(IPNetwork.init)),
                           timeouts: ConnectionHandlerTests.policy, logger: logger.logger, clock: clock)
    }

    @Test("beyond max_connections_per_address an address is refused; another address, or a trusted proxy, is not")
    func perAddress() throws {
        let registry = Self.registry(total: 100, perAddress: 3, exempt: ["10.0.0.0/8"])
        for _ in 0..<3 { #expect(registry.admit(try Self.channel(from: "192.0.2.1")) != .refused(.perAddress)) }
        #expect(registry.admit(try Self.channel(from: "192.0.2.1")) == .refused(.perAddress))
        #expect(registry.admit(try Self.channel(from: "192.0.2.2")) != .refused(.perAddress))
        for _ in 0..<10 { #expect(registry.admit(try Self.channel(from: "10.1.2.3")) != .refused(.perAddress)) }
        #expect(registry.count == 14)
    }

    @Test("an IPv6 client is counted by its /64; an IPv4-mapped address as the IPv4 one")
    func addresses() throws {
        let registry = Self.registry(total: 100, perAddress: 2)
        #expect(registry.admit(try Self.channel(from: "2001:db8:1:2::1")) != .refused(.perAddress))
        #expect(registry.admit(try Self.channel(from: "2001:db8:1:2:ffff::9")) != .refused(.perAddress))
        #expect(registry.admit(try Self.channel(from: "2001:db8:1:2::7")) == .refused(.perAddress))
        #expect(registry.admit(try Self.channel(from: "2001:db8:1:3::1")) != .refused(.perAddress))
        #expect(registry.admit(try Self.channel(from: "192.0.2.9")) != .refused(.perAddress))
        #expect(registry.admit(try Self.channel(from: "::ffff:192.0.2.9")) != .refused(.perAddress))
        #expect(registry.admit(try Self.channel(from: "192.0.2.9")) == .refused(.perAddress))
    }

    @Test("a connection closed is counted out, and its address may connect again")
    func release() throws {
        let registry = Self.registry(total: 1, perAddress: 1)
        guard case .admitted(let ticket) = registry.admit(try Self.channel(from: "192.0.2.1")) else {
            Issue.record("refused")
            return
        }
        #expect(registry.admit(try Self.channel(from: "192.0.2.1")) == .refused(.perAddress))
        registry.release(ticket)
        registry.release(ticket)  // twice: nothing more
        #expect(registry.count == 0)
        #expect(registry.admit(try Self.channel(from: "192.0.2.1")) != .refused(.perAddress))
    }

    @Test("at max_connections a new connection takes the place of the one idle longest; when all are busy it is refused")
    func eviction() throws {
        let registry = Self.registry(total: 3, perAddress: 3)
        var open: [(EmbeddedChannel, UInt64)] = []
        for index in 0..<3 {
            let channel = try Self.channel(from: "192.0.2.\(index + 1)")
            try channel.connect(to: channel.remoteAddress ?? SocketAddress(ipAddress: "192.0.2.1", port: 1)).wait()
            guard case .admitted(let ticket) = registry.admit(channel) else { throw ConnectionHandlerTests.Refused() }
            open.append((channel, ticket))
        }
        registry.setEvictable(open[1].1, true)  // idle since first
        registry.setEvictable(open[2].1, true)
        registry.setEvictable(open[0].1, false)  // busy
        let newcomer = try Self.channel(from: "198.51.100.1")
        #expect(registry.admit(newcomer) != .refused(.total))
        #expect(open[0].0.isActive && !open[1].0.isActive && open[2].0.isActive)
        #expect(registry.count == 3)
        // The second idle one goes next; then nobody is idle.
        #expect(registry.admit(try Self.channel(from: "198.51.100.2")) != .refused(.total))
        #expect(!open[2].0.isActive)
        #expect(registry.admit(try Self.channel(from: "198.51.100.3")) == .refused(.total))
        // Idle, busy, idle again: it goes by when it last became idle.
        registry.setEvictable(open[0].1, true)
        registry.setEvictable(open[0].1, false)
        #expect(registry.admit(try Self.channel(from: "198.51.100.4")) == .refused(.total))
        registry.setEvictable(open[0].1, true)
        #expect(registry.admit(try Self.channel(from: "198.51.100.5")) != .refused(.total))
        #expect(!open[0].0.isActive)
    }

    @Test("the eviction order's stale entries are dropped as it grows: a million idle-busy turns keep it small")
    func compaction() throws {
        let registry = Self.registry(total: 2, perAddress: 2)
        guard case .admitted(let ticket) = registry.admit(try Self.channel(from: "192.0.2.1")) else { throw ConnectionHandlerTests.Refused() }
        for _ in 0..<100_000 {
            registry.setEvictable(ticket, true)
            registry.setEvictable(ticket, false)
        }
        #expect(registry.evictionBacklog <= 2 * registry.count + 1024)
    }

    @Test("refusals are logged in one line per period, with their count, never one per connection")
    func summary() throws {
        let lines = LogLines()
        let now = Mutex(NIODeadline.uptimeNanoseconds(1_000_000_000))
        let registry = Self.registry(total: 1000, perAddress: 2, logger: lines, clock: { now.withLock { $0 } })
        for _ in 0..<500 { _ = registry.admit(try Self.channel(from: "192.0.2.1")) }
        #expect(lines.all.count == 1)
        #expect(lines.all[0].hasPrefix("warning Connections: 1 refused, 2 already open from one address (last 192.0.2.1)"))
        now.withLock { $0 = $0 + .seconds(59) }
        _ = registry.admit(try Self.channel(from: "192.0.2.1"))
        #expect(lines.all.count == 1)
        now.withLock { $0 = $0 + .seconds(1) }
        _ = registry.admit(try Self.channel(from: "192.0.2.1"))
        #expect(lines.all.count == 2)
        #expect(lines.all[1].hasPrefix("warning Connections: 499 refused, 2 already open from one address"))
    }

    @Test("max_connections by default: the open-file limit less a quarter (at least 128) for the database, files and NATS, at most 10,000")
    func defaults() throws {
        let settings = AppConfig.Connections()
        let small = try ServerLimits.resolve(settings, openFiles: OpenFileLimit(soft: 1024, hard: 1024, before: 1024))
        #expect(small.maxConnections == 768 && small.maxConnectionsPerAddress == 96)
        let tiny = try ServerLimits.resolve(settings, openFiles: OpenFileLimit(soft: 256, hard: 4096, before: 256))
        #expect(tiny.maxConnections == 128 && tiny.maxConnectionsPerAddress == 16)
        let large = try ServerLimits.resolve(settings, openFiles: OpenFileLimit(soft: 524_288, hard: 524_288, before: 1024))
        #expect(large.maxConnections == 10_000 && large.maxConnectionsPerAddress == 256)
        #expect(large.summary == "Open files: raised from 1024 to 524288 (the hard limit); up to 10000 connections, 256 per address")
    }

    @Test("a max_connections the open-file limit cannot hold is one line saying what to do; a given per-address bound is kept")
    func tooMany() throws {
        var settings = AppConfig.Connections()
        settings.maxConnections = 5000
        let error = #expect(throws: PluginSetupError.self) {
            try ServerLimits.resolve(settings, openFiles: OpenFileLimit(soft: 1024, hard: 1024, before: 1024))
        }
        let text = error?.description ?? ""
        #expect(text.contains("server.max_connections: 5000") && text.contains("limit is 1024") && text.contains("LimitNOFILE"))
        #expect(!text.contains("\n"))
        settings.maxConnections = 900
        settings.maxConnectionsPerAddress = 10
        let limits = try ServerLimits.resolve(settings, openFiles: OpenFileLimit(soft: 1024, hard: 1024, before: 1024))
        #expect(limits.maxConnections == 900 && limits.maxConnectionsPerAddress == 10)
    }

    @Test("the open-file limit is raised to the hard limit, and raising again changes nothing")
    func raise() {
        let raised = OpenFileLimit.raise()
        #expect(raised.failure == nil)
        if let hard = raised.hard { #expect(raised.soft == hard) }
        let again = OpenFileLimit.raise()
        #expect(again.soft == raised.soft && again.before == raised.soft)
    }
}
