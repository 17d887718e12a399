public import Foundation
public import Hummingbird
public import HTTPTypes
import JSONBytes
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

    public mutating func int(_ value: Int64) { separate(); JSONBytes.appendInt(value, to: &bytes); needsComma = true }
    public mutating func null() { separate(); bytes.append(contentsOf: "null".utf8); needsComma = true }

    /// Writes a timestamp as ISO 8601 UTC to the second, e.g. `2026-11-22T16:04:49Z`.
    public mutating func date(_ value: Date) {
        separate()
        JSONBytes.appendTimestamp(value.timeIntervalSince1970, to: &bytes)
        needsComma = true
    }

    /// Splices the members of a JSON object (its bytes, `{` … `}`) into the object being written.
    /// The caller vouches that `object` is a JSON object whose keys do not clash with those written.
    public mutating func members(ofObject object: Data) {
        guard object.count > 2, object.first == UInt8(ascii: "{"), object.last == UInt8(ascii: "}") else { return }
        separate()
        object.withUnsafeBytes { whole in bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: whole.dropFirst().dropLast())) }
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
        JSONBytes.appendString(value, to: &bytes)
    }

    /// ISO 8601 in UTC, computed without a formatter.
    public static func iso8601(_ date: Date) -> String {
        var writer = JSONWriter(capacity: 24)
        writer.date(date)
        return String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
    }
}
