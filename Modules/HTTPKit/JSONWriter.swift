public import Foundation
public import Hummingbird
public import HTTPTypes
import NIOCore

/// Writes JSON straight into bytes, for responses on hot paths.
///
/// Records keep their payload as JSON bytes; a list of them can be answered by writing each
/// record's id, version and timestamps and splicing its stored members after them — no decoding
/// into a model and no re-encoding. (Foundation's coders spend ~8 µs per small object here, which
/// made a 100-note list cost 0.8 ms before anything else.)
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    private var needsComma = false

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"key":`; the value written next belongs to it.
    public mutating func key(_ key: String) {
        separate()
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) { separate(); writeString(value); needsComma = true }

    public mutating func stringOrNull(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func int(_ value: Int64) { separate(); bytes.append(contentsOf: String(value).utf8); needsComma = true }
    public mutating func null() { separate(); bytes.append(contentsOf: "null".utf8); needsComma = true }

    /// Writes a timestamp as ISO 8601 UTC to the second, e.g. `2026-11-22T16:04:49Z`.
    public mutating func date(_ value: Date) {
        separate()
        let (year, month, day, hour, minute, second) = Self.civil(value)
        bytes.append(UInt8(ascii: "\""))
        if (0...9999).contains(year) {
            appendDigits(year, count: 4)
        } else {
            bytes.append(contentsOf: String(year).utf8)
        }
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(hour, count: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(minute, count: 2)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(second, count: 2)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
        needsComma = true
    }

    private mutating func appendDigits(_ value: Int64, count: Int) {
        var divisor: Int64 = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Splices the members of a JSON object (its bytes, `{` … `}`) into the object being written.
    /// The caller vouches that `object` is a JSON object whose keys do not clash with those written.
    public mutating func members(ofObject object: Data) {
        guard object.count > 2, object.first == UInt8(ascii: "{"), object.last == UInt8(ascii: "}") else { return }
        separate()
        bytes.append(contentsOf: object.dropFirst().dropLast())
        needsComma = true
    }

    /// Writes a JSON value given as its bytes; the caller vouches that they are one.
    public mutating func raw(_ value: Data) {
        separate()
        bytes.append(contentsOf: value)
        needsComma = true
    }

    public mutating func key(_ key: String, _ value: String) { self.key(key); string(value) }
    public mutating func key(_ key: String, _ value: Int64) { self.key(key); int(value) }
    public mutating func key(_ key: String, _ value: Date) { self.key(key); date(value) }

    /// The bytes as a JSON response.
    public func response(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, 110])
            case 0x0D: bytes.append(contentsOf: [92, 114])
            case 0x09: bytes.append(contentsOf: [92, 116])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// ISO 8601 in UTC, computed without a formatter.
    public static func iso8601(_ date: Date) -> String {
        var writer = JSONWriter(capacity: 24)
        writer.date(date)
        return String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    /// Year, month, day, hour, minute, second in UTC (civil-from-days, Howard Hinnant's algorithm).
    static func civil(_ date: Date) -> (Int64, Int64, Int64, Int64, Int64, Int64) {
        let total = Int64(date.timeIntervalSince1970.rounded(.down))
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
