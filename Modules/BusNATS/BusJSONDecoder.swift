import Foundation

/// A parsed JSON value for ``BusJSONDecoder``: objects keep their members in order, numbers their
/// text (an integer that fits, its value).
enum BusJSONNode {
    case null
    case bool(Bool)
    case integer(Int)
    case number(String)
    case string(String)
    case array([BusJSONNode])
    case object([(key: String, value: BusJSONNode)])
}

/// Reads JSON into a value in two quick passes: the bytes into a ``BusJSONNode`` tree, then the tree
/// into the value, members found by a look along the object (by a dictionary past 16 members).
///
/// Strict where Foundation's `JSONDecoder` is strict (the grammar, UTF-8, types: no number as a
/// `Bool`, no string as a number), and narrower: whatever it does not read (an integer written as
/// `1.0` or `1e3`, a number past `Int`, `Float`, `Decimal`, a super decoder) throws
/// ``BusJSONFallback``, as does every mismatch; ``JSONPayloadCodec`` then decodes with Foundation,
/// which reads it or words the error.
final class BusJSONDecoder: Decoder {
    let node: BusJSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: BusJSONNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        var parser = BusJSONParser(bytes: bytes)
        let node = try parser.document()
        return try value(type, from: node, codingPath: [])
    }

    /// `node` read as a `Value`.
    static func value<Value: Decodable>(_ type: Value.Type, from node: BusJSONNode, codingPath: [any CodingKey]) throws -> Value {
        if Value.self == String.self, case .string(let string) = node, let value = string as? Value { return value }
        if Value.self == Int.self, let value = try integer(Int.self, node) as? Value { return value }
        if Value.self == Bool.self, case .bool(let bool) = node, let value = bool as? Value { return value }
        if Value.self == Double.self, let value = try double(node) as? Value { return value }
        if Value.self == Data.self {
            guard case .string(let string) = node, let data = Data(base64Encoded: string), let value = data as? Value else { throw BusJSONFallback() }
            return value
        }
        if Value.self == URL.self {
            guard case .string(let string) = node, let url = URL(string: string), let value = url as? Value else { throw BusJSONFallback() }
            return value
        }
        if Value.self == Decimal.self || Value.self == Float.self { throw BusJSONFallback() }
        return try Value(from: BusJSONDecoder(node: node, codingPath: codingPath))
    }

    static func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, _ node: BusJSONNode) throws -> Integer {
        switch node {
        case .integer(let value):
            guard let exact = Integer(exactly: value) else { throw BusJSONFallback() }
            return exact
        case .number(let text):
            guard let value = Integer(text) else { throw BusJSONFallback() }
            return value
        default:
            throw BusJSONFallback()
        }
    }

    static func double(_ node: BusJSONNode) throws -> Double {
        switch node {
        case .integer(let value):
            return Double(value)
        case .number(let text):
            guard let value = Double(text), value.isFinite else { throw BusJSONFallback() }
            return value
        default:
            throw BusJSONFallback()
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else { throw BusJSONFallback() }
        return KeyedDecodingContainer(BusJSONKeyedDecoding<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node else { throw BusJSONFallback() }
        return BusJSONUnkeyedDecoding(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        BusJSONSingleValueDecoding(node: node, codingPath: codingPath)
    }
}

struct BusJSONKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: BusJSONNode)]
    let codingPath: [any CodingKey]
    /// Member positions by key, for a large object (a dictionary); the last of a repeated key wins, as in Foundation.
    private let index: [String: Int]?

    init(members: [(key: String, value: BusJSONNode)], codingPath: [any CodingKey]) {
        self.members = members
        self.codingPath = codingPath
        if members.count > 16 {
            var index = [String: Int](minimumCapacity: members.count)
            for (position, member) in members.enumerated() { index[member.key] = position }
            self.index = index
        } else {
            index = nil
        }
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    private func find(_ key: Key) -> BusJSONNode? {
        let name = key.stringValue
        if let index { return index[name].map { members[$0].value } }
        var position = members.count
        while position > 0 {
            position -= 1
            if members[position].key == name { return members[position].value }
        }
        return nil
    }

    private func node(_ key: Key) throws -> BusJSONNode {
        guard let node = find(key) else { throw BusJSONFallback() }
        return node
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try node(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        guard case .bool(let value) = try node(key) else { throw BusJSONFallback() }
        return value
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        guard case .string(let value) = try node(key) else { throw BusJSONFallback() }
        return value
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try BusJSONDecoder.double(node(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw BusJSONFallback() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try BusJSONDecoder.integer(type, node(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try BusJSONDecoder.integer(type, node(key)) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try BusJSONDecoder.value(type, from: node(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        guard case .object(let members) = try node(key) else { throw BusJSONFallback() }
        return KeyedDecodingContainer(BusJSONKeyedDecoding<NestedKey>(members: members, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = try node(key) else { throw BusJSONFallback() }
        return BusJSONUnkeyedDecoding(elements: elements, codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder { throw BusJSONFallback() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw BusJSONFallback() }
}

struct BusJSONUnkeyedDecoding: UnkeyedDecodingContainer {
    let elements: [BusJSONNode]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(elements: [BusJSONNode], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    private mutating func next() throws -> BusJSONNode {
        guard currentIndex < elements.count else { throw BusJSONFallback() }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else { throw BusJSONFallback() }
        guard case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let value) = try next() else { throw BusJSONFallback() }
        return value
    }

    mutating func decode(_ type: String.Type) throws -> String {
        guard case .string(let value) = try next() else { throw BusJSONFallback() }
        return value
    }

    mutating func decode(_ type: Double.Type) throws -> Double { try BusJSONDecoder.double(next()) }
    mutating func decode(_ type: Float.Type) throws -> Float { throw BusJSONFallback() }
    mutating func decode(_ type: Int.Type) throws -> Int { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try BusJSONDecoder.integer(type, next()) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try BusJSONDecoder.integer(type, next()) }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let path = codingPath + [BusJSONIndexKey(currentIndex)]
        return try BusJSONDecoder.value(type, from: next(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = codingPath + [BusJSONIndexKey(currentIndex)]
        guard case .object(let members) = try next() else { throw BusJSONFallback() }
        return KeyedDecodingContainer(BusJSONKeyedDecoding<NestedKey>(members: members, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = codingPath + [BusJSONIndexKey(currentIndex)]
        guard case .array(let elements) = try next() else { throw BusJSONFallback() }
        return BusJSONUnkeyedDecoding(elements: elements, codingPath: path)
    }

    mutating func superDecoder() throws -> any Decoder { throw BusJSONFallback() }
}

struct BusJSONSingleValueDecoding: SingleValueDecodingContainer {
    let node: BusJSONNode
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let value) = node else { throw BusJSONFallback() }
        return value
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let value) = node else { throw BusJSONFallback() }
        return value
    }

    func decode(_ type: Double.Type) throws -> Double { try BusJSONDecoder.double(node) }
    func decode(_ type: Float.Type) throws -> Float { throw BusJSONFallback() }
    func decode(_ type: Int.Type) throws -> Int { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: Int8.Type) throws -> Int8 { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: Int16.Type) throws -> Int16 { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: Int32.Type) throws -> Int32 { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: Int64.Type) throws -> Int64 { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: UInt.Type) throws -> UInt { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try BusJSONDecoder.integer(type, node) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try BusJSONDecoder.integer(type, node) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try BusJSONDecoder.value(type, from: node, codingPath: codingPath)
    }
}
