/// JSON written byte by byte: the one copy of how Quire writes a string, an integer and a timestamp
/// on hot paths (HTTPKit's `JSONWriter`, and storage writing a page of records straight from its
/// rows). Strings are copied whole unless they hold a byte that must be escaped; numbers and
/// timestamps are written two digits at a time from a table, without division per digit.
public enum JSONBytes {
    /// "00", "01", … "99": two ASCII digits per entry.
    @usableFromInline
    static let digitPairs: [UInt8] = {
        var table: [UInt8] = []
        table.reserveCapacity(200)
        for value in 0..<100 {
            table.append(UInt8(ascii: "0") + UInt8(value / 10))
            table.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        return table
    }()

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether a byte has to be escaped inside a JSON string: control characters, `"` and `\`.
    @inlinable
    public static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Appends `bytes` (UTF-8) as a JSON string, quotes included. Bytes of 0x80 and above are copied
    /// as they are; `"`, `\`, newline, return and tab get their short escapes, other control
    /// characters `\u00XX`.
    public static func appendString(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var clean = true
        for byte in bytes where needsEscape(byte) {
            clean = false
            break
        }
        if clean {
            out.append(contentsOf: bytes)
        } else {
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): out.append(92); out.append(34)
                case UInt8(ascii: "\\"): out.append(92); out.append(92)
                case 0x0A: out.append(92); out.append(110)
                case 0x0D: out.append(92); out.append(114)
                case 0x09: out.append(92); out.append(116)
                case 0..<0x20:
                    out.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a Swift string as a JSON string (see ``appendString(_:to:)-(UnsafeRawBufferPointer,_)``).
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendString(UnsafeRawBufferPointer($0), to: &out) }
    }

    /// Appends an integer in decimal, as `String(value)` writes it.
    public static func appendInt(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendUnsigned(value.magnitude, to: &out)
    }

    /// Appends an unsigned integer in decimal.
    public static func appendUnsigned(_ value: UInt64, to out: inout [UInt8]) {
        // At most 20 digits, written from the right into a small stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            digitPairs.withUnsafeBufferPointer { pairs in
                while rest >= 100 {
                    let pair = Int(rest % 100) * 2
                    rest /= 100
                    start -= 2
                    digits[start] = pairs[pair]
                    digits[start + 1] = pairs[pair + 1]
                }
                if rest >= 10 {
                    let pair = Int(rest) * 2
                    start -= 2
                    digits[start] = pairs[pair]
                    digits[start + 1] = pairs[pair + 1]
                } else {
                    start -= 1
                    digits[start] = UInt8(ascii: "0") + UInt8(rest)
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Appends two digits of `value` (0…99).
    @inline(__always)
    static func appendPair(_ value: Int64, to out: inout [UInt8]) {
        let index = Int(value) * 2
        out.append(digitPairs[index])
        out.append(digitPairs[index + 1])
    }

    /// Appends a timestamp (seconds since 1970, rounded down to the second) as a quoted ISO 8601
    /// UTC string, e.g. `"2026-11-22T16:04:49Z"`. A year outside 0…9999 is written as it is.
    public static func appendTimestamp(_ secondsSince1970: Double, to out: inout [UInt8]) {
        let (year, month, day, hour, minute, second) = civil(secondsSince1970)
        out.append(UInt8(ascii: "\""))
        if (0...9999).contains(year) {
            appendPair(year / 100, to: &out)
            appendPair(year % 100, to: &out)
        } else {
            appendInt(year, to: &out)
        }
        out.append(UInt8(ascii: "-"))
        appendPair(month, to: &out)
        out.append(UInt8(ascii: "-"))
        appendPair(day, to: &out)
        out.append(UInt8(ascii: "T"))
        appendPair(hour, to: &out)
        out.append(UInt8(ascii: ":"))
        appendPair(minute, to: &out)
        out.append(UInt8(ascii: ":"))
        appendPair(second, to: &out)
        out.append(UInt8(ascii: "Z"))
        out.append(UInt8(ascii: "\""))
    }

    /// The largest magnitude of seconds a timestamp is written for (about ±31 million years);
    /// beyond it (or not finite) the value is clamped rather than trapping on conversion.
    static let maxSeconds = 1e15

    /// Year, month, day, hour, minute, second in UTC (civil-from-days, Howard Hinnant's algorithm).
    public static func civil(_ secondsSince1970: Double) -> (Int64, Int64, Int64, Int64, Int64, Int64) {
        let clamped = secondsSince1970.isNaN ? 0 : min(max(secondsSince1970, -maxSeconds), maxSeconds)
        let total = Int64(clamped.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondsOfDay / 3600, secondsOfDay % 3600 / 60, secondsOfDay % 60)
    }
}
