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
        headers.first { ASCII.equalIgnoringCase($0.0, name) }?.1
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

    /// The subjects this connection is sent to, made once.
    private var subjects = SubjectCache()

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let operation = try Self.parse(&buffer, subjects: &subjects) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(operation))
        return .continue
    }

    /// One operation off the front of `buffer`, or nil (and `buffer` untouched) when more bytes are needed.
    static func parse(_ buffer: inout ByteBuffer) throws -> ServerOperation? {
        var subjects = SubjectCache()
        return try parse(&buffer, subjects: &subjects)
    }

    /// One operation off the front of `buffer`; a message's subject taken from `subjects` when it was seen before.
    static func parse(_ buffer: inout ByteBuffer, subjects: inout SubjectCache) throws -> ServerOperation? {
        // Messages, nearly everything a busy connection reads, straight from the bytes.
        switch MessageLine.read(buffer, subjects: &subjects) {
        case .notMessage: break
        case .incomplete: return nil
        case .message(let line): return line.take(from: &buffer)
        case .malformed(let line): throw NATSProtocolError(description: "a malformed message line from the server: \(line.prefix(200))")
        }
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
        default:
            throw NATSProtocolError(description: "an unknown operation from the server: \(line.prefix(200))")
        }
    }

    private static func split(_ line: String) -> (String, String) {
        guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { return (line, "") }
        return (String(line[..<space]), String(line[line.index(after: space)...]).trimmingCharacters())
    }
}

/// The subjects a connection's messages come on, each made into a `String` once: a request's or an
/// event's subject is the same on every message of its subscription, and a subject of over 15 bytes
/// made from bytes is an allocation. A reply's subject (`_INBOX.…`) is its own each time and not kept.
struct SubjectCache {
    static let capacity = 16
    private var kept: [String] = []
    private var next = 0

    mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        if bytes.starts(with: Self.inbox) { return String(decoding: bytes, as: UTF8.self) }
        for subject in kept where subject.utf8.count == bytes.count {
            let same = subject.utf8.withContiguousStorageIfAvailable { UnsafeRawBufferPointer($0).elementsEqual(bytes) } ?? subject.utf8.elementsEqual(bytes)
            if same { return subject }
        }
        let subject = String(decoding: bytes, as: UTF8.self)
        if kept.count < Self.capacity {
            kept.append(subject)
        } else {
            kept[next] = subject
            next = (next + 1) % Self.capacity
        }
        return subject
    }

    private static let inbox = Array("_INBOX.".utf8)
}

/// A `MSG` or `HMSG` line read from the bytes, without making strings of what is not kept.
struct MessageLine {
    enum Outcome {
        /// Another operation: the general parser reads it.
        case notMessage
        /// Not what NATS sends: the line, for the refusal.
        case malformed(String)
        /// The line, or the payload after it, has not all arrived.
        case incomplete
        case message(MessageLine)
    }

    var subject: String
    var sid: UInt64
    var replyTo: String?
    /// Bytes from the reader index to the payload's headers (the line and its CRLF).
    var lineLength: Int
    var headerSize: Int
    var totalSize: Int
    var headered: Bool

