@testable import AppHost
import NIOCore
import NIOEmbedded
import Testing

/// RFC 6455 §5.1: a client's unmasked frame closes the connection with 1002 (it got the session's
/// 4401 "sign in" before); masked frames pass as they came, however the reads split them.
@Suite("WebSocket: unmasked client frames")
struct MaskedFramesGuardTests {
    /// A text frame of `payload`, masked with `key` when given.
    static func frame(_ payload: [UInt8], key: [UInt8]?) -> [UInt8] {
        var bytes: [UInt8] = [0x81]
        let mask: UInt8 = key == nil ? 0 : 0x80
        switch payload.count {
        case ..<126: bytes.append(mask | UInt8(payload.count))
        case ..<65_536: bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [mask | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard let key else { return bytes + payload }
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    @Test("masked frames of every length encoding pass untouched, split anywhere")
    func masked() throws {
        let channel = EmbeddedChannel(handler: MaskedFramesGuard())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        #expect(channel.isActive)
        var stream: [UInt8] = []
        for size in [0, 5, 125, 126, 300, 70_000] {
            stream += Self.frame(Array(repeating: 0x61, count: size), key: [1, 2, 3, 4])
        }
        var passed = 0
        for chunk in stride(from: 0, to: stream.count, by: 7) {
            try channel.writeInbound(ByteBuffer(bytes: stream[chunk..<min(stream.count, chunk + 7)]))
        }
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { passed += buffer.readableBytes }
        #expect(passed == stream.count)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect(channel.isActive)
    }

    @Test("an unmasked frame, even after masked ones: a close frame with 1002 and the connection closed, nothing passed on")
    func unmasked() throws {
        let channel = EmbeddedChannel(handler: MaskedFramesGuard())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        #expect(channel.isActive)
        try channel.writeInbound(ByteBuffer(bytes: Self.frame(Array("{\"type\":\"auth\"}".utf8), key: [9, 8, 7, 6])))
        _ = try channel.readInbound(as: ByteBuffer.self)
        try channel.writeInbound(ByteBuffer(bytes: Self.frame(Array("{\"type\":\"auth\"}".utf8), key: nil)))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil, "the unmasked frame is not handed on")
        var close = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(close.readInteger(as: UInt8.self) == 0x88)
        _ = close.readInteger(as: UInt8.self)
        #expect(close.readInteger(as: UInt16.self) == 1002)
        #expect(close.readString(length: close.readableBytes)?.contains("masked") == true)
        #expect(!channel.isActive)
    }
}
