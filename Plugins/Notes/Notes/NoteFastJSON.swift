import Foundation
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

        /// A string without escapes other than the simple ones and `\uXXXX` (pairs joined); nil for
        /// a control character, a lone surrogate or bytes that are not UTF-8.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            // Most strings have no escape: one slice, validated once.
            while let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { return nil }
                index += 1
            }
            guard let stop = peek() else { return nil }
            var utf8 = Array(bytes[start..<index])
            if stop == UInt8(ascii: "\\") {
                while true {
                    guard let byte = peek() else { return nil }
                    index += 1
                    if byte == UInt8(ascii: "\"") { break }
                    if byte < 0x20 { return nil }
                    guard byte == UInt8(ascii: "\\") else {
                        utf8.append(byte)
                        continue
                    }
                    guard let escaped = peek() else { return nil }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            return nil
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        utf8.append(contentsOf: String(unicode).utf8)
                    default: return nil
                    }
                }
            } else {
                index += 1  // the closing quote
            }
            return String(validating: utf8, as: UTF8.self)
        }

        mutating func hex4() -> UInt32? {
            guard bytes.count - index >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
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
