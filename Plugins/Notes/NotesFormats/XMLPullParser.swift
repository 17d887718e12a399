public import Foundation

/// Where a parser's bytes come from, a chunk at a time: a file, or bytes in memory (tests, fuzzing).
public protocol ByteChunks {
    /// Up to `max` more bytes; empty at the end.
    mutating func read(max: Int) throws -> [UInt8]
}

/// A file read in chunks, never whole.
public struct FileChunks: ByteChunks {
    let handle: FileHandle
    public init(_ url: URL) throws { handle = try FileHandle(forReadingFrom: url) }
    public mutating func read(max: Int) throws -> [UInt8] {
        guard let data = try handle.read(upToCount: max) else { return [] }
        return [UInt8](data)
    }
}

/// Bytes in memory, handed out `chunk` at a time (tests use tiny chunks to cross every boundary).
public struct MemoryChunks: ByteChunks {
    let bytes: [UInt8]
    let chunk: Int
    var offset = 0
    public init(_ bytes: [UInt8], chunk: Int = 1 << 16) {
        self.bytes = bytes
        self.chunk = Swift.max(1, chunk)
    }
    public mutating func read(max: Int) throws -> [UInt8] {
        let end = Swift.min(bytes.count, offset + Swift.min(max, chunk))
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// Why a file is not well-formed XML, and where.
public struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

/// A pull parser for the XML export files are: elements with attributes, text with the five
/// predefined entities and character references, CDATA; comments, processing instructions and the
/// DOCTYPE are skipped, and nothing is ever fetched. Memory stays bounded whatever the file's size:
/// text comes in pieces of at most ``textPiece`` bytes (a 30 MB base64 image is many events).
///
/// Not a validating parser: it checks what a reader needs (tags nest, names are names, the file
/// does not end inside an element) and says where it is not so.
public struct XMLPullParser<Source: ByteChunks> {
    public enum Event: Equatable {
        case start(name: String, attributes: [String: String])
        case end(name: String)
        /// A piece of an element's text (entities decoded), as UTF-8 bytes.
        case text([UInt8])
    }

    public static var textPiece: Int { 1 << 16 }
    static var readSize: Int { 1 << 18 }
    /// Bounds on what is held at once for one tag.
    static var maxNameLength: Int { 256 }
    static var maxTagLength: Int { 1 << 16 }
    static var maxDepth: Int { 256 }

    var source: Source
    var buffer: [UInt8] = []
    var position = 0
    var atEnd = false
    /// Bytes consumed from the source so far (progress).
    public private(set) var bytesRead: Int64 = 0
    public private(set) var line = 1
    var open: [String] = []
    /// The end of an element written `<name/>`, due after its start.
    var pendingEnd: String?
    var sawRoot = false
    var inCDATA = false

    public init(_ source: Source) { self.source = source }

    /// The next event, or nil at the end of a well-formed document.
    public mutating func next() throws(XMLSyntaxError) -> Event? {
        if let name = pendingEnd {
            pendingEnd = nil
            return .end(name: name)
        }
        while true {
            if inCDATA {
                if let piece = try cdata() { return piece }
                continue
            }
            guard let byte = try peek() else {
                if let name = open.last { throw fail("the file ends inside <\(name)>") }
                if !sawRoot { throw fail("there is no element in the file") }
                return nil
            }
            if byte == UInt8(ascii: "<") {
                if let event = try markup() { return event }
                continue
            }
            let text = try characters()
            if open.isEmpty {
                guard text.allSatisfy(XMLBytes.isSpace) else { throw fail("text outside the root element") }
                continue
            }
            if !text.isEmpty { return .text(text) }
        }
    }

    // MARK: Bytes

    mutating func fill(_ count: Int) throws(XMLSyntaxError) -> Bool {
        while buffer.count - position < count && !atEnd {
            if position > 0 && position >= buffer.count / 2 {
                buffer.removeSubrange(0..<position)
                position = 0
            }
            let chunk: [UInt8]
            // The reader's own error (a Swift type, a system code) means nothing to the person importing.
            do { chunk = try source.read(max: Self.readSize) } catch { throw fail("the file could not be read from here on (it may be damaged or cut short)") }
            if chunk.isEmpty { atEnd = true } else { buffer.append(contentsOf: chunk) }
        }
        return buffer.count - position >= count
    }

    mutating func peek() throws(XMLSyntaxError) -> UInt8? {
        guard try fill(1) else { return nil }
        return buffer[position]
    }

    mutating func advance() {
        if buffer[position] == 0x0A { line += 1 }
        position += 1
        bytesRead += 1
    }

    mutating func take() throws(XMLSyntaxError) -> UInt8 {
        guard let byte = try peek() else { throw fail(open.last.map { "the file ends inside <\($0)>" } ?? "the file ends inside a tag") }
        advance()
        return byte
    }

    mutating func starts(with literal: String) throws(XMLSyntaxError) -> Bool {
        let bytes = Array(literal.utf8)
        guard try fill(bytes.count) else { return false }
        return buffer[position..<(position + bytes.count)].elementsEqual(bytes)
    }

    mutating func skip(_ count: Int) throws(XMLSyntaxError) {
        for _ in 0..<count { _ = try take() }
    }

    /// Skips up to and past `terminator`.
    mutating func skip(through terminator: String, what: String) throws(XMLSyntaxError) {
        let first = Array(terminator.utf8)[0]
        while true {
            guard let byte = try peek() else { throw fail("the file ends inside \(what)") }
            if byte == first, try starts(with: terminator) {
                try skip(terminator.utf8.count)
                return
            }
            advance()
        }
    }

    func fail(_ message: String) -> XMLSyntaxError { XMLSyntaxError(line: line, message: message) }


    // MARK: Markup

    /// At a `<`: a tag (its event), or something skipped (nil).
    mutating func markup() throws(XMLSyntaxError) -> Event? {
        if try starts(with: "<!--") {
            try skip(4)
            try skip(through: "-->", what: "a comment")
            return nil
        }
        if try starts(with: "<![CDATA[") {
            guard !open.isEmpty else { throw fail("CDATA outside the root element") }
            try skip(9)
            inCDATA = true
            return try cdata()
        }
        if try starts(with: "<?") {
            try skip(2)
            try skip(through: "?>", what: "a processing instruction")
            return nil
        }
        if try starts(with: "<!") {
            guard !sawRoot else { throw fail("a declaration inside the document") }
            try skip(2)
            try doctype()
            return nil
        }
        advance()  // <
        if try peek() == UInt8(ascii: "/") {
            advance()
            let name = try self.name()
            skipSpace()
            guard try take() == UInt8(ascii: ">") else { throw fail("</\(name) is not closed by >") }
            guard let expected = open.popLast() else { throw fail("</\(name)> closes nothing") }
            guard expected == name else { throw fail("</\(name)> where </\(expected)> was expected") }
            return .end(name: name)
        }
        let name = try self.name()
        guard open.isEmpty ? !sawRoot : true else { throw fail("a second root element <\(name)>") }
        var attributes: [String: String] = [:]
        var length = 0
        while true {
            let hadSpace = skipSpace()
            guard let byte = try peek() else { throw fail("the file ends inside <\(name)>") }
            if byte == UInt8(ascii: "/") {
                advance()
                guard try take() == UInt8(ascii: ">") else { throw fail("<\(name) … / is not closed by >") }
                sawRoot = true
                pendingEnd = name
                return .start(name: name, attributes: attributes)
            }
            if byte == UInt8(ascii: ">") {
                advance()
                guard open.count < Self.maxDepth else { throw fail("elements nest more than \(Self.maxDepth) deep") }
                open.append(name)
                sawRoot = true
                return .start(name: name, attributes: attributes)
            }
            guard hadSpace else { throw fail("<\(name): a space is needed before an attribute") }
            let key = try self.name()
            skipSpace()
            guard try take() == UInt8(ascii: "=") else { throw fail("attribute \(key) of <\(name) has no value") }
            skipSpace()
            let quote = try take()
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw fail("attribute \(key) of <\(name): its value is not quoted") }
            var value: [UInt8] = []
            while true {
                let byte = try take()
                if byte == quote { break }
                if byte == UInt8(ascii: "<") { throw fail("attribute \(key) of <\(name): a < inside its value") }
                if byte == UInt8(ascii: "&") { try entity(into: &value) } else { value.append(byte) }
                length += 1
                guard length < Self.maxTagLength else { throw fail("the tag <\(name) is longer than \(Self.maxTagLength) bytes") }
            }
            attributes[key] = String(decoding: value, as: UTF8.self)
        }
    }

    @discardableResult
    mutating func skipSpace() -> Bool {
        var skipped = false
        while let byte = try? peek(), XMLBytes.isSpace(byte) {
            advance()
            skipped = true
        }
        return skipped
    }

    mutating func name() throws(XMLSyntaxError) -> String {
        var bytes: [UInt8] = []
        while let byte = try peek(), XMLBytes.isNameByte(byte) {
            advance()
            bytes.append(byte)
            guard bytes.count <= Self.maxNameLength else { throw fail("a name longer than \(Self.maxNameLength) bytes") }
        }
        guard let first = bytes.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), first != UInt8(ascii: "-"),
              first != UInt8(ascii: ".") else {
            throw fail("a tag or attribute name was expected")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `<!DOCTYPE …>`, with an internal subset in brackets if there is one.
    mutating func doctype() throws(XMLSyntaxError) {
        var brackets = 0
        var quote: UInt8?
        while true {
            let byte = try take()
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "["): brackets += 1
            case UInt8(ascii: "]"): brackets -= 1
            case UInt8(ascii: ">") where brackets <= 0: return
            default: break
            }
        }
    }

