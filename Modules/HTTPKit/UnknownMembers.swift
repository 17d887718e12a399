import Foundation

/// Finds the members of a JSON body that a `Decodable` type never reads, so that every route can
/// refuse a misspelt member (`"strokez"`) instead of ignoring it — and, where the member's absence
/// means "empty", erasing saved work.
///
/// It decodes the body a second time through a decoder that records each key the type asks about
/// (`decode`, `decodeIfPresent`, `contains`, nested containers); a key of an object that was read
/// as a keyed container but never asked about is unknown. Objects the type reads whole (a
/// dictionary, a free-form value) are not checked: every key of a dictionary is read.
enum UnknownMembers {
    /// The dotted paths of the unknown members, in document order; empty when there are none or when
    /// the body does not fit `T` (the real decoder reports that).
    static func find<T: Decodable>(in data: Data, as type: T.Type) -> [String] {
        guard let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return [] }
        let recorder = KeyRecorder()
        do {
            _ = try T(from: RecordingDecoder(value: tree, path: [], recorder: recorder))
        } catch {
            return []
        }
        var unknown: [String] = []
        collect(tree, path: [], recorder: recorder, into: &unknown)
        return unknown
    }

    private static func collect(_ value: Any, path: [String], recorder: KeyRecorder, into unknown: inout [String]) {
        if let object = value as? [String: Any] {
            let pathKey = path.joined(separator: "\u{0}")
            guard let read = recorder.read[pathKey] else { return }  // read whole, or not at all
            for key in object.keys.sorted() {
                if read.contains(key) {
                    collect(object[key] as Any, path: path + [key], recorder: recorder, into: &unknown)
                } else {
                    unknown.append(display(path + [key]))
                }
            }
        } else if let array = value as? [Any] {
            for (index, item) in array.enumerated() {
                collect(item, path: path + ["[\(index)]"], recorder: recorder, into: &unknown)
            }
        }
    }

    static func display(_ path: [String]) -> String {
        path.enumerated().map { index, part in part.hasPrefix("[") || index == 0 ? part : ".\(part)" }.joined()
    }
}

/// What the recording decoder saw: for each object opened as a keyed container, the keys asked about.
private final class KeyRecorder {
    var read: [String: Set<String>] = [:]

    func opened(_ path: [String]) {
        let key = path.joined(separator: "\u{0}")
        if read[key] == nil { read[key] = [] }
    }

    func asked(_ key: String, at path: [String]) {
        read[path.joined(separator: "\u{0}"), default: []].insert(key)
    }
}

private struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = "[\(intValue)]"
        self.intValue = intValue
    }
}

private struct RecordingDecoder: Decoder {
    let value: Any
    let path: [String]
    let recorder: KeyRecorder
    var codingPath: [any CodingKey] { path.map { PathKey(stringValue: $0) } }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let object = value as? [String: Any] else {
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath, debugDescription: "not an object"))
        }
        recorder.opened(path)
        return KeyedDecodingContainer(RecordingKeyedContainer<Key>(object: object, path: path, recorder: recorder))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let array = value as? [Any] else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "not a list"))
        }
        return RecordingUnkeyedContainer(array: array, path: path, recorder: recorder)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingSingleValue(value: value, path: path, recorder: recorder)
    }
}

/// Decodes a leaf or a nested value; leaves are not checked here (the real decoder did that), so
/// any scalar satisfies any scalar type. Types JSONDecoder decodes specially (dates, data, URLs,
/// decimals) are leaves too.
private func decodeValue<T: Decodable>(_ type: T.Type, from value: Any, path: [String], recorder: KeyRecorder) throws -> T {
    if let leaf = leaf(type, value) { return leaf }
    return try T(from: RecordingDecoder(value: value, path: path, recorder: recorder))
}

private func leaf<T>(_ type: T.Type, _ value: Any) -> T? {
    switch type {
    case is String.Type: return (value as? String ?? "") as? T
    case is Bool.Type: return (value as? Bool ?? false) as? T
    case is Double.Type: return ((value as? NSNumber)?.doubleValue ?? 0) as? T
    case is Float.Type: return ((value as? NSNumber)?.floatValue ?? 0) as? T
    case is Int.Type: return ((value as? NSNumber)?.intValue ?? 0) as? T
    case is Int64.Type: return ((value as? NSNumber)?.int64Value ?? 0) as? T
    case is Int32.Type: return ((value as? NSNumber)?.int32Value ?? 0) as? T
    case is UInt.Type: return ((value as? NSNumber)?.uintValue ?? 0) as? T
    case is UInt64.Type: return ((value as? NSNumber)?.uint64Value ?? 0) as? T
    case is Date.Type: return Date(timeIntervalSince1970: 0) as? T
    case is Data.Type: return Data() as? T
    case is URL.Type: return URL(fileURLWithPath: "/") as? T
    case is Decimal.Type: return Decimal(0) as? T
    default: return nil
    }
}

private struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: Any]
    let path: [String]
    let recorder: KeyRecorder
    var codingPath: [any CodingKey] { path.map { PathKey(stringValue: $0) } }
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        recorder.asked(key.stringValue, at: path)
        return object[key.stringValue] != nil
    }

    private func value(_ key: Key) throws -> Any {
        recorder.asked(key.stringValue, at: path)
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) is NSNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(type, from: try value(key), path: path + [key.stringValue], recorder: recorder)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        recorder.asked(key.stringValue, at: path)
        guard let value = object[key.stringValue], !(value is NSNull) else { return nil }
        return try decodeValue(type, from: value, path: path + [key.stringValue], recorder: recorder)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try RecordingDecoder(value: try value(key), path: path + [key.stringValue], recorder: recorder).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try RecordingDecoder(value: try value(key), path: path + [key.stringValue], recorder: recorder).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        RecordingDecoder(value: object, path: path, recorder: recorder)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        RecordingDecoder(value: try value(key), path: path + [key.stringValue], recorder: recorder)
    }
}

private struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    let array: [Any]
    let path: [String]
    let recorder: KeyRecorder
    var currentIndex = 0
    var codingPath: [any CodingKey] { path.map { PathKey(stringValue: $0) } }
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    init(array: [Any], path: [String], recorder: KeyRecorder) {
        self.array = array
        self.path = path
        self.recorder = recorder
    }

    private mutating func next() throws -> (Any, [String]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "end of list"))
        }
        defer { currentIndex += 1 }
        return (array[currentIndex], path + ["[\(currentIndex)]"])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex] is NSNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, itemPath) = try next()
        return try decodeValue(type, from: value, path: itemPath, recorder: recorder)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, itemPath) = try next()
        return try RecordingDecoder(value: value, path: itemPath, recorder: recorder).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, itemPath) = try next()
        return try RecordingDecoder(value: value, path: itemPath, recorder: recorder).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, itemPath) = try next()
        return RecordingDecoder(value: value, path: itemPath, recorder: recorder)
    }
}

private struct RecordingSingleValue: SingleValueDecodingContainer {
    let value: Any
    let path: [String]
    let recorder: KeyRecorder
    var codingPath: [any CodingKey] { path.map { PathKey(stringValue: $0) } }

    func decodeNil() -> Bool { value is NSNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(type, from: value, path: path, recorder: recorder)
    }
}
