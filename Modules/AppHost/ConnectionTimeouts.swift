import AppConfig
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// `server.request_head_timeout`, `body_min_rate`, `body_rate_grace`, `idle_timeout` and
/// `websocket_handshake_timeout`, in NIO's units.
struct TimeoutPolicy: Sendable, Equatable {
    var requestHead: TimeAmount
    /// Bytes per second; 0: no minimum.
    var bodyMinRate: Int
    var bodyRateGrace: TimeAmount
    var idle: TimeAmount
    var webSocketHandshake: TimeAmount

    init(requestHead: TimeAmount, bodyMinRate: Int, bodyRateGrace: TimeAmount, idle: TimeAmount, webSocketHandshake: TimeAmount) {
        self.requestHead = requestHead
        self.bodyMinRate = bodyMinRate
        self.bodyRateGrace = bodyRateGrace
        self.idle = idle
        self.webSocketHandshake = webSocketHandshake
    }

    init(_ settings: AppConfig.Connections) {
        self.init(requestHead: TimeAmount(settings.requestHeadTimeout), bodyMinRate: settings.bodyMinRate,
                  bodyRateGrace: TimeAmount(settings.bodyRateGrace), idle: TimeAmount(settings.idleTimeout),
                  webSocketHandshake: TimeAmount(settings.webSocketHandshakeTimeout))
    }
}

/// Why a connection (or an HTTP/2 stream) was cut off.
enum TimeoutReason: String, Sendable, Equatable, CustomStringConvertible {
    case requestHead
    case slowBody
    case idle
    case webSocketHandshake

    var description: String { rawValue }
}

/// What a connection is waiting for, and so how long it may take: the rules of the timeouts as a
/// value, driven by what the handlers see and by the time given to each call.
///
/// - Waiting for a request's head: from the connection's start (its TLS handshake included) or,
///   on a kept-alive connection, from the first byte after the last response, at most
///   `requestHead`; before that first byte the connection is idle, at most `idle`.
/// - Reading a body: its bytes over the time the server was waiting for them (a read asked of the
///   socket and not yet answered — never while the application holds the body back) must reach
///   `bodyMinRate` once that time passes `bodyRateGrace`.
/// - Answering: no limit (a long response, a server-sent event stream).
/// - A WebSocket upgrade's head: `webSocketHandshake` until the upgrade is written; once
///   upgraded, no limit (the WebSocket's pings find a dead peer).
/// - HTTP/2: the connection has no limit of its own here once negotiated (HTTP/2's idle timeout
///   closes it without streams); each stream's body is held to the rate.
struct ConnectionClock {
    enum Mode: Equatable {
        /// An HTTP/1.1 connection (or one still in its TLS handshake).
        case http1
        /// One HTTP/2 stream: one request, no head or idle limits.
        case stream
        case upgraded
        case multiplexed
    }

    enum Verdict: Equatable {
        case none
        case at(NIODeadline)
        case expired(TimeoutReason)
    }

    let policy: TimeoutPolicy
    private(set) var mode: Mode
    /// Heads read whose response has not ended.
    private var requestsOpen = 0
    /// Between a request's head and its end.
    private var bodyOpen = false
    /// When the wait for the next head began.
    private var waitSince: NIODeadline
    /// The wait is a kept-alive connection's, with no byte of the next request yet.
    private var idle = false
    private var bodyBytes = 0
    /// Time the server waited for the body's bytes so far (closed intervals).
    private var bodyWaited: TimeAmount = .zero
    /// A read asked of the socket and not yet answered, since then.
    private var readSince: NIODeadline?
    private var upgradeDeadline: NIODeadline?
    /// HTTP/2 streams open on the connection.
    private(set) var openStreams = 0

    init(policy: TimeoutPolicy, mode: Mode = .http1, now: NIODeadline) {
        self.policy = policy
        self.mode = mode
        self.waitSince = now
    }

    /// Whether the connection may be closed to make room for a new one: no request in flight.
    var isEvictable: Bool {
        switch mode {
        case .http1: requestsOpen == 0 && !bodyOpen && upgradeDeadline == nil
        case .multiplexed: openStreams == 0
        case .stream, .upgraded: false
        }
    }

    /// Bytes arrived from the client (before any decoding).
    mutating func bytesArrived(now: NIODeadline) {
        if idle, requestsOpen == 0, !bodyOpen {
            idle = false
            waitSince = now
        }
    }

    /// The server asked the socket for more.
    mutating func readRequested(now: NIODeadline) {
        if readSince == nil { readSince = now }
    }

    /// A request's head arrived.
    mutating func head(now: NIODeadline, upgrade: Bool) {
        settleRead(now: now)
        requestsOpen += 1
        bodyOpen = true
        idle = false
        bodyBytes = 0
        bodyWaited = .zero
        if upgrade, mode == .http1 { upgradeDeadline = now + policy.webSocketHandshake }
    }

    /// Part of a request's body arrived.
    mutating func body(bytes: Int, now: NIODeadline) {
        settleRead(now: now)
        bodyBytes += bytes
    }

