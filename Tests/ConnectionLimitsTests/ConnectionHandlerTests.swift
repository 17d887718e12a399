@testable import AppHost
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import Testing

/// The handlers in a pipeline like the server's (guard first, request decoder, probe), on an
/// embedded event loop whose time the test moves.
@Suite("Connection timeouts: the handlers")
struct ConnectionHandlerTests {
    static let policy = TimeoutPolicy(requestHead: .seconds(10), bodyMinRate: 1000, bodyRateGrace: .seconds(5), idle: .seconds(60),
                                      webSocketHandshake: .seconds(3))

    /// A guarded HTTP/1.1 connection from `address`, admitted to `registry`.
    static func connection(_ registry: ConnectionRegistry, from address: String = "192.0.2.1") throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        channel.remoteAddress = try SocketAddress(ipAddress: address, port: 40_000)
        guard case .admitted(let ticket) = registry.admit(channel) else { throw Refused() }
        channel.closeFuture.whenComplete { _ in registry.release(ticket) }
        let watch = ConnectionWatch(channel: channel, clock: ConnectionClock(policy: registry.timeouts, now: channel.eventLoop.now),
                                    registry: registry, ticket: ticket)
        try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(watch: watch))
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
        try RequestProbe.attach(to: channel)
        try channel.connect(to: channel.remoteAddress ?? SocketAddress(ipAddress: "192.0.2.1", port: 1)).wait()
        return channel
    }

    struct Refused: Error {}

    static func registry(total: Int = 100, perAddress: Int = 100, logger: Logger = Logger(label: "test")) -> ConnectionRegistry {
        ConnectionRegistry(limits: .init(total: total, perAddress: perAddress, exempt: []), timeouts: policy, logger: logger)
    }

    static func send(_ channel: EmbeddedChannel, _ text: String) throws {
        try channel.writeInbound(channel.allocator.buffer(string: text))
    }

    /// Reads what the decoder passed on, and asks for more as the server's async channel does.
    static func drain(_ channel: EmbeddedChannel) throws {
        while try channel.readInbound(as: HTTPServerRequestPart.self) != nil {}
        channel.read()
    }

    static func respond(_ channel: EmbeddedChannel, status: HTTPResponseStatus = .ok) throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "0")
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
    }

    @Test("a connection that sends nothing is closed at request_head_timeout, and counted out")
    func silent() throws {
        let registry = Self.registry()
        let channel = try Self.connection(registry)
        #expect(registry.count == 1)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(registry.count == 0)
    }

    @Test("a head sent a byte a second is closed at request_head_timeout although bytes keep coming")
    func slowHead() throws {
        let registry = Self.registry()
        let channel = try Self.connection(registry)
        let head = Array("GET /health HTTP/1.1\r\nHost: quire\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n")
        for (second, character) in head.enumerated() where channel.isActive {
            try Self.send(channel, String(character))
            try Self.drain(channel)
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            if second < 9 { #expect(channel.isActive) }
        }
        #expect(!channel.isActive)
    }

    @Test("kept alive: answered requests, then closed idle_timeout after the last answer; a new head restarts the head's clock")
    func keepAlive() throws {
        let registry = Self.registry()
        let channel = try Self.connection(registry)
        for _ in 0..<3 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(8))
            try Self.send(channel, "GET /health HTTP/1.1\r\nHost: quire\r\n\r\n")
            try Self.drain(channel)
            channel.embeddedEventLoop.advanceTime(by: .seconds(30))  // a slow answer: no limit
            #expect(channel.isActive)
            try Self.respond(channel)
        }
        channel.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        try Self.send(channel, "GET /he")  // a byte of the next request: the head's 10 s from now
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("a body at a trickle is cut off after the grace; one at a good rate goes on as long as it needs")
    func bodies() throws {
        let registry = Self.registry()
        let slow = try Self.connection(registry)
        try Self.send(slow, "POST /upload HTTP/1.1\r\nHost: quire\r\nContent-Length: 100000\r\n\r\n")
        try Self.drain(slow)
        for _ in 0..<10 where slow.isActive {
            try Self.send(slow, String(repeating: "x", count: 100))
            try Self.drain(slow)
            slow.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        #expect(!slow.isActive)

        let good = try Self.connection(registry)
        try Self.send(good, "POST /upload HTTP/1.1\r\nHost: quire\r\nContent-Length: 200000\r\n\r\n")
        try Self.drain(good)
        for _ in 0..<100 {
            good.embeddedEventLoop.advanceTime(by: .seconds(1))
            try Self.send(good, String(repeating: "x", count: 2000))
            try Self.drain(good)
        }
        #expect(good.isActive)
        try Self.respond(good)
        #expect(good.isActive)
    }

    @Test("after a WebSocket upgrade is written the probe leaves and no timeout applies; an upgrade never written is cut off")
    func webSocket() throws {
        let registry = Self.registry()
        let upgrade = "GET /api/v1/sync/live HTTP/1.1\r\nHost: quire\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        let live = try Self.connection(registry)
        try Self.send(live, upgrade)
        try Self.drain(live)
        var headers = HTTPHeaders()
        headers.add(name: "Upgrade", value: "websocket")
        try live.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers)))
        #expect((try? live.pipeline.syncOperations.handler(type: RequestProbe.self)) == nil)
        live.embeddedEventLoop.advanceTime(by: .hours(24))
        #expect(live.isActive)

        let stuck = try Self.connection(registry)
        try Self.send(stuck, upgrade)
        try Self.drain(stuck)
        stuck.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(!stuck.isActive)
    }

    @Test("the closings are counted for the summary line, not logged one by one")
    func counted() throws {
        let lines = LogLines()
        let registry = Self.registry(logger: lines.logger)
        let channels = try (0..<20).map { _ in try Self.connection(registry) }
        for channel in channels { channel.embeddedEventLoop.advanceTime(by: .seconds(10)) }
        #expect(channels.allSatisfy { !$0.isActive })
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains("closed with no request head within 10 s") == true)
    }
}

/// Every line logged.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(lines: self) }
    }

    struct Handler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
