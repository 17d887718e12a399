public import NIOCore

/// What a NATS server sends, one operation at a time (the client protocol, text lines ending in
/// CRLF, a message's payload after its line): https://docs.nats.io/reference/reference-protocols/nats-protocol
enum ServerOperation: Equatable {
    /// The server's description of itself (JSON), first on connect and again when the cluster changes.
    case info(ByteBuffer)
    case message(NATSMessage)
    case ping
    case pong
    case ok
    /// A protocol error; the server closes the connection after most of them.
    case error(String)
}

/// A message delivered to a subscription.
public struct NATSMessage: Sendable, Equatable {
    public var subject: String
    public var sid: UInt64
    public var replyTo: String?
    /// The status on a headers block's first line (`NATS/1.0 503`: no one subscribes to the subject).
    public var status: Int?
    public var headers: [(String, String)]
    public var payload: ByteBuffer

    public static func == (a: NATSMessage, b: NATSMessage) -> Bool {
        a.subject == b.subject && a.sid == b.sid && a.replyTo == b.replyTo && a.status == b.status
            && a.headers.elementsEqual(b.headers, by: ==) && a.payload == b.payload
    }

    /// The value of the first header named `name` (case-insensitive, as HTTP's).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// Why the bytes a server sent cannot be read; the connection is closed and made again.
struct NATSProtocolError: Error, CustomStringConvertible {
    var description: String
}

/// Splits the server's bytes into ``ServerOperation``s.
struct NATSDecoder: ByteToMessageDecoder {
    typealias InboundOut = ServerOperation

    /// A control line longer than this is not NATS (the server's own limit is 4 KB; INFO can be longer
    /// with many cluster addresses).
    static let maxLine = 64 * 1024

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let operation = try Self.parse(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(operation))
        return .continue
    }

    /// One operation off the front of `buffer`, or nil (and `buffer` untouched) when more bytes are needed.
    static func parse(_ buffer: inout ByteBuffer) throws -> ServerOperation? {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > maxLine { throw NATSProtocolError(description: "a line from the server is longer than \(maxLine) bytes") }
            return nil
        }
        var lineEnd = newline
        if lineEnd > view.startIndex, view[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        let lineLength = lineEnd - view.startIndex
        let consumedLine = newline + 1 - view.startIndex
        guard let line = buffer.getString(at: buffer.readerIndex, length: lineLength) else { return nil }
        let (verb, rest) = split(line)
        switch verb.uppercased() {
        case "PING":
            buffer.moveReaderIndex(forwardBy: consumedLine)
            return .ping
        case "PONG":
            buffer.moveReaderIndex(forwardBy: consumedLine)
            return .pong
        case "+OK":
            buffer.moveReaderIndex(forwardBy: consumedLine)
            return .ok
        case "-ERR":
            buffer.moveReaderIndex(forwardBy: consumedLine)
            return .error(rest.trimmingQuotes())
        case "INFO":
            buffer.moveReaderIndex(forwardBy: consumedLine)
            var json = ByteBuffer()
            json.writeString(rest)
            return .info(json)
        case "MSG", "HMSG":
            let headered = verb.uppercased() == "HMSG"
            let fields = rest.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            // MSG subject sid [reply] size; HMSG subject sid [reply] header-size total-size
            let sizes = headered ? 2 : 1
            guard fields.count == 2 + sizes || fields.count == 3 + sizes,
                  let sid = UInt64(fields[1]),
                  let total = Int(fields[fields.count - 1]), total >= 0,
                  let headerSize = headered ? Int(fields[fields.count - 2]) : 0, headerSize >= 0, headerSize <= total
            else { throw NATSProtocolError(description: "a malformed \(verb) line from the server: \(line.prefix(200))") }
            let replyTo = fields.count == 3 + sizes ? fields[2] : nil
            // The payload and its CRLF must all be here.
            guard buffer.readableBytes >= consumedLine + total + 2 else { return nil }
            buffer.moveReaderIndex(forwardBy: consumedLine)
            var status: Int?
            var headers: [(String, String)] = []
            if headered, let block = buffer.readString(length: headerSize) {
                (status, headers) = parseHeaders(block)
            }
            guard let payload = buffer.readSlice(length: total - headerSize) else { return nil }
            buffer.moveReaderIndex(forwardBy: 2)
            return .message(NATSMessage(subject: fields[0], sid: sid, replyTo: replyTo, status: status, headers: headers, payload: payload))
        default:
            throw NATSProtocolError(description: "an unknown operation from the server: \(line.prefix(200))")
        }
    }

    /// `NATS/1.0 503\r\nKey: Value\r\n…\r\n\r\n` into the status and the headers.
    static func parseHeaders(_ block: String) -> (Int?, [(String, String)]) {
        var lines = block.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let first = lines.first, first.hasPrefix("NATS/") else { return (nil, []) }
        lines.removeFirst()
        let statusField = first.split(separator: " ").dropFirst().first
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters())
        }
        return (statusField.flatMap { Int($0) }, headers)
    }

    private static func split(_ line: String) -> (String, String) {
        guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (line, "") }
        return (String(line[..<space]), String(line[line.index(after: space)...]).trimmingCharacters())
    }
}

/// The client's side of the protocol, written into a buffer.
enum ClientOperation {
    static func connect(_ json: String, into buffer: inout ByteBuffer) {
        buffer.writeString("CONNECT ")
        buffer.writeString(json)
        buffer.writeString("\r\nPING\r\n")
    }

    static func publish(subject: String, replyTo: String?, headers: [(String, String)], payload: ByteBuffer, into buffer: inout ByteBuffer) {
        let reply = replyTo.map { " " + $0 } ?? ""
        if headers.isEmpty {
            buffer.writeString("PUB \(subject)\(reply) \(payload.readableBytes)\r\n")
        } else {
            var block = "NATS/1.0\r\n"
            for (name, value) in headers { block += "\(name): \(value)\r\n" }
            block += "\r\n"
            let headerSize = block.utf8.count
            buffer.writeString("HPUB \(subject)\(reply) \(headerSize) \(headerSize + payload.readableBytes)\r\n")
            buffer.writeString(block)
        }
        var payload = payload
        buffer.writeBuffer(&payload)
        buffer.writeString("\r\n")
    }

    static func subscribe(subject: String, queue: String?, sid: UInt64, into buffer: inout ByteBuffer) {
        buffer.writeString("SUB \(subject)\(queue.map { " " + $0 } ?? "") \(sid)\r\n")
    }

    static func unsubscribe(sid: UInt64, into buffer: inout ByteBuffer) {
        buffer.writeString("UNSUB \(sid)\r\n")
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return String(text)
    }

    fileprivate func trimmingQuotes() -> String {
        var text = trimmingCharacters()[...]
        if text.hasPrefix("'"), text.hasSuffix("'"), text.count >= 2 { text = text.dropFirst().dropLast() }
        return String(text)
    }
}
