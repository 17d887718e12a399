import HTTPKit
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The HTTP/1.1 channel with WebSocket upgrades, answering malformed request heads with a problem.
///
/// hummingbird-websocket adds a channel's own handlers (``ParseErrorProblemHandler``) only once it
/// knows the request is not an upgrade — after its head is parsed. A URL or header too large to
/// parse never gets that far, and the connection would close without an answer. So a small handler
/// goes in right behind the request decoder, answers a head that cannot be parsed, and lets every
/// later error through to ``ParseErrorProblemHandler`` as before.
struct UpgradableServer: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        let value = inner.setup(channel: channel, logger: logger)
        return channel.eventLoop.makeCompletedFuture {
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(HeadParseErrorHandler(), position: .after(decoder))
            // The connection's timeouts learn of its requests (over TLS too: this runs once ALPN chose HTTP/1.1).
            try RequestProbe.attach(to: channel)
        }.flatMap { value }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        var quieter = logger
        quieter.handler = ClosedBeforeRequestLogFilter(wrapped: logger.handler)
        await inner.handle(value: value, logger: quieter)
    }
}

/// hummingbird-websocket logs an error for every connection closed before its first request
/// ("Error handling upgrade result", the upgrade handler removed with the channel): a client that
/// connects and leaves, one closed by the head timeout or to make room. That is routine, not an
/// error (the timeouts' summary line counts them), so it is logged at debug.
struct ClosedBeforeRequestLogFilter: LogHandler {
    var wrapped: any LogHandler

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if event.level == .error, "\(event.message)" == "Error handling upgrade result",
           case .string(let type)? = event.metadata?["error.type"], type == "\(ChannelError.inappropriateOperationForState)" {
            event.level = .debug
            guard logLevel <= .debug else { return }
        }
        wrapped.log(event: event)
    }
}

/// Answers 400 with a problem document when the first request head on a connection cannot be parsed.
final class HeadParseErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var sawHead = false

    /// Gone once a head has parsed: later errors are ParseErrorProblemHandler's, and after an
    /// upgrade WebSocket frames, not HTTP parts, come this way.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        sawHead = true
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !sawHead, let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        sawHead = true
        let body = ParseErrorProblemHandler.problemBody(for: parseError)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: Problem.mediaType)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
