import Foundation
import NIOCore
import NIOSSL
import Synchronization

/// The outcome of a handshake, completed once by whichever side knows first (the channel, or a failed connect).
final class Handshake: Sendable {
    private let promise: EventLoopPromise<ByteBuffer>
    private let done = Atomic<Bool>(false)

    init(_ promise: EventLoopPromise<ByteBuffer>) { self.promise = promise }

    var result: EventLoopFuture<ByteBuffer> { promise.futureResult }

    func succeed(_ info: ByteBuffer) {
        if done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged { promise.succeed(info) }
    }

    func fail(_ error: any Error) {
        if done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged { promise.fail(error) }
    }
}

/// Reads the handshake (INFO → CONNECT and PING → PONG), then hands every operation to the connection.
final class NATSChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ServerOperation

    private weak var connection: NATSConnection?
    private var handshake: Handshake?
    private var info: ByteBuffer?
    private let connectJSON: String
    /// Added in front of the pipeline once the server's INFO has come (NATS starts in the clear).
    private var tls: NIOSSLClientHandler?
    private let server: String

    init(connection: NATSConnection, handshake: Handshake, connectJSON: String, tls: NIOSSLClientHandler?, server: String) {
        self.connection = connection
        self.handshake = handshake
        self.connectJSON = connectJSON
        self.tls = tls
        self.server = server
    }

    private struct TLSOffer: Decodable {
        var tls_required: Bool?
        var tls_available: Bool?
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let operation = unwrapInboundIn(data)
        if let handshake {
            switch operation {
            case .info(let json) where info == nil:
                info = json
                let offer = try? JSONDecoder().decode(TLSOffer.self, from: Data(json.readableBytesView))
                let offered = offer?.tls_required == true || offer?.tls_available == true
                if let tls {
                    guard offered else {
                        fail(handshake, NATSError(kind: .refused, message: "NATS at \(server) does not offer TLS; use nats:// or turn TLS on at the server."),
                             context: context)
                        return
                    }
                    self.tls = nil
                    do {
                        try context.pipeline.syncOperations.addHandler(tls, position: .first)
                    } catch {
                        fail(handshake, NATSError(kind: .unreachable, message: "TLS to NATS at \(server) could not start."), context: context)
                        return
                    }
                } else if offer?.tls_required == true {
                    fail(handshake, NATSError(kind: .refused, message: "NATS at \(server) requires TLS; write the URL as tls://\(server) "
                                              + "(and bus.tls_ca_file for a private CA)."), context: context)
                    return
                }
                var buffer = context.channel.allocator.buffer(capacity: connectJSON.utf8.count + 16)
                ClientOperation.connect(connectJSON, into: &buffer)
                context.writeAndFlush(NIOAny(buffer), promise: nil)
            case .pong:
                self.handshake = nil
                handshake.succeed(info ?? ByteBuffer())
            case .error(let text):
                let refused = text.lowercased().contains("authorization") || text.lowercased().contains("authentication")
                fail(handshake, NATSError(kind: refused ? .refused : .unreachable,
                                          message: refused ? "NATS refused the credentials in the URL (\(text)); check the user and password or token."
                                                           : "NATS refused the connection: \(text)."), context: context)
            default:
                break
            }
            return
        }
        connection?.received(operation, on: context.channel)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if handshake == nil { connection?.readComplete() }
        context.fireChannelReadComplete()
    }

    private func fail(_ handshake: Handshake, _ error: NATSError, context: ChannelHandlerContext) {
        self.handshake = nil
        handshake.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let handshake {
            self.handshake = nil
            handshake.fail(NATSError(kind: .unreachable, message: "NATS closed the connection during the handshake."))
        }
        connection?.readComplete()
        connection?.lost(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let handshake, error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            // The certificate did not check out, or the TLS handshake broke: say so, not "closed".
            fail(handshake, NATSError(kind: .refused, message: "TLS with NATS at \(server) failed (\(error)); check that bus.tls_ca_file "
                                      + "holds the CA that signed the server's certificate and that the certificate names the host."),
                 context: context)
            return
        }
        context.close(promise: nil)
    }
}
