public import Foundation

/// How a networked bus writes the payload of a message (an event, a request, a reply, a ``BusError``)
/// as bytes and reads it back: one codec for every payload of a bus, behind this one protocol. The
/// envelope around a reply (``ReplyEnvelope``) is the transport's own.
///
/// `decode` must refuse bytes that hold anything after the value: the envelope hands it the middle
/// of `{"reply":…}` and, when that is not one value, reads the whole envelope the slow way.
public protocol BusPayloadCodec: Sendable {
    func encode<Value: Encodable>(_ value: Value) throws -> [UInt8]
    func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value
}

/// JSON, the bus's wire format: what `nats sub 'quire.>'` shows is the message as a person reads
/// it, and every version of Quire reads what every other writes.
///
/// Written and read by a coder of the bus's own (``BusJSONEncoder``, ``BusJSONDecoder``): one pass
/// into bytes, and a small tree read back, where Foundation's coders box every value in both
/// directions. The JSON is the same values Foundation's encoder writes (`/` escaped, `1.0` as `1`, `Date`
/// as seconds since 2001, `Data` as base64), an object's members in the order encoded. Whatever the fast
/// path does not take (an unusual container use, `Float`, `Decimal`, NaN, a number it does not read)
/// is coded by Foundation's `JSONEncoder`/`JSONDecoder`, which also words every error. Measured in
/// BENCHMARKS.md (2026-11-26, `quire-bench bus-codec`).
public struct JSONPayloadCodec: BusPayloadCodec {
    /// Foundation's coders, for what the fast path hands on: both are safe to share between threads.
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    /// Whether the bus's own coder goes first (off: Foundation's alone, as before 2026-11-26; for the benchmark).
    public let fast: Bool

    public init(fast: Bool = true) {
        self.fast = fast
    }

    public func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        if fast, let bytes = try? BusJSONEncoder.encode(value) { return bytes }
        return Array(try Self.encoder.encode(value))
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        if fast, let value = try? BusJSONDecoder.decode(type, from: bytes) { return value }
        return try Self.decoder.decode(type, from: Data(bytes))
    }
}

extension BusPayloadCodec {
    /// Decodes the readable bytes of a NATS payload (or any contiguous bytes).
    public func decode<Value: Decodable>(_ type: Value.Type, from bytes: some ContiguousBytes) throws -> Value {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }
}