    static func read(_ buffer: ByteBuffer, subjects: inout SubjectCache) -> Outcome {
        buffer.withUnsafeReadableBytes { bytes -> Outcome in
            // "MSG " or "HMSG ", in any case.
            let headered: Bool
            if bytes.count >= 4, ASCII.upper(bytes[0]) == UInt8(ascii: "M"), ASCII.upper(bytes[1]) == UInt8(ascii: "S"),
               ASCII.upper(bytes[2]) == UInt8(ascii: "G"), ASCII.isBlank(bytes[3]) {
                headered = false
            } else if bytes.count >= 5, ASCII.upper(bytes[0]) == UInt8(ascii: "H"), ASCII.upper(bytes[1]) == UInt8(ascii: "M"),
                      ASCII.upper(bytes[2]) == UInt8(ascii: "S"), ASCII.upper(bytes[3]) == UInt8(ascii: "G"), ASCII.isBlank(bytes[4]) {
                headered = true
            } else {
                return .notMessage
            }
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
                if bytes.count > NATSDecoder.maxLine { return .notMessage }  // the general parser says why
                return .incomplete
            }
            var end = newline
            if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            func malformed() -> Outcome {
                .malformed(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self))
            }
            // Up to five fields after the verb: subject sid [reply] [header-size] total-size (on the
            // stack: no allocation per message).
            var fields = InlineArray<5, Range<Int>>(repeating: 0..<0)
            var count = 0
            var index = headered ? 5 : 4
            while index < end {
                while index < end, ASCII.isBlank(bytes[index]) { index += 1 }
                guard index < end else { break }
                let start = index
                while index < end, !ASCII.isBlank(bytes[index]) { index += 1 }
                guard count < 5 else { return malformed() }
                fields[count] = start..<index
                count += 1
            }
            let sizes = headered ? 2 : 1
            guard count == 2 + sizes || count == 3 + sizes,
                  let sid = ASCII.number(bytes, fields[1]),
                  let total = ASCII.number(bytes, fields[count - 1]),
                  let headerSize = headered ? ASCII.number(bytes, fields[count - 2]) : 0,
                  headerSize <= total, total <= UInt64(Int32.max)
            else { return malformed() }
            let lineLength = newline + 1
            guard bytes.count >= lineLength + Int(total) + 2 else { return .incomplete }
            func string(_ range: Range<Int>) -> String {
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            return .message(MessageLine(subject: subjects.string(UnsafeRawBufferPointer(rebasing: bytes[fields[0]])), sid: sid,
                                        replyTo: count == 3 + sizes ? string(fields[2]) : nil,
                                        lineLength: lineLength, headerSize: Int(headerSize), totalSize: Int(total), headered: headered))
        }
    }

    /// The message, its bytes moved past in `buffer`.
    func take(from buffer: inout ByteBuffer) -> ServerOperation {
        buffer.moveReaderIndex(forwardBy: lineLength)
        var status: Int?
        var headers: [(String, String)] = []
        if headered, let block = buffer.readSlice(length: headerSize) {
            (status, headers) = Self.headers(block)
        }
        let payload = buffer.readSlice(length: totalSize - headerSize) ?? ByteBuffer()
        buffer.moveReaderIndex(forwardBy: 2)
        return .message(NATSMessage(subject: subject, sid: sid, replyTo: replyTo, status: status, headers: headers, payload: payload))
    }

    /// `NATS/1.0 503\r\nKey: Value\r\n…\r\n\r\n` into the status and the headers, from the bytes, in
    /// one pass. A name the bus sends on every request (``knownNames``) is not made again: its
    /// `String` is the program's own constant, no allocation per message.
    static func headers(_ block: ByteBuffer) -> (Int?, [(String, String)]) {
        block.withUnsafeReadableBytes { bytes in
            var status: Int?
            var headers: [(String, String)] = []
            var first = true
            var start = 0
            while start < bytes.count {
                var next = start
                while next < bytes.count, bytes[next] != UInt8(ascii: "\n") { next += 1 }
                var end = next
                if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                defer { start = next + 1 }
                guard end > start else { continue }
                if first {
                    first = false
                    guard end - start >= 5, bytes[start..<start + 5].elementsEqual("NATS/".utf8) else { return (nil, []) }
                    // The status: the field after the version, if any.
                    var index = start
                    while index < end, !ASCII.isBlank(bytes[index]) { index += 1 }
                    while index < end, ASCII.isBlank(bytes[index]) { index += 1 }
                    let statusStart = index
                    while index < end, !ASCII.isBlank(bytes[index]) { index += 1 }
                    if statusStart < index, let number = ASCII.number(bytes, statusStart..<index), number <= 999 { status = Int(number) }
                    continue
                }
                guard let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")) else { continue }
                var valueStart = colon + 1, valueEnd = end
                while valueStart < valueEnd, ASCII.isBlank(bytes[valueStart]) { valueStart += 1 }
                while valueEnd > valueStart, ASCII.isBlank(bytes[valueEnd - 1]) { valueEnd -= 1 }
                let name = UnsafeRawBufferPointer(rebasing: bytes[start..<colon])
                headers.append((knownNames.first { $0.utf8.elementsEqual(name) } ?? String(decoding: name, as: UTF8.self),
                                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)))
            }
            return (status, headers)
        }
    }

    /// Header names the bus puts on its requests, kept as constants (each is over 15 bytes: a
    /// `String` made from bytes would be allocated).
    static let knownNames = ["Quire-Timeout-Ms", "Quire-Request-Id"]
}

/// ASCII on bytes, for the protocol's lines.
enum ASCII {
    static func upper(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// A decimal number of at most 18 digits (larger is not a size NATS sends).
    static func number(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> UInt64? {
        guard !range.isEmpty, range.count <= 18 else { return nil }
        var value: UInt64 = 0
        for index in range {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + UInt64(digit)
        }
        return value
    }

    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8) { upper($0) == upper($1) }
    }
}

/// The client's side of the protocol, written into a buffer.
enum ClientOperation {
    static func connect(_ json: String, into buffer: inout ByteBuffer) {
        buffer.writeString("CONNECT ")
        buffer.writeString(json)
        buffer.writeString("\r\nPING\r\n")
    }

    /// `PUB subject [reply] size` or `HPUB subject [reply] header-size total-size`, the headers, the
    /// payload: written straight into the buffer (a request's hot path makes no strings here).
    static func publish(subject: String, replyTo: String?, headers: [(String, String)], payload: ByteBuffer, into buffer: inout ByteBuffer) {
        let headerSize = headers.isEmpty ? 0 : headers.reduce(12) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }  // NATS/1.0␍␊ … ␍␊
        buffer.writeStaticString(headers.isEmpty ? "PUB " : "HPUB ")
        buffer.writeString(subject)
        if let replyTo {
            buffer.writeInteger(UInt8(ascii: " "))
            buffer.writeString(replyTo)
        }
        if !headers.isEmpty {
            buffer.writeInteger(UInt8(ascii: " "))
            writeDecimal(headerSize, into: &buffer)
        }
        buffer.writeInteger(UInt8(ascii: " "))
        writeDecimal(headerSize + payload.readableBytes, into: &buffer)
        buffer.writeStaticString("\r\n")
        if !headers.isEmpty {
            buffer.writeStaticString("NATS/1.0\r\n")
            for (name, value) in headers {
                buffer.writeString(name)
                buffer.writeStaticString(": ")
                buffer.writeString(value)
                buffer.writeStaticString("\r\n")
            }
            buffer.writeStaticString("\r\n")
        }
        var payload = payload
        buffer.writeBuffer(&payload)
        buffer.writeStaticString("\r\n")
    }

    /// A non-negative number's decimal digits.
    static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = max(0, value)
        withUnsafeMutableBytes(of: &digits) { digits in
            repeat {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: digits[(20 - count)...]))
        }
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
