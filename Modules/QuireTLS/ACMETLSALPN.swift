public import NIOCore
import NIOSSL

/// The first bytes of a TLS connection, read before the TLS handler sees them: the ClientHello's
/// server name (SNI) and the protocols it offers (ALPN), for TLS-ALPN-01 (RFC 8737), where the CA
/// connects offering only `acme-tls/1` and must get the challenge's certificate instead of the
/// server's.
public struct ClientHello: Sendable, Equatable {
    public var serverName: String?
    public var protocols: [String]

    public init(serverName: String?, protocols: [String]) {
        self.serverName = serverName
        self.protocols = protocols
    }

    /// What the bytes say: nil while they hold less than the first record, `.some(nil)` when they
    /// are not a TLS ClientHello this reader understands.
    public static func parse(_ bytes: [UInt8]) -> ClientHello?? {
        guard bytes.count >= 5 else { return .none }
        guard bytes[0] == 0x16 else { return .some(nil) }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        guard bytes.count >= 5 + length else { return .none }
        var reader = Reader(bytes: bytes[5..<(5 + length)])
        guard reader.byte() == 0x01, reader.skip(3), reader.skip(2 + 32),
              let session = reader.byte(), reader.skip(Int(session)),
              let suites = reader.uint16(), reader.skip(suites),
              let compression = reader.byte(), reader.skip(Int(compression)),
              let extensionsLength = reader.uint16(), var extensions = reader.take(extensionsLength) else { return .some(nil) }
        var hello = ClientHello(serverName: nil, protocols: [])
        while let type = extensions.uint16(), let size = extensions.uint16(), var body = extensions.take(size) {
            if type == 0x0000, body.skip(2), body.byte() == 0, let nameLength = body.uint16(), let name = body.take(nameLength) {
                hello.serverName = String(decoding: name.bytes, as: UTF8.self).lowercased()
            } else if type == 0x0010, let listLength = body.uint16(), var list = body.take(listLength) {
                while let protocolLength = list.byte(), let name = list.take(Int(protocolLength)) {
                    hello.protocols.append(String(decoding: name.bytes, as: UTF8.self))
                }
            }
        }
        return .some(hello)
    }

    struct Reader {
        var bytes: ArraySlice<UInt8>

        mutating func byte() -> UInt8? { bytes.popFirst() }
        mutating func uint16() -> Int? {
            guard let high = byte(), let low = byte() else { return nil }
            return Int(high) << 8 | Int(low)
        }
        mutating func skip(_ count: Int) -> Bool { take(count) != nil }
        mutating func take(_ count: Int) -> Reader? {
            guard count >= 0, bytes.count >= count else { return nil }
            defer { bytes = bytes.dropFirst(count) }
            return Reader(bytes: bytes.prefix(count))
        }
    }
}

/// Put before the TLS handler while a TLS-ALPN-01 challenge is pending: reads the ClientHello,
/// then adds the TLS handler with the challenge's context (a ClientHello offering `acme-tls/1` for
/// a domain with a pending challenge) or the server's, and steps aside.
public final class ACMEALPNSelector: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    let certificates: TLSCertificates
    private var buffered: ByteBuffer?

    public init(certificates: TLSCertificates) {
        self.certificates = certificates
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffered == nil {
            buffered = incoming
        } else {
            buffered?.writeBuffer(&incoming)
        }
        guard let bytes = buffered else { return }
        let parsed = ClientHello.parse(Array(bytes.readableBytesView))
        guard case .some(let hello) = parsed else {
            // Wait for the rest of the first record; a ClientHello is never this long.
            if bytes.readableBytes > 1 << 15 { decide(context: context, hello: nil) }
            return
        }
        decide(context: context, hello: hello)
    }

    private func decide(context: ChannelHandlerContext, hello: ClientHello?) {
        var sslContext = certificates.context
        if let hello, hello.protocols.contains("acme-tls/1"), let challenge = certificates.acmeChallengeContext(serverName: hello.serverName) {
            sslContext = challenge
        }
        do {
            try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext), position: .after(self))
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if let bytes = buffered {
            buffered = nil
            context.fireChannelRead(wrapInboundOut(bytes))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

extension TLSCertificates {
    /// A context answering TLS-ALPN-01 for `domain` (RFC 8737): the challenge's self-signed
    /// certificate, and `acme-tls/1` as the only protocol.
    static func acmeChallengeContext(certPEM: [UInt8], keyPEM: [UInt8]) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMBytes(certPEM)
        let key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.applicationProtocols = ["acme-tls/1"]
        return try NIOSSLContext(configuration: configuration)
    }
}