    /// A request's end arrived.
    mutating func end(now: NIODeadline) {
        settleRead(now: now)
        bodyOpen = false
        if requestsOpen == 0 { startIdle(now: now) }
    }

    /// A response was written to its end.
    mutating func responseEnded(now: NIODeadline) {
        requestsOpen = max(0, requestsOpen - 1)
        if requestsOpen == 0, !bodyOpen { startIdle(now: now) }
    }

    /// The connection became a WebSocket.
    mutating func upgraded() {
        mode = .upgraded
        upgradeDeadline = nil
        bodyOpen = false
    }

    /// ALPN chose HTTP/2.
    mutating func multiplexed() {
        mode = .multiplexed
    }

    mutating func streamOpened() { openStreams += 1 }
    mutating func streamClosed() { openStreams = max(0, openStreams - 1) }

    /// When the connection is to be closed, as things stand at `now`.
    func verdict(now: NIODeadline) -> Verdict {
        switch mode {
        case .upgraded, .multiplexed: return .none
        case .http1, .stream: break
        }
        if let upgradeDeadline {
            return now >= upgradeDeadline ? .expired(.webSocketHandshake) : .at(upgradeDeadline)
        }
        if bodyOpen {
            guard policy.bodyMinRate > 0 else { return .none }
            let waited = bodyWaited + (readSince.map { now - $0 } ?? .zero)
            // The time in which `bodyBytes` would arrive at the minimum rate, and at least the grace.
            let earned = TimeAmount.nanoseconds(Int64(min(Double(Int64.max / 2), Double(bodyBytes) / Double(policy.bodyMinRate) * 1e9)))
            let allowed = max(policy.bodyRateGrace, earned)
            return waited >= allowed ? .expired(.slowBody) : .at(now + (allowed - waited))
        }
        if requestsOpen > 0 || mode == .stream { return .none }
        let deadline = waitSince + (idle ? policy.idle : policy.requestHead)
        return now >= deadline ? .expired(idle ? .idle : .requestHead) : .at(deadline)
    }

    private mutating func startIdle(now: NIODeadline) {
        idle = true
        waitSince = now
        readSince = nil
    }

    /// Data answered the outstanding read: its wait counts toward the body's when a body was open.
    private mutating func settleRead(now: NIODeadline) {
        if let since = readSince, bodyOpen { bodyWaited = bodyWaited + (now - since) }
        readSince = nil
    }
}

/// One connection's (or HTTP/2 stream's) clock on its event loop: one timer armed for the
/// earliest deadline, the channel closed when it passes, and the registry told whether the
/// connection may be closed to make room.
final class ConnectionWatch {
    let channel: any Channel
    private(set) var clock: ConnectionClock
    private let registry: ConnectionRegistry?
    private let ticket: UInt64?
    private var evictable = false
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var stopped = false

    init(channel: any Channel, clock: ConnectionClock, registry: ConnectionRegistry?, ticket: UInt64?) {
        self.channel = channel
        self.clock = clock
        self.registry = registry
        self.ticket = ticket
    }

    /// Applies what a handler saw, then re-arms the timer (or closes the connection).
    func update(_ change: (inout ConnectionClock, NIODeadline) -> Void) {
        guard !stopped else { return }
        change(&clock, channel.eventLoop.now)
        settle()
    }

    /// Starts the clock: the connection's first deadline.
    func start() {
        settle()
    }

    /// The channel closed: no timer, nothing more to count.
    func stop() {
        stopped = true
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func settle() {
        guard !stopped else { return }
        if let registry, let ticket, clock.isEvictable != evictable {
            evictable = clock.isEvictable
            registry.setEvictable(ticket, evictable)
        }
        let now = channel.eventLoop.now
        switch clock.verdict(now: now) {
        case .none:
            break  // an armed timer finds nothing to do when it fires
        case .at(let deadline):
            if let armed = timerDeadline, armed <= deadline { return }
            timer?.cancel()
            timerDeadline = deadline
            timer = channel.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
                timer = nil
                timerDeadline = nil
                settle()
            }
        case .expired(let reason):
            stop()
            if reason != .idle { registry?.note(.timedOut(reason)) }
            channel.close(promise: nil)
        }
    }

    /// The watch of the connection `channel` is (or whose stream it is), if the server guards it.
    static func of(_ channel: any Channel) -> ConnectionWatch? {
        (try? channel.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self))?.watch
    }
}

/// First in a guarded connection's pipeline (before TLS): bytes arriving start a kept-alive
/// connection's head timeout; the connection's end stops its clock.
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let watch: ConnectionWatch

    init(watch: ConnectionWatch) {
        self.watch = watch
    }

    func handlerAdded(context: ChannelHandlerContext) {
        watch.start()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        watch.update { clock, now in clock.bytesArrived(now: now) }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        watch.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        watch.stop()
    }
}

