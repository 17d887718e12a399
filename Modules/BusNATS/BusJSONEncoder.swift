import Foundation

/// The fast path of ``JSONPayloadCodec`` could not take this value; Foundation's coder does, and
/// says what is wrong when it cannot either.
struct BusJSONFallback: Error {}

/// Writes a value as JSON straight into bytes, in one pass, with the values Foundation's `JSONEncoder`
/// writes with its defaults (`/` escaped, `1.0` as `1`, `Date` as seconds since 2001, `Data` as
/// base64, `URL` as its absolute string); an object's members in the order encoded (Foundation's
/// order is its dictionary's).
///
/// Foundation builds a tree of boxed values and then writes it; for a bus message that is most of
/// the cost. Here each container writes as it is used. A container used out of order (a parent
/// written to while a nested container it handed out is used again later), a super encoder, a value
/// JSON cannot hold (NaN) or a `Decimal`/`Float` throws ``BusJSONFallback``, and Foundation writes
/// the whole value instead.
final class BusJSONEncoder: Encoder {
    var bytes: [UInt8] = []
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Containers still open, innermost last.
    private var open: [Frame] = []
    private var nextID = 0
    /// Whether the next container or single value asked for is the value being written.
    private var pending = false
    /// Set when a value asked for something the fast path does not do (the call cannot throw).
    private var failed = false

    private struct Frame {
        var id: Int
        var object: Bool
        var count: Int
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let encoder = BusJSONEncoder()
        encoder.bytes.reserveCapacity(128)
        try encoder.write(value)
        guard !encoder.failed else { throw BusJSONFallback() }
        return encoder.bytes
    }

    // MARK: Values

    func write<Value: Encodable>(_ value: Value) throws {
        if failed { throw BusJSONFallback() }
        // Types Foundation writes itself, found by their type (a cast would also unwrap AnyHashable).
        if Value.self == String.self, let value = value as? String {
            writeString(value)
        } else if Value.self == Int.self, let value = value as? Int {
            writeInteger(value)
        } else if Value.self == Bool.self, let value = value as? Bool {
            writeBool(value)
        } else if Value.self == Double.self, let value = value as? Double {
            try writeDouble(value)
        } else if Value.self == Data.self, let value = value as? Data {
            writeString(value.base64EncodedString())
        } else if Value.self == URL.self, let value = value as? URL {
            writeString(value.absoluteString)
        } else if Value.self == Decimal.self || Value.self == Float.self {
            throw fail()
        } else {
            let depth = open.count, written = bytes.count
            pending = true
            try value.encode(to: self)
            if pending {
                // Nothing asked for: Foundation writes an empty object.
                pending = false
                bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
            } else if bytes.count == written {
                // A single value asked for and left empty.
                throw fail()
            }
            while open.count > depth { close() }
        }
    }

