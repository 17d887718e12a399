@testable import BusNATS
import NIOCore
import Testing

/// The server's side of the NATS protocol, read from bytes as they arrive: whole, a byte at a time,
/// or cut anywhere.
@Suite("NATS protocol: reading the server")
struct NATSProtocolTests {
    /// Every operation `bytes` holds, read as if they arrived in pieces of `piece` bytes.
    static func operations(_ bytes: [UInt8], piece: Int) throws -> [ServerOperation] {
        var buffer = ByteBuffer()
        var operations: [ServerOperation] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            buffer.writeBytes(bytes[offset..<end])
            offset = end
            while let operation = try NATSDecoder.parse(&buffer) { operations.append(operation) }
        }
        #expect(buffer.readableBytes == 0, "bytes left over")
        return operations
    }

    static let stream: [UInt8] = Array((
        "INFO {\"server_id\":\"x\",\"max_payload\":1048576}\r\n"
            + "PING\r\n"
            + "MSG quire.event.a.v1 7 5\r\nhello\r\n"
            + "MSG _INBOX.abc.1z 12 _INBOX.reply 4\r\na\r\nb\r\n"
            + "HMSG _INBOX.abc.2 3 46 50\r\nNATS/1.0\r\nQuire-Timeout-Ms: 2500\r\nX-Y:  z \r\n\r\n{\"a\"\r\n"
            + "HMSG _INBOX.abc.3 3 16 16\r\nNATS/1.0 503\r\n\r\n\r\n"
            + "MSG empty 1 0\r\n\r\n"
            + "+OK\r\n"
            + "PONG\r\n"
            + "-ERR 'Slow Consumer'\r\n"
    ).utf8)

    static let expected: [ServerOperation] = [
        .info(ByteBuffer(string: "{\"server_id\":\"x\",\"max_payload\":1048576}")),
        .ping,
        .message(NATSMessage(subject: "quire.event.a.v1", sid: 7, replyTo: nil, status: nil, headers: [], payload: ByteBuffer(string: "hello"))),
        .message(NATSMessage(subject: "_INBOX.abc.1z", sid: 12, replyTo: "_INBOX.reply", status: nil, headers: [], payload: ByteBuffer(string: "a\r\nb"))),
        .message(NATSMessage(subject: "_INBOX.abc.2", sid: 3, replyTo: nil, status: nil,
                             headers: [("Quire-Timeout-Ms", "2500"), ("X-Y", "z")], payload: ByteBuffer(string: "{\"a\""))),
        .message(NATSMessage(subject: "_INBOX.abc.3", sid: 3, replyTo: nil, status: 503, headers: [], payload: ByteBuffer())),
        .message(NATSMessage(subject: "empty", sid: 1, replyTo: nil, status: nil, headers: [], payload: ByteBuffer())),
        .ok,
        .pong,
        .error("Slow Consumer"),
    ]

    @Test("every operation, whatever pieces the bytes arrive in", arguments: [1, 2, 3, 5, 8, 13, 64, 4096])
    func pieces(_ piece: Int) throws {
        #expect(try Self.operations(Self.stream, piece: piece) == Self.expected)
    }

    @Test("a header is found whatever its case; the first of two wins")
    func headers() throws {
        let bytes = Array("HMSG s 1 54 54\r\nNATS/1.0\r\nquire-timeout-ms: 7\r\nQuire-Timeout-Ms: 9\r\n\r\n\r\n".utf8)
        guard case .message(let message)? = try Self.operations(bytes, piece: 1000).first else {
            Issue.record("no message")
            return
        }
        #expect(message.header("Quire-Timeout-Ms") == "7")
        #expect(message.header("QUIRE-TIMEOUT-MS") == "7")
        #expect(message.header("Quire-Request-Id") == nil)
        // Each name as written: the bus's own names are kept as constants only when spelled alike.
        #expect(message.headers.map(\.0) == ["quire-timeout-ms", "Quire-Timeout-Ms"])
    }

    @Test("a header name that begins as one of the bus's own is its own name; a line without a colon is skipped")
    func headerNames() throws {
        let block = ByteBuffer(string: "NATS/1.0\r\nQuire-Request-Identity: a\r\nQuire-Request-Id: b\r\nno colon\nQuire-Timeout-M: 3\r\n\r\n")
        let (status, headers) = MessageLine.headers(block)
        #expect(status == nil)
        #expect(headers.map(\.0) == ["Quire-Request-Identity", "Quire-Request-Id", "Quire-Timeout-M"])
        #expect(headers.map(\.1) == ["a", "b", "3"])
        let notNATS = MessageLine.headers(ByteBuffer(string: "HTTP/1.1 200\r\nA: b\r\n\r\n"))
        #expect(notNATS.0 == nil && notNATS.1.isEmpty)
    }

    @Test("what is not NATS is refused, saying what it was", arguments: [
        "MSG subject\r\n",                          // no sid, no size
        "MSG subject x 5\r\nhello\r\n",              // a sid that is not a number
        "MSG subject 1 -5\r\nhello\r\n",             // a negative size
        "HMSG subject 1 9 5\r\nhello\r\n",           // headers longer than the whole
        "HELLO there\r\n",                           // no such operation
    ])
    func malformed(_ text: String) {
        var buffer = ByteBuffer(string: text)
        #expect(throws: NATSProtocolError.self) { _ = try NATSDecoder.parse(&buffer) }
    }

    @Test("a line with no end longer than the limit is refused; shorter, more bytes are awaited")
    func longLine() throws {
        var short = ByteBuffer(string: "INFO " + String(repeating: "x", count: 1000))
        #expect(try NATSDecoder.parse(&short) == nil)
        var long = ByteBuffer(string: "INFO " + String(repeating: "x", count: NATSDecoder.maxLine + 1))
        #expect(throws: NATSProtocolError.self) { _ = try NATSDecoder.parse(&long) }
    }

    @Test("what the client publishes, byte for byte: PUB, PUB with a reply subject, HPUB with headers")
    func publish() {
        func written(_ replyTo: String?, _ headers: [(String, String)], _ payload: String) -> String {
            var buffer = ByteBuffer()
            ClientOperation.publish(subject: "quire.request.a.v1", replyTo: replyTo, headers: headers, payload: ByteBuffer(string: payload), into: &buffer)
            return String(buffer: buffer)
        }
        #expect(written(nil, [], "hello") == "PUB quire.request.a.v1 5\r\nhello\r\n")
        #expect(written("_INBOX.x.1", [], "") == "PUB quire.request.a.v1 _INBOX.x.1 0\r\n\r\n")
        let block = "NATS/1.0\r\nQuire-Timeout-Ms: 2500\r\nQuire-Request-Id: r-é\r\n\r\n"
        #expect(written("_INBOX.x.2", [("Quire-Timeout-Ms", "2500"), ("Quire-Request-Id", "r-é")], "{}")
            == "HPUB quire.request.a.v1 _INBOX.x.2 \(block.utf8.count) \(block.utf8.count + 2)\r\n\(block){}\r\n")
        var large = ByteBuffer()
        ClientOperation.writeDecimal(1_234_567_890, into: &large)
        ClientOperation.writeDecimal(0, into: &large)
        #expect(String(buffer: large) == "12345678900")
    }
}
