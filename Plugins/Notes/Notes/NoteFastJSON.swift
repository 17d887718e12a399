import Foundation
import JSONBytes
import NIOCore
import StorageAPI
import Synchronization

/// The create route's JSON without Foundation's coders: a note's input read from the body in one
/// pass, and a new note's payload written straight into bytes (issue 42: a create cost 499 µs of
/// server CPU, and `JSONDecoder`, the unknown-member check's second parse and `JSONEncoder` were a
/// good part of what was not storage).
///
/// Both take only the common shape and give up otherwise: the reader answers nil for anything but
/// a flat object of known members whose values are strings or null (the route then decodes as
/// before, so a wrong body gets the same error), and the writer answers nil for a payload with a
/// number in it (photo place, voice length), which `JSONDocument(encoding:)` writes instead. The
/// writer's bytes are `JSONDocument(encoding:)`'s, byte for byte (keys sorted, `/` unescaped).
enum NoteFastJSON {
    /// `{"title": …, "text": …, "date": …, "category": …}`, each optional, strings or null.
    static func input(_ buffer: ByteBuffer) -> NoteInput? {
        buffer.withUnsafeReadableBytes { bytes in
            var reader = Reader(bytes: bytes)
            return reader.input()
        }
    }

    /// The payload's bytes as `JSONDocument(encoding: data)` writes them; nil when it holds a number.
    static func document(_ data: NoteData) -> JSONDocument? {
        guard data.photoPlace == nil, data.voiceMs == nil else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(96 + data.title.utf8.count + data.text.utf8.count)
        // Foundation's sorted order of NoteData's keys (all lower-case ASCII at the first letter
        // that differs, so ordinal and case-insensitive orders agree).
        let members: [(String, String?, Bool)] = [
            ("category", data.category, data.category != nil),
            ("date", data.date, true),
            ("drawing", data.drawing, true),
            ("importJob", data.importJob, data.importJob != nil),
            ("photo", data.photo, true),
            ("photoText", data.photoText, data.photoText != nil),
            ("photoTextJob", data.photoTextJob, data.photoTextJob != nil),
            ("photoTextState", data.photoTextState, data.photoTextState != nil),
            ("position", data.position, true),
            ("text", data.text, true),
            ("title", data.title, true),
            ("voice", data.voice, data.voice != nil),
        ]
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, value, present) in members where present {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            if let value { writeString(value, into: &out) } else { out.append(contentsOf: "null".utf8) }
        }
        out.append(UInt8(ascii: "}"))
        return JSONDocument(trustedBytes: Data(out))
    }

    /// A JSON string as Foundation's `JSONEncoder` writes it with `.withoutEscapingSlashes`.
    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A one-pass reader of the flat object; every `nil` means "not the common shape".
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func input() -> NoteInput? {
            var input = NoteInput()
            var seen = 0  // a bit per member: a repeated one goes to the full decoder
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                repeat {
                    skipWhitespace()
                    guard let key = string() else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    let value: String?
                    if peek() == UInt8(ascii: "n") {
                        guard literalNull() else { return nil }
                        value = nil
                    } else {
                        guard let text = string() else { return nil }
                        value = text
                    }
                    let bit: Int
                    switch key {
                    case "title": (bit, input.title) = (1, value)
                    case "text": (bit, input.text) = (2, value)
                    case "date": (bit, input.date) = (4, value)
                    case "category": (bit, input.category) = (8, .some(value))
                    default: return nil  // unknown: the full decoder says which
                    }
                    guard seen & bit == 0 else { return nil }
                    seen |= bit
                    skipWhitespace()
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "}")) else { return nil }
            }
            skipWhitespace()
            return index == bytes.count ? input : nil
        }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        mutating func skipWhitespace() {
            while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func literalNull() -> Bool {
            guard bytes.count - index >= 4, bytes[index + 1] == UInt8(ascii: "u"), bytes[index + 2] == UInt8(ascii: "l"),
                  bytes[index + 3] == UInt8(ascii: "l") else { return false }
            index += 4
            return true
        }

        /// A string, its escapes undone and `\uXXXX` pairs joined (JSONBytes's reader); nil for a
        /// control character, a lone surrogate or bytes that are not UTF-8.
        mutating func string() -> String? {
            try? JSONBytes.readString(bytes, at: &index).get()
        }
    }
}

extension NoteInput {
    init(title: String? = nil, text: String? = nil, date: String? = nil, category: String?? = nil) {
        self.title = title
        self.text = text
        self.date = date
        self.category = category
    }
}

/// Today's date as a new note gets it, remembered until the day ends in the app's time zone:
/// working it out (a calendar, its components, a formatted string) on every create cost more than
/// the comparison of two instants.
final class DayMemo: Sendable {
    private struct Day {
        var start: Date
        var end: Date
        var text: String
    }

    private let memo = Mutex<Day?>(nil)

    func day(_ instant: Date, timeZone: TimeZone, compute: (Date) -> String) -> String {
        if let known = memo.withLock({ $0 }), known.start <= instant, instant < known.end { return known.text }
        let text = compute(instant)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        if let interval = calendar.dateInterval(of: .day, for: instant) {
            memo.withLock { $0 = Day(start: interval.start, end: interval.end, text: text) }
        }
        return text
    }
}
