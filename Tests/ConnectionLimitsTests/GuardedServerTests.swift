@testable import AppHost
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// A real server on an ephemeral loopback port, guarded as `quire serve` is, and raw TCP clients.
@Suite("Connection bounds: a real server", .timeLimit(.minutes(1)))
struct GuardedServerTests {
    /// Requests to `/wait` are answered once the test lets them go.
    final class Gate: Sendable {
        private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
        private let entered = AsyncStream<Void>.makeStream()

        private let opened = Mutex(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                // Once open, open for good: a request that arrives late is not left waiting.
                let wait = opened.withLock { open -> Bool in
                    if open { return false }
                    waiting.withLock { $0.append(continuation) }
                    return true
                }
                entered.continuation.yield()
                if !wait { continuation.resume() }
            }
        }

        /// Waits until `count` requests are inside (at most 10 s: a test never hangs on it).
        func arrivals(_ count: Int) async {
            let stream = entered.stream
            let arrived = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    var seen = 0
                    for await _ in stream {
                        seen += 1
                        if seen == count { return true }
                    }
                    return false
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(10))
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(arrived, "\(count) requests did not arrive within 10 s")
        }

        func open() {
            let held = opened.withLock { open in
                open = true
                return waiting.withLock { list in defer { list = [] }; return list }
            }
            for continuation in held { continuation.resume() }
        }
    }

    /// Stopping the server by cancelling it is this suite's way: its complaints about that are not news.
    static let quiet: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs a server with `limits` while `body` runs, handing it the port.
    static func serving(total: Int, perAddress: Int, gate: Gate, _ body: @Sendable (Int) async throws -> Void) async throws {
        let router = Router()
        router.get("health") { _, _ in "ok" }
        router.get("wait") { _, _ -> String in
            await gate.wait()
            return "done"
        }
        // Short: a connection the server has not heard from is gone soon, and the server's graceful
        // stop (which waits for its connections) does not wait long.
        let policy = TimeoutPolicy(requestHead: .seconds(2), bodyMinRate: 1000, bodyRateGrace: .seconds(2), idle: .seconds(2),
                                   webSocketHandshake: .seconds(2))
        let registry = ConnectionRegistry(limits: .init(total: total, perAddress: perAddress, exempt: []), timeouts: policy,
                                          logger: Logger(label: "test"))
        let port = AsyncStream<Int>.makeStream()
        let app = Application(
            responder: router.buildResponder(),
            server: HTTPServerBuilder { responder in
                GuardedServer(inner: UpgradableServer(inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: .init(), shouldUpgrade: { _, _, _ in .dontUpgrade })),
                              registry: registry, secure: false)
            },
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.continuation.yield(channel.localAddress?.port ?? 0) },
            logger: Self.quiet)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var ports = port.stream.makeAsyncIterator()
            guard let bound = await ports.next() else { return }
            // Whatever the body does, the gate opens and the server stops: nothing is left waiting.
            defer {
                gate.open()
                group.cancelAll()
            }
            try await body(bound)
        }
    }

    /// A raw TCP connection that keeps what it receives.
    final class Client: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let received = Mutex<String>("")
        var text: String { received.withLock { $0 } }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLock { $0 += String(buffer: buffer) }
        }

        static func connect(_ port: Int) async throws -> (any Channel, Client) {
            let client = Client()
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(client) }
                }
                .connect(host: "127.0.0.1", port: port).get()
            return (channel, client)
        }

        /// Sends a request and waits for the server to close the connection (at most 10 s).
        static func request(_ port: Int, _ path: String) async throws -> String {
            let (channel, client) = try await connect(port)
            channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
            // A connection refused at accept is answered and closed before the request is written:
            // the write then fails, and the answer is what counts.
            try? await channel.writeAndFlush(channel.allocator.buffer(string: "GET \(path) HTTP/1.1\r\nHost: quire\r\nConnection: close\r\n\r\n"))
            try await channel.closeFuture.get()
            return client.text
        }
    }

    @Test("with every connection taken by silent clients, a new request is answered: the one idle longest makes room")
    func idleMakeRoom() async throws {
        try await Self.serving(total: 3, perAddress: 10, gate: Gate()) { port in
            var silent: [any Channel] = []
            for _ in 0..<3 { silent.append(try await Client.connect(port).0) }
            // The server may take a moment to accept the third; a request answered proves it did.
            let answer = try await Client.request(port, "/health")
            #expect(answer.hasPrefix("HTTP/1.1 200"))
            // One of the silent ones (the one admitted first) was closed for it.
            let closed = await withTaskGroup(of: Int.self) { group in
                for (index, channel) in silent.enumerated() {
                    group.addTask {
                        try? await channel.closeFuture.get()
                        return index
                    }
                }
                let first = await group.next()
                for channel in silent { try? await channel.close() }
                return first
            }
            #expect(closed != nil)
        }
    }

    @Test("with every connection busy, a new one is answered 503 with Retry-After at once; the busy ones are answered")
    func busyRefuse() async throws {
        let gate = Gate()
        try await Self.serving(total: 2, perAddress: 10, gate: gate) { port in
            async let first = Client.request(port, "/wait")
            async let second = Client.request(port, "/wait")
            await gate.arrivals(2)
            let refused = try await Client.request(port, "/health")
            #expect(refused.hasPrefix("HTTP/1.1 503"))
            #expect(refused.contains("Retry-After: 5"))
            gate.open()
            #expect(try await first.hasPrefix("HTTP/1.1 200"))
            #expect(try await second.hasPrefix("HTTP/1.1 200"))
            #expect(try await Client.request(port, "/health").hasPrefix("HTTP/1.1 200"))
        }
    }
}
