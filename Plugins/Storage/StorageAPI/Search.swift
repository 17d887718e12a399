import Bus
import Foundation

/// A collection's full-text index, declared with it (``CollectionSchema/search``). Each backend
/// keeps it its own way (SQLite: a B-tree over the folded key plus an FTS5 table) and answers the
/// same ``SearchQuery`` with the same tiers; the contract suite holds them to it.
public struct SearchIndexSpec: Codable, Sendable, Hashable {
    /// The headword: a string field whose exact and prefix matches rank first.
    public var key: String
    /// Further fields searched, strings or arrays of strings, ranked below matches in the key.
    public var text: [String]
    /// Fields a search can filter on: strings or arrays of strings (a collection id, tags).
    public var filters: [String]

    public init(key: String, text: [String] = [], filters: [String] = []) {
        self.key = key
        self.text = text
        self.filters = filters
    }

    public var fields: [String] { [key] + text }
}

/// A search as the user types: every word must match (the last one as a prefix), in the key or
/// the text fields, among one owner's records. A query with no words browses: every record that
/// passes the filters, in folded-key order (then id), `limit` at a time, each page after the last
/// one's ``SearchResult/next``; its hits have tier ``SearchTier/listed`` and no highlights.
public struct SearchQuery: Codable, Sendable, Hashable {
    public var collection: String
    public var owner: String
    public var text: String
    public var filters: [SearchFilter]
    /// 1...100.
    public var limit: Int
    /// Browsing (a query with no words) goes on after this record.
    public var after: SearchCursor?

    public init(collection: String, owner: String, text: String, filters: [SearchFilter] = [], limit: Int = 20, after: SearchCursor? = nil) {
        self.collection = collection
        self.owner = owner
        self.text = text
        self.filters = filters
        self.limit = limit
        self.after = after
    }

    public static let maxLimit = 100
    public static let maxTextLength = 200

    /// Checks the query against the collection's index.
    public func validate(against spec: SearchIndexSpec?) throws(StorageError) {
        guard let spec else {
            throw StorageError.invalid("'\(collection)' has no search index; declare one with the collection.", field: "collection")
        }
        guard (1...Self.maxLimit).contains(limit) else {
            throw StorageError.invalid("limit must be between 1 and \(Self.maxLimit), not \(limit).", field: "limit")
        }
        guard text.count <= Self.maxTextLength else {
            throw StorageError.invalid("A search is at most \(Self.maxTextLength) characters.", field: "q")
        }
        guard filters.count <= 8 else { throw StorageError.invalid("A search takes at most 8 filters.") }
        for filter in filters {
            guard spec.filters.contains(filter.field) else {
                throw StorageError.invalid("'\(filter.field)' is not a filter of the search index on '\(collection)'.", field: filter.field)
            }
            guard (1...100).contains(filter.values.count) else {
                throw StorageError.invalid("A search filter takes 1 to 100 values.", field: filter.field)
            }
        }
    }
}

/// A condition on a filter field, which holds a string or a list of strings.
public struct SearchFilter: Codable, Sendable, Hashable {
    public enum Match: String, Codable, Sendable {
        /// The field holds at least one of the values.
        case any
        /// The field holds every value.
        case all
        /// The field holds none of the values.
        case none
    }

    public var field: String
    public var match: Match
    public var values: [String]

    public init(_ field: String, _ match: Match, _ values: [String]) {
        self.field = field
        self.match = match
        self.values = values
    }

    /// Whether a record whose field holds `held` passes.
    public func accepts(_ held: Set<String>) -> Bool {
        switch match {
        case .any: values.contains { held.contains($0) }
        case .all: values.allSatisfy { held.contains($0) }
        case .none: !values.contains { held.contains($0) }
        }
    }
}

/// How well a record matched, best first.
public enum SearchTier: Int, Codable, Sendable, Comparable {
    /// The key is the query.
    case exact = 0
    /// The key starts with the query.
    case prefix = 1
    /// Every word is in the key, elsewhere than at its start.
    case key = 2
    /// Every word is in the key or the text fields, some only in the text.
    case text = 3
    /// No words were asked for: the record passes the filters (browsing).
    case listed = 4

    public static func < (lhs: SearchTier, rhs: SearchTier) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One field's matched parts: `[start, end)` offsets in UTF-16 code units, as JavaScript counts.
public struct SearchHighlight: Codable, Sendable, Hashable {
    /// The field path; an array element is `path.index` (`definitions.0`).
    public var field: String
    public var ranges: [[Int]]

    public init(field: String, ranges: [[Int]]) {
        self.field = field
        self.ranges = ranges
    }
}

public struct SearchHit: Codable, Sendable, Hashable {
    public var record: Record
    public var tier: SearchTier
    public var highlights: [SearchHighlight]

