import Bus
/// A JSON value, for filters, cursors and the in-memory backend's evaluation of them.
///
/// Ordering follows SQLite's, so that every backend sorts alike: `null` < numbers (booleans count as
/// 0 and 1) < strings (compared by their UTF-8 bytes) < arrays and objects (compared by their JSON).
public enum JSONValue: Codable, Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9.0e15 { try container.encode(Int64(value)) }
            else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value at a dotted path such as `address.city`; `.null` when any step is missing.
    public func value(at path: [Substring]) -> JSONValue {
        var current = self
        for key in path {
            guard case .object(let object) = current, let next = object[String(key)] else { return .null }
            current = next
        }
        return current
    }

    /// Rank of the value's type in the shared ordering.
    private var typeRank: Int {
        switch self {
        case .null: 0
        case .bool, .number: 1
        case .string: 2
        case .array, .object: 3
        }
    }

    private var numeric: Double? {
        switch self {
        case .bool(let value): value ? 1 : 0
        case .number(let value): value
        default: nil
        }
    }

    /// Compares two values the way every backend does.
    public static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> ComparisonResult3 {
        if lhs.typeRank != rhs.typeRank { return lhs.typeRank < rhs.typeRank ? .ascending : .descending }
        switch (lhs, rhs) {
        case (.null, .null): return .same
        case (.string(let a), .string(let b)):
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .ascending : (a == b ? .same : .descending)
        default:
            if let a = lhs.numeric, let b = rhs.numeric { return a < b ? .ascending : (a == b ? .same : .descending) }
            let a = lhs.canonicalJSONText, b = rhs.canonicalJSONText
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .ascending : (a == b ? .same : .descending)
        }
    }

    /// The value as compact JSON text (object keys sorted).
    public var canonicalJSONText: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            if value.rounded() == value, abs(value) < 9.0e15 { return String(Int64(value)) }
            return value.isFinite ? "\(value)" : "null"
        case .string(let value):
            var text = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
            return text + "\""
        case .array(let values): return "[" + values.map(\.canonicalJSONText).joined(separator: ",") + "]"
        case .object(let object):
            return "{" + object.keys.sorted().map { JSONValue.string($0).canonicalJSONText + ":" + (object[$0]?.canonicalJSONText ?? "null") }
                .joined(separator: ",") + "}"
        }
    }

}

/// The result of ``JSONValue/compare(_:_:)``.
public enum ComparisonResult3: Sendable {
    case ascending, same, descending
}
