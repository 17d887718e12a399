import Foundation
import HTTPTypes
public import NIOCore
import NIOHTTP1
public import NIOHTTPTypes

/// Answers a request the HTTP parser refuses (a malformed chunk size, a 100 KB URL, a 1 MB header)
/// with a 400 problem document and closes the connection. Hummingbird's own answer is a bare 400
/// with no body, and an error met while a route reads the body became a 500.
///
/// It sits in the channel pipeline after the HTTP codec. On a parse error it writes the problem
/// itself (unless a response has already begun), then drops whatever the route or the server
/// writes afterwards for that connection: the client gets exactly one answer.
public final class ParseErrorProblemHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    private var responseStarted = false
    private var answered = false

    public init() {}

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if answered {
            promise?.succeed()
            return
        }
        switch unwrapOutboundIn(data) {
        case .head: responseStarted = true
        case .end: responseStarted = false
        case .body: break
        }
        context.write(data, promise: promise)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, !answered else {
            context.fireErrorCaught(error)
            return
        }
        if !responseStarted {
            let body = Self.problemBody(for: parseError)
            var head = HTTPResponse(status: .badRequest)
            head.headerFields[.contentType] = Problem.mediaType
            head.headerFields[.contentLength] = String(body.count)
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        answered = true
        // The route reading this request's body learns that it failed (it must not act on half a
        // body); its answer is dropped above.
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    public static func problemBody(for error: HTTPParserError) -> Data {
        let detail: String = switch error {
        case .invalidChunkSize:
            "The chunked request body is malformed (a chunk size is not a hexadecimal number the server accepts). Resend the request."
        case .headerOverflow:
            "The request's URL or headers are too large. Send a shorter URL (put large values in the body) and fewer or smaller headers."
        case .invalidURL:
            "The request's URL is not valid."
        case .invalidContentLength, .unexpectedContentLength:
            "The request's Content-Length is not valid."
        default:
            "The request is not valid HTTP/1.1 and could not be read."
        }
        let document: [String: JSONScalar] = [
            "type": .string(Problem.type(for: "bad_request")), "title": .string("Bad Request"), "status": .int(400),
            "code": .string("bad_request"), "detail": .string(detail),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(document)) ?? Data(#"{"code":"bad_request","status":400}"#.utf8)
    }
}