    public init(record: Record, tier: SearchTier, highlights: [SearchHighlight]) {
        self.record = record
        self.tier = tier
        self.highlights = highlights
    }
}

public struct SearchResult: Codable, Sendable, Hashable {
    public var hits: [SearchHit]
    /// Browsing: where the next page starts, nil on the last page. Nil for a search with words.
    public var next: SearchCursor?
    public init(hits: [SearchHit], next: SearchCursor? = nil) {
        self.hits = hits
        self.next = next
    }
}

/// A place in a browse: the folded key and id of the last record a page gave.
public struct SearchCursor: Codable, Sendable, Hashable {
    public var key: String
    public var id: String
    public init(key: String, id: String) {
        self.key = key
        self.id = id
    }

    /// Whether a record at (`key`, `id`) comes after this place, in the browse order (UTF-8 bytes).
    public func precedes(key other: String, id otherID: String) -> Bool {
        if key != other { return key.utf8.lexicographicallyPrecedes(other.utf8) }
        return id.utf8.lexicographicallyPrecedes(otherID.utf8)
    }
}

/// A store that keeps declared search indexes.
public protocol RecordSearching: Sendable {
    /// The best `limit` matches: by tier, then (exact and prefix) by folded key, then by relevance.
    func search(_ query: SearchQuery) async throws(StorageError) -> SearchResult
}

/// What every backend does the same way: reading a record's searchable values, tiers, highlights.
public enum SearchRules {
    /// The strings of a field (a string, or the strings of an array); an array element's path is
    /// `field.index`.
    public static func strings(_ field: String, in data: JSONValue) -> [(path: String, text: String)] {
        switch data.value(at: field.split(separator: ".")) {
        case .string(let text): return [(field, text)]
        case .array(let items):
            return items.enumerated().compactMap { index, item in
                if case .string(let text) = item { (field + "." + String(index), text) } else { nil }
            }
        default: return []
        }
    }

    /// The folded key of a record.
    public static func foldedKey(_ spec: SearchIndexSpec, _ data: JSONValue) -> String {
        SearchText.fold(strings(spec.key, in: data).map(\.text).joined(separator: " "))
    }

    /// The folded text fields of a record.
    public static func foldedBody(_ spec: SearchIndexSpec, _ data: JSONValue) -> String {
        spec.text.flatMap { strings($0, in: data).map { SearchText.fold($0.text) } }.joined(separator: " ")
    }

    /// The values a record holds in each filter field.
    public static func filterValues(_ spec: SearchIndexSpec, _ data: JSONValue) -> [String: Set<String>] {
        var values: [String: Set<String>] = [:]
        for field in spec.filters { values[field] = Set(strings(field, in: data).map(\.text)) }
        return values
    }

    /// The tier of a record for `terms`, or nil when it does not match.
    public static func tier(_ spec: SearchIndexSpec, _ data: JSONValue, _ terms: SearchText.Terms) -> SearchTier? {
        let key = foldedKey(spec, data)
        if let tier = keyTier(key, terms) { return tier }
        let keyTokens = SearchText.tokens(strings(spec.key, in: data).map(\.text).joined(separator: " "))
        if SearchText.matchesAll(keyTokens, terms) { return .key }
        // Each group must be found whole within one field: tokens of different fields never join.
        let perField = spec.fields.flatMap { field in strings(field, in: data).map { SearchText.tokens($0.text) } }
        let found = terms.groups.indices.allSatisfy { index in
            let single = SearchText.Terms(groups: [terms.groups[index]],
                                          lastIsPrefix: terms.lastIsPrefix && index == terms.groups.count - 1)
            return perField.contains { SearchText.matchesAll($0, single) }
        }
        return found ? .text : nil
    }

    /// `.exact` or `.prefix` when the folded key starts with the query, else nil.
    public static func keyTier(_ key: String, _ terms: SearchText.Terms) -> SearchTier? {
        let query = terms.foldedKey
        guard !query.isEmpty else { return nil }
        if key == query { return .exact }
        if terms.lastIsPrefix ? key.hasPrefix(query) : key.hasPrefix(query + " ") { return .prefix }
        return nil
    }

    /// The matched parts of every searched field of a record.
    public static func highlights(_ spec: SearchIndexSpec, _ data: JSONValue, _ terms: SearchText.Terms) -> [SearchHighlight] {
        spec.fields.flatMap { field in
            strings(field, in: data).compactMap { path, text in
                let ranges = SearchText.highlights(text, terms)
                return ranges.isEmpty ? nil : SearchHighlight(field: path, ranges: ranges)
            }
        }
    }
}