/// Behind an HTTP/1.1 connection's request decoder: tells the connection's clock about heads,
/// bodies, ends, responses, reads asked of the socket, and a WebSocket upgrade (then leaves: after
/// it WebSocket frames, not HTTP parts, pass here).
final class RequestProbe: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let watch: ConnectionWatch
    /// The 101 went out: from here on WebSocket frames pass, untouched, until the probe is gone.
    private var upgraded = false

    init(watch: ConnectionWatch) {
        self.watch = watch
    }

    /// Puts a probe behind `channel`'s HTTP/1.1 request decoder when the connection is guarded and
    /// has none yet.
    static func attach(to channel: any Channel) throws {
        let pipeline = channel.pipeline.syncOperations
        guard let watch = ConnectionWatch.of(channel), (try? pipeline.handler(type: RequestProbe.self)) == nil,
              let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        try pipeline.addHandler(RequestProbe(watch: watch), position: .after(decoder))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if upgraded {
            context.fireChannelRead(data)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            let upgrade = head.method == .GET && head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
            watch.update { clock, now in clock.head(now: now, upgrade: upgrade) }
        case .body(let buffer):
            let bytes = buffer.readableBytes
            watch.update { clock, now in clock.body(bytes: bytes, now: now) }
        case .end:
            watch.update { clock, now in clock.end(now: now) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if upgraded {
            context.write(data, promise: promise)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .switchingProtocols:
            upgraded = true
            watch.update { clock, _ in clock.upgraded() }
            context.write(data, promise: promise)
        case .end:
            context.write(data, promise: promise)
            watch.update { clock, now in clock.responseEnded(now: now) }
        case .head, .body:
            context.write(data, promise: promise)
        }
    }

    /// After the 101's flush (never inside the write: its flush would then go nowhere), the probe leaves.
    func flush(context: ChannelHandlerContext) {
        context.flush()
        if upgraded { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    func read(context: ChannelHandlerContext) {
        if !upgraded { watch.update { clock, now in clock.readRequested(now: now) } }
        context.read()
    }
}

/// In each HTTP/2 stream's pipeline: holds the stream's body to the minimum rate (closing the
/// stream, not the connection), and counts the connection's open streams.
final class StreamProbe: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let policy: TimeoutPolicy
    private var watch: ConnectionWatch?
    private var connection: ConnectionWatch?

    init(policy: TimeoutPolicy) {
        self.policy = policy
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        watch = ConnectionWatch(channel: channel, clock: ConnectionClock(policy: policy, mode: .stream, now: channel.eventLoop.now),
                                registry: nil, ticket: nil)
        watch?.start()
        connection = channel.parent.flatMap(ConnectionWatch.of)
        connection?.update { clock, _ in clock.streamOpened() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    private func closed() {
        watch?.stop()
        watch = nil
        connection?.update { clock, _ in clock.streamClosed() }
        connection = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            watch?.update { clock, now in clock.head(now: now, upgrade: false) }
        case .body(let buffer):
            let bytes = buffer.readableBytes
            watch?.update { clock, now in clock.body(bytes: bytes, now: now) }
        case .end:
            watch?.update { clock, now in clock.end(now: now) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            watch?.update { clock, now in clock.responseEnded(now: now) }
        }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        watch?.update { clock, now in clock.readRequested(now: now) }
        context.read()
    }
}

/// A connection refused for want of room: a plain-HTTP one gets a 503 with `Retry-After` (sent
/// before its request is read: cheap, and most clients show it), a TLS one is closed at once.
final class RefusedConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    static let response = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "Content-Length: 38\r\nConnection: close\r\n\r\nThe server is busy; try again shortly."

    let answer: Bool
    private var done = false

    init(answer: Bool) {
        self.answer = answer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func refuse(_ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        guard answer else {
            context.close(promise: nil)
            return
        }
        let channel = context.channel
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: Self.response))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}

/// A listener's connections, counted by the ``ConnectionRegistry`` and timed by a
/// ``ConnectionWatch``: `inner` (HTTP/1.1 with WebSockets, or TLS with HTTP/2) serves the
/// connections admitted.
struct GuardedServer<Inner: ServerChildChannel>: ServerChildChannel {
    enum Value: ServerChildChannelValue {
        case served(Inner.Value)
        case refused(any Channel)

        var channel: any Channel {
            switch self {
            case .served(let value): value.channel
            case .refused(let channel): channel
            }
        }
    }

    let inner: Inner
    let registry: ConnectionRegistry
    /// TLS: a refused connection is closed without an answer.
    let secure: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let registry = self.registry
        switch registry.admit(channel) {
        case .refused:
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RefusedConnectionHandler(answer: !secure))
                return Value.refused(channel)
            }
        case .admitted(let ticket):
            channel.closeFuture.whenComplete { _ in registry.release(ticket) }
            let guarded = channel.eventLoop.makeCompletedFuture {
                let watch = ConnectionWatch(channel: channel, clock: ConnectionClock(policy: registry.timeouts, now: channel.eventLoop.now),
                                            registry: registry, ticket: ticket)
                try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(watch: watch), position: .first)
            }
            return guarded.flatMap {
                inner.setup(channel: channel, logger: logger)
            }.flatMapThrowing { value in
                try RequestProbe.attach(to: channel)
                return Value.served(value)
            }
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard case .served(let served) = value else { return }
        await inner.handle(value: served, logger: logger)
    }
}
