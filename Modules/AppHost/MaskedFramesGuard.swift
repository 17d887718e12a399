import NIOCore
import NIOHTTP1

/// RFC 6455 §5.1: every frame a client sends is masked, and a server that receives an unmasked one
/// closes the connection with 1002 (protocol error). NIO's frame decoder takes unmasked frames as
/// they come, so this handler watches the bytes of an upgraded connection, frame header by frame
/// header, in front of the decoder: the first unmasked frame gets a close frame with 1002 and the
/// connection is closed; masked frames pass untouched (nothing is copied or buffered).
///
/// Added when an upgrade is accepted (`shouldUpgrade`, once the request's head is read), just
/// before the HTTP decoder (after TLS): every byte that comes after is the client's frames.
final class MaskedFramesGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let protocolError: UInt16 = 1002
    static let reason = "Client frames must be masked (RFC 6455, 5.1)."

    /// Payload bytes of the current frame still to pass.
    private var payloadLeft: UInt64 = 0
    /// The current frame's header, as far as it has come.
    private var header: [UInt8] = []
    private var closed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        if inspect(unwrapInboundIn(data)) {
            context.fireChannelRead(data)
        } else {
            refuse(context: context)
        }
    }

    /// Walks the frame headers in `buffer`; false at the first unmasked frame.
    func inspect(_ buffer: ByteBuffer) -> Bool {
        var view = buffer.readableBytesView[...]
        while !view.isEmpty {
            if payloadLeft > 0 {
                let skipped = min(UInt64(view.count), payloadLeft)
                view = view.dropFirst(Int(skipped))
                payloadLeft -= skipped
                continue
            }
            header.append(view.removeFirst())
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return false }
            let short = header[1] & 0x7F
            let extended = short == 126 ? 2 : short == 127 ? 8 : 0
            guard header.count == 2 + extended + 4 else { continue }
            payloadLeft = extended == 0 ? UInt64(short) : header[2..<(2 + extended)].reduce(0) { $0 << 8 | UInt64($1) }
            header.removeAll(keepingCapacity: true)
        }
        return true
    }

    private func refuse(context: ChannelHandlerContext) {
        closed = true
        var frame = context.channel.allocator.buffer(capacity: 4 + Self.reason.utf8.count)
        frame.writeInteger(UInt8(0x88))  // FIN, close
        frame.writeInteger(UInt8(2 + Self.reason.utf8.count))  // unmasked: the server's frames are not
        frame.writeInteger(Self.protocolError)
        frame.writeString(Self.reason)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
    }
}

extension MaskedFramesGuard {
    /// Puts a guard in front of `channel`'s HTTP decoder; on the channel's event loop.
    static func attach(to channel: any Channel) {
        guard let decoder = try? channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        try? channel.pipeline.syncOperations.addHandler(MaskedFramesGuard(), position: .before(decoder))
    }
}