    func writeNull() { bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

    func writeBool(_ value: Bool) {
        if value { bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65]) } else { bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65]) }
    }

    func writeInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        var magnitude = UInt64(truncatingIfNeeded: value.magnitude)
        // Digits written backwards into 24 bytes on the stack, then appended at once.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = 24
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    func writeDouble(_ value: Double) throws {
        guard value.isFinite else { throw BusJSONFallback() }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    func writeString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // Most strings need no escape: three appends (each a checked access to `bytes`).
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/") }) {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: utf8)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            var escaped: [UInt8] = [UInt8(ascii: "\"")]
            escaped.reserveCapacity(utf8.count + 16)
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escaped.append(contentsOf: [UInt8(ascii: "\\"), byte])
                case 0x08: escaped.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: escaped.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0A: escaped.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: escaped.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: escaped.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    escaped.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                default: escaped.append(byte)
                }
            }
            escaped.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: escaped)
        }
    }

    // MARK: Containers

    /// Makes `id` the innermost open container, closing the nested ones it handed out (they are
    /// done once their parent is written to again); false when it was closed already.
    private func reach(_ id: Int) -> Bool {
        if open.last?.id == id { return true }
        guard open.contains(where: { $0.id == id }) else { return false }
        while open.last?.id != id { close() }
        return true
    }

    private func close() {
        guard let frame = open.popLast() else { return }
        bytes.append(frame.object ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    /// Writes the separator and the key of the next member of object `id`.
    func member(_ key: some CodingKey, of id: Int) throws {
        guard !failed, reach(id) else { throw fail() }
        if open[open.count - 1].count > 0 { bytes.append(UInt8(ascii: ",")) }
        open[open.count - 1].count += 1
        writeString(key.stringValue)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes the separator before the next element of array `id`.
    func element(of id: Int) throws {
        guard !failed, reach(id) else { throw fail() }
        if open[open.count - 1].count > 0 { bytes.append(UInt8(ascii: ",")) }
        open[open.count - 1].count += 1
    }

    func count(of id: Int) -> Int { open.first { $0.id == id }?.count ?? 0 }

    func fail() -> BusJSONFallback {
        failed = true
        return BusJSONFallback()
    }

    /// Opens a container for the value being written; nil (and the fast path given up) when no value is.
    func openContainer(object: Bool) -> Int? {
        guard pending, !failed else {
            failed = true
            return nil
        }
        pending = false
        nextID += 1
        open.append(Frame(id: nextID, object: object, count: 0))
        bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return nextID
    }

    /// Takes the value being written as a single value; false (and the fast path given up) when there is none.
    func takeSingleValue() -> Bool {
        guard pending, !failed else {
            failed = true
            return false
        }
        pending = false
        return true
    }

    /// Lets the next container asked for be a nested value (after its key or separator is written).
    func expectValue() { pending = true }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(BusJSONKeyedEncoding<Key>(encoder: self, id: openContainer(object: true) ?? -1, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        BusJSONUnkeyedEncoding(encoder: self, id: openContainer(object: false) ?? -1, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        BusJSONSingleValueEncoding(encoder: self, usable: takeSingleValue(), codingPath: codingPath)
    }

    /// A member or element's value: `codingPath` names it while its own `encode(to:)` runs.
    func write<Value: Encodable>(_ value: Value, at key: any CodingKey) throws {
        codingPath.append(key)
        defer { codingPath.removeLast() }
        try write(value)
    }
}

struct BusJSONKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: BusJSONEncoder
    let id: Int
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        try encoder.member(key, of: id)
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try encoder.member(key, of: id)
        encoder.writeBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try encoder.member(key, of: id)
        encoder.writeString(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try encoder.member(key, of: id)
        try encoder.writeDouble(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws { throw encoder.fail() }
    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    private func integer(_ value: some FixedWidthInteger, _ key: Key) throws {
        try encoder.member(key, of: id)
        encoder.writeInteger(value)
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try encoder.member(key, of: id)
        try encoder.write(value, at: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        if (try? encoder.member(key, of: id)) != nil { encoder.expectValue() }
        return KeyedEncodingContainer(BusJSONKeyedEncoding<NestedKey>(encoder: encoder, id: encoder.openContainer(object: true) ?? -1,
                                                                       codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        if (try? encoder.member(key, of: id)) != nil { encoder.expectValue() }
        return BusJSONUnkeyedEncoding(encoder: encoder, id: encoder.openContainer(object: false) ?? -1, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        _ = encoder.fail()
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        _ = encoder.fail()
        return encoder
    }
}

struct BusJSONUnkeyedEncoding: UnkeyedEncodingContainer {
    let encoder: BusJSONEncoder
    let id: Int
    var codingPath: [any CodingKey]
    var count: Int { encoder.count(of: id) }

    mutating func encodeNil() throws {
        try encoder.element(of: id)
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try encoder.element(of: id)
        encoder.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try encoder.element(of: id)
        encoder.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try encoder.element(of: id)
        try encoder.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws { throw encoder.fail() }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    private func integer(_ value: some FixedWidthInteger) throws {
        try encoder.element(of: id)
        encoder.writeInteger(value)
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let index = count
        try encoder.element(of: id)
        try encoder.write(value, at: BusJSONIndexKey(index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        if (try? encoder.element(of: id)) != nil { encoder.expectValue() }
        return KeyedEncodingContainer(BusJSONKeyedEncoding<NestedKey>(encoder: encoder, id: encoder.openContainer(object: true) ?? -1,
                                                                       codingPath: codingPath + [BusJSONIndexKey(index)]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        if (try? encoder.element(of: id)) != nil { encoder.expectValue() }
        return BusJSONUnkeyedEncoding(encoder: encoder, id: encoder.openContainer(object: false) ?? -1, codingPath: codingPath + [BusJSONIndexKey(index)])
    }

    mutating func superEncoder() -> any Encoder {
        _ = encoder.fail()
        return encoder
    }
}

struct BusJSONSingleValueEncoding: SingleValueEncodingContainer {
    let encoder: BusJSONEncoder
    /// Whether a value is expected (a second value, or one where none is, gives the fast path up).
    var usable: Bool
    var codingPath: [any CodingKey]

    private mutating func take() throws {
        guard usable else { throw encoder.fail() }
        usable = false
    }

    mutating func encodeNil() throws {
        try take()
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try take()
        encoder.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try take()
        encoder.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try take()
        try encoder.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws { throw encoder.fail() }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    private mutating func integer(_ value: some FixedWidthInteger) throws {
        try take()
        encoder.writeInteger(value)
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try take()
        try encoder.write(value)
    }
}

/// An array element's place in a coding path.
struct BusJSONIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}
