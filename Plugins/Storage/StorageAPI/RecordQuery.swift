import Bus
import Foundation

/// A query over one collection: filters, an order and a page size, continued by an opaque cursor.
public struct RecordQuery: Codable, Sendable, Hashable {
    public var collection: String
    /// Whose records; `nil` queries every owner (for system tools only — never from a user's request).
    public var owner: String?
    public var filters: [Filter]
    /// Sort keys; the record id is always the last, implicit tie-breaker, so pages never overlap.
    public var order: [SortKey]
    /// 1...1000.
    public var limit: Int
    /// From ``RecordPage/nextCursor`` of the previous page.
    public var cursor: String?

    public init(collection: String, owner: String?, filters: [Filter] = [], order: [SortKey] = [],
                limit: Int = 50, cursor: String? = nil) {
        self.collection = collection
        self.owner = owner
        self.filters = filters
        self.order = order
        self.limit = limit
        self.cursor = cursor
    }

    /// The largest page.
    public static let maxLimit = 1000
    /// The most values an `in` filter takes.
    public static let maxInValues = 100

    /// Validates the query and decodes its cursor: what every backend does first.
    public func validatedCursor() throws(StorageError) -> QueryCursor? {
        try validate()
        return try cursor.map { text throws(StorageError) in try QueryCursor.decode(text, keyCount: order.count) }
    }

    /// Checks names and bounds.
    public func validate() throws(StorageError) {
        guard StorageNames.isValidCollection(collection) else {
            throw StorageError.invalid("'\(collection)' is not a valid collection name.", field: "collection")
        }
        guard (1...Self.maxLimit).contains(limit) else {
            throw StorageError.invalid("limit must be between 1 and \(Self.maxLimit), not \(limit).", field: "limit")
        }
        guard filters.count <= 16, order.count <= 4 else {
            throw StorageError.invalid("A query takes at most 16 filters and 4 sort keys.")
        }
        for field in filters.map(\.field) + order.map(\.field) where !StorageNames.isValidField(field) {
            throw StorageError.invalid("'\(field)' is not a valid field path.", field: field)
        }
        for filter in filters where filter.op == .in {
            guard case .array(let values) = filter.value, values.count <= Self.maxInValues else {
                throw StorageError.invalid("An 'in' filter takes a list of at most \(Self.maxInValues) values.", field: filter.field)
            }
        }
        for filter in filters where filter.op == .prefix {
            guard case .string = filter.value else {
                throw StorageError.invalid("A 'prefix' filter takes a string.", field: filter.field)
            }
        }
    }
}

/// One condition on a field.
public struct Filter: Codable, Sendable, Hashable {
    public enum Op: String, Codable, Sendable {
        case eq, ne, lt, lte, gt, gte
        /// The field is one of the values of a list.
        case `in`
        /// The field is a string starting with the value.
        case prefix
        /// The field is an array holding the value (not indexed: for rare, per-owner sweeps such as
        /// "every entry with this tag").
        case contains
    }

    public var field: String
    public var op: Op
    public var value: JSONValue

    public init(_ field: String, _ op: Op, _ value: JSONValue) {
        self.field = field
        self.op = op
        self.value = value
    }
}

/// One sort key.
public struct SortKey: Codable, Sendable, Hashable {
    public var field: String
    public var descending: Bool

    public init(_ field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }
}

/// One page of results.
public struct RecordPage: Codable, Sendable, Hashable {
    public var records: [Record]
    /// Pass back as ``RecordQuery/cursor`` for the next page; `nil` on the last page.
    public var nextCursor: String?

    public init(records: [Record], nextCursor: String?) {
        self.records = records
        self.nextCursor = nextCursor
    }
}

/// The position after the last record of a page: its sort values and id. Opaque to clients.
public struct QueryCursor: Codable, Sendable, Hashable {
    public var values: [JSONValue]
    public var id: String

    public init(values: [JSONValue], id: String) {
        self.values = values
        self.id = id
    }

    /// Base64url of the cursor's JSON, without padding. (Written by hand: `JSONEncoder` plus
    /// `replacingOccurrences` were 8 % of a one-note list request.)
    public func encoded() -> String {
        var json = "["
        for value in values {
            json += value.canonicalJSONText
            json += ","
        }
        json += JSONValue.string(id).canonicalJSONText + "]"
        return Self.base64URL(Array(json.utf8))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 2 < bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output += [alphabet[Int(chunk >> 18)], alphabet[Int(chunk >> 12 & 63)], alphabet[Int(chunk >> 6 & 63)], alphabet[Int(chunk & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let chunk = UInt32(bytes[index]) << 16
            output += [alphabet[Int(chunk >> 18)], alphabet[Int(chunk >> 12 & 63)]]
        } else if rest == 2 {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output += [alphabet[Int(chunk >> 18)], alphabet[Int(chunk >> 12 & 63)], alphabet[Int(chunk >> 6 & 63)]]
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes a cursor for a query with `keyCount` sort keys.
    public static func decode(_ text: String, keyCount: Int) throws(StorageError) -> QueryCursor {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
              case .array(let parts)? = try? JSONParser.parse(data),
              case .string(let id)? = parts.last, parts.count == keyCount + 1 else {
            throw StorageError.invalid("The cursor is not one this query returned; start again without it.", field: "cursor")
        }
        return QueryCursor(values: Array(parts.dropLast()), id: id)
    }
}
