import Foundation
import Logging
import PostgresNIO
import StorageAPI

/// Search indexes on PostgreSQL. Folding (case, accents, ß → ss), tokens, tiers and highlights are
/// the shared ``SearchRules`` and ``SearchText``, run here in Swift when a record is written and
/// when candidates are ranked, so a search answers exactly what SQLite's answers. PostgreSQL keeps
/// what finds the candidates: the folded key (byte order) and every folded word (`text[]`, GIN).
enum PostgresSearch {
    /// A record's search row.
    struct Row {
        var key: String
        var words: [String]
        var filters: String

        init(spec: SearchIndexSpec, data: JSONValue) {
            key = SearchRules.foldedKey(spec, data)
            var seen: Set<String> = []
            words = spec.fields.flatMap { field in SearchRules.strings(field, in: data).flatMap { SearchText.tokens($0.text).map(\.folded) } }
                .filter { seen.insert($0).inserted }
            let values = SearchRules.filterValues(spec, data).mapValues { JSONValue.array($0.sorted().map(JSONValue.string)) }
            filters = JSONValue.object(values).canonicalJSONText
        }
    }

    /// Keeps a collection's search rows in step with one write, in its transaction.
    static func follow(_ connection: PostgresConnection, _ operation: WriteOperation, record: StorageAPI.Record?,
                       spec: SearchIndexSpec, logger: Logger) async throws {
        guard let record, let data = operation.data else {
            if let id = operation.id {
                try await connection.query("DELETE FROM search_rows WHERE collection = \(operation.collection) AND id = \(id)", logger: logger)
            }
            return
        }
        try await upsert(connection, record: record, row: Row(spec: spec, data: try data.parsed()), logger: logger)
    }

    private static func upsert(_ connection: PostgresConnection, record: StorageAPI.Record, row: Row, logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO search_rows (collection, id, owner, key, words, filters)
            VALUES (\(record.collection), \(record.id), \(record.owner), \(row.key), \(row.words), \(row.filters)::jsonb)
            ON CONFLICT (collection, id) DO UPDATE SET owner = excluded.owner, key = excluded.key, words = excluded.words,
                filters = excluded.filters
            """, logger: logger)
    }

    /// Indexes every record of `collection` again for `spec` (or drops its rows when nil).
    static func rebuild(_ connection: PostgresConnection, collection: String, spec: SearchIndexSpec?, logger: Logger) async throws {
        try await connection.query("DELETE FROM search_rows WHERE collection = \(collection)", logger: logger)
        guard let spec else { return }
        var records: [StorageAPI.Record] = []
        for try await (id, owner, version, data) in try await connection.query("""
            SELECT id, owner, version, data::text FROM records WHERE collection = \(collection)
            """, logger: logger).decode((String, String, Int64, String).self) {
            records.append(StorageAPI.Record(collection: collection, id: id, owner: owner, version: version, createdAt: Date(), updatedAt: Date(),
                                             data: JSONDocument(trustedBytes: Data(data.utf8))))
        }
        for record in records {
            try await upsert(connection, record: record, row: Row(spec: spec, data: try record.data.parsed()), logger: logger)
        }
    }

    /// The conditions every search and browse shares: the collection, the owner, the filters.
    private static func scope(_ query: SearchQuery, into statement: inout Statement) -> [String] {
        var conditions = ["s.collection = \(PostgresSQL.literal(query.collection))", "s.owner = \(statement.bind(query.owner))"]
        for filter in query.filters {
            // The field is one of the index's filters (validated), written as a literal.
            let held = "COALESCE(s.filters -> \(PostgresSQL.literal(filter.field)), '[]'::jsonb)"
            let values = statement.bindArray(filter.values)
            switch filter.match {
            case .any: conditions.append("\(held) ?| \(values)")
            case .all: conditions.append("\(held) ?& \(values)")
            case .none: conditions.append("NOT (\(held) ?| \(values))")
            }
        }
        return conditions
    }

    static let columns = "r.collection, r.id, r.owner, r.version, r.created_at, r.updated_at, r.data::text, s.key"

    /// Every record passing the filters, by folded key then id, after the cursor.
    static func browse(_ query: SearchQuery) -> Statement {
        var statement = Statement()
        var conditions = scope(query, into: &statement)
        if let after = query.after {
            conditions.append("(s.key, s.id) > (\(statement.bind(after.key)), \(statement.bind(after.id)))")
        }
        let limit = statement.bind(Int64(query.limit + 1))
        statement.append("""
            SELECT \(columns) FROM search_rows s JOIN records r ON r.collection = s.collection AND r.id = s.id
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY s.key, s.id LIMIT \(limit)
            """)
        return statement
    }

    /// The records that can match `terms`: holding every whole word typed, and a word starting
    /// with the last one while it is being typed. The shared rules then rank them.
    static func candidates(_ query: SearchQuery, terms: SearchText.Terms) -> Statement {
        var statement = Statement()
        var conditions = scope(query, into: &statement)
        var whole = terms.groups.flatMap { $0 }
        if terms.lastIsPrefix, let last = whole.popLast() {
            let pattern = statement.bind(PostgresSQL.likeEscaped(last) + "%")
            conditions.append("EXISTS (SELECT 1 FROM unnest(s.words) AS w WHERE w LIKE \(pattern))")
        }
        if !whole.isEmpty { conditions.append("s.words @> \(statement.bindArray(whole))") }
        statement.append("""
            SELECT \(columns) FROM search_rows s JOIN records r ON r.collection = s.collection AND r.id = s.id
            WHERE \(conditions.joined(separator: " AND "))
            """)
        return statement
    }

    /// The best `limit` of the candidates: by tier, then folded key and id in byte order, with highlights.
    static func rank(_ candidates: [(StorageAPI.Record, String)], spec: SearchIndexSpec, terms: SearchText.Terms, limit: Int) -> [SearchHit] {
        var matches: [(tier: SearchTier, key: String, record: StorageAPI.Record, data: JSONValue)] = []
        for (record, key) in candidates {
            guard let data = try? record.data.parsed(), let tier = SearchRules.tier(spec, data, terms) else { continue }
            matches.append((tier, key, record, data))
        }
        matches.sort { a, b in
            if a.tier != b.tier { return a.tier < b.tier }
            if a.key != b.key { return a.key.utf8.lexicographicallyPrecedes(b.key.utf8) }
            return a.record.id.utf8.lexicographicallyPrecedes(b.record.id.utf8)
        }
        return matches.prefix(limit).map { SearchHit(record: $0.record, tier: $0.tier, highlights: SearchRules.highlights(spec, $0.data, terms)) }
    }
}

extension Statement {
    /// A list of strings, as `text[]`.
    mutating func bindArray(_ values: [String]) -> String {
        appendBind(values)
        return "$\(binds.count)::text[]"
    }
}