    // MARK: Text

    /// Text up to the next `<`, or a piece of it.
    mutating func characters() throws(XMLSyntaxError) -> [UInt8] {
        var text: [UInt8] = []
        while text.count < Self.textPiece, let byte = try peek(), byte != UInt8(ascii: "<") {
            advance()
            if byte == UInt8(ascii: "&") { try entity(into: &text) } else { text.append(byte) }
        }
        return text
    }

    /// The inside of a CDATA section, a piece at a time (``inCDATA`` until its `]]>`); nil when
    /// the section ends with nothing more in it.
    mutating func cdata() throws(XMLSyntaxError) -> Event? {
        var text: [UInt8] = []
        while text.count < Self.textPiece {
            guard let byte = try peek() else { throw fail("the file ends inside a CDATA section") }
            if byte == UInt8(ascii: "]"), try starts(with: "]]>") {
                try skip(3)
                inCDATA = false
                break
            }
            advance()
            text.append(byte)
        }
        return text.isEmpty ? nil : .text(text)
    }

    /// After `&`: a predefined entity or a character reference, decoded into `text`.
    mutating func entity(into text: inout [UInt8]) throws(XMLSyntaxError) {
        var name: [UInt8] = []
        while true {
            let byte = try take()
            if byte == UInt8(ascii: ";") { break }
            name.append(byte)
            guard name.count <= 10 else { throw fail("an & that starts no entity (write &amp; for a literal &)") }
        }
        let scalar: Unicode.Scalar?
        switch String(decoding: name, as: UTF8.self) {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        case let reference where reference.hasPrefix("#x"): scalar = UInt32(reference.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
        case let reference where reference.hasPrefix("#"): scalar = UInt32(reference.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
        default: throw fail("unknown entity &\(String(decoding: name, as: UTF8.self));")
        }
        guard let scalar else { throw fail("&\(String(decoding: name, as: UTF8.self)); is not a character") }
        text.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
}

/// What XML's bytes are.
enum XMLBytes {
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), 0x80...0xFF: return true
        default: return false
        }
    }
}
