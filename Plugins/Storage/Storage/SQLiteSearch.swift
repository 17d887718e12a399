import Foundation
import GRDB
import StorageAPI

/// Search indexes in SQLite: one row per indexed record in `search_rows` (folded key, folded text,
/// scope tokens) with a B-tree over `(collection, owner, key)`, and an FTS5 table over those rows.
///
/// A search as you type runs up to three steps and stops as soon as it has `limit` hits:
/// 1. exact and prefix matches of the key: a range scan of the B-tree, already in key order — so a
///    one-letter query over a million rows reads 20 index entries instead of ranking every match;
/// 2. every word in the key: FTS5 restricted to the key column;
/// 3. every word in the key or the text fields: FTS5 over both.
/// Steps 2 and 3 rank by BM25 among the first ``candidateCap`` matches in FTS order: a two-letter
/// query can match most of a dictionary, and ranking all of it is what makes a plain FTS5
/// `ORDER BY rank` take ~100 ms at this size.
///
/// Owner, collection and filter values are FTS tokens of a third column (`scope`), so FTS5 itself
/// narrows to one owner's records of one collection and the filters before anything is ranked.
enum SQLiteSearch {
    static let candidateCap = 1000

    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE search_rows (
                rowid INTEGER PRIMARY KEY,
                collection TEXT NOT NULL,
                record_id TEXT NOT NULL,
                owner TEXT NOT NULL,
                key TEXT NOT NULL,
                body TEXT NOT NULL,
                scope TEXT NOT NULL
            );
            CREATE UNIQUE INDEX search_rows_by_record ON search_rows(collection, record_id);
            CREATE INDEX search_rows_by_key ON search_rows(collection, owner, key, record_id);
            CREATE VIRTUAL TABLE search_fts USING fts5(
                key, body, scope, content = 'search_rows', content_rowid = 'rowid',
                tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'", prefix = '2 3');
            CREATE TRIGGER search_rows_insert AFTER INSERT ON search_rows BEGIN
                INSERT INTO search_fts(rowid, key, body, scope) VALUES (new.rowid, new.key, new.body, new.scope);
            END;
            CREATE TRIGGER search_rows_delete AFTER DELETE ON search_rows BEGIN
                INSERT INTO search_fts(search_fts, rowid, key, body, scope) VALUES ('delete', old.rowid, old.key, old.body, old.scope);
            END;
            CREATE TRIGGER search_rows_update AFTER UPDATE ON search_rows BEGIN
                INSERT INTO search_fts(search_fts, rowid, key, body, scope) VALUES ('delete', old.rowid, old.key, old.body, old.scope);
                INSERT INTO search_fts(rowid, key, body, scope) VALUES (new.rowid, new.key, new.body, new.scope);
            END;
            """)
    }

    // MARK: Keeping the index

    /// Indexes every record of a collection anew (a search index declared or changed).
    static func rebuild(_ db: Database, collection: String, spec: SearchIndexSpec?) throws {
        try db.execute(sql: "DELETE FROM search_rows WHERE collection = ?", arguments: [collection])
        guard let spec else { return }
        let rows = try Row.fetchCursor(db, sql: "SELECT id, owner, data FROM records WHERE collection = ?", arguments: [collection])
        while let row = try rows.next() {
            let data = try JSONDocument(trustedBytes: row[2] as Data).parsed()
            try insert(db, collection: collection, id: row[0], owner: row[1], data: data, spec: spec)
        }
    }

    static func insert(_ db: Database, collection: String, id: String, owner: String, data: JSONValue,
                       spec: SearchIndexSpec) throws {
        try db.cachedStatement(sql: """
            INSERT INTO search_rows(collection, record_id, owner, key, body, scope) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [collection, id, owner, SearchRules.foldedKey(spec, data),
                                     SearchRules.foldedBody(spec, data), scope(spec, collection, owner, data)])
    }

    static func update(_ db: Database, collection: String, id: String, owner: String, data: JSONValue,
                       spec: SearchIndexSpec) throws {
        try db.cachedStatement(sql: "UPDATE search_rows SET key = ?, body = ?, scope = ? WHERE collection = ? AND record_id = ?")
            .execute(arguments: [SearchRules.foldedKey(spec, data), SearchRules.foldedBody(spec, data),
                                 scope(spec, collection, owner, data), collection, id])
    }

    static func delete(_ db: Database, collection: String, id: String) throws {
        try db.cachedStatement(sql: "DELETE FROM search_rows WHERE collection = ? AND record_id = ?")
            .execute(arguments: [collection, id])
    }

    // MARK: Tokens

    /// ` s<owner and collection> f<n>v<value> … `: spaces on both sides, so a token is found with `instr`.
    static func scope(_ spec: SearchIndexSpec, _ collection: String, _ owner: String, _ data: JSONValue) -> String {
        var text = " " + ownerToken(collection, owner) + " "
        for (index, field) in spec.filters.enumerated() {
            for value in Set(SearchRules.strings(field, in: data).map(\.text)).sorted() {
                text += filterToken(index, value) + " "
            }
        }
        return text
    }

    static func ownerToken(_ collection: String, _ owner: String) -> String {
        "s" + hex(collection + "\u{1}" + owner)
    }

    static func filterToken(_ index: Int, _ value: String) -> String {
        "f\(index)v" + hex(value)
    }

    private static func hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 15)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Searching

    static func search(_ db: Database, _ query: SearchQuery, spec: SearchIndexSpec) throws -> SearchResult {
        let terms = SearchText.terms(query.text)
        guard !terms.isEmpty else { return SearchResult(hits: []) }
        var found: [(tier: SearchTier, record: StorageAPI.Record, data: JSONValue)] = []
        var seen: Set<String> = []

        func take(_ ids: [String]) throws {
            for id in ids where !seen.contains(id) && found.count < query.limit {
                seen.insert(id)
                guard let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(SQLQueryBuilder.recordColumns) FROM records WHERE collection = ? AND id = ?"),
                    arguments: [query.collection, id]) else { continue }
                let record = SQLiteRecordStore.record(row)
                let data = try record.data.parsed()
                // The stored row decides the tier (and drops a row the index matched on tokens alone).
                guard let tier = SearchRules.tier(spec, data, terms) else { continue }
                found.append((tier, record, data))
            }
        }

        // 1. Exact and prefix matches of the key, in key order.
        let key = terms.foldedKey
        var conditions = ["collection = ?", "owner = ?"]
        var arguments: [any DatabaseValueConvertible] = [query.collection, query.owner]
        if terms.lastIsPrefix {
            conditions.append("key >= ? AND key < ?")
            arguments += [key, key + "\u{10FFFF}"]
        } else {
            conditions.append("(key = ? OR (key >= ? AND key < ?))")
            arguments += [key, key + " ", key + " \u{10FFFF}"]
        }
        for filter in query.filters {
            guard let index = spec.filters.firstIndex(of: filter.field) else { continue }
            let tests = filter.values.map { _ in "instr(scope, ?) > 0" }
            arguments += filter.values.map { " " + filterToken(index, $0) + " " }
            switch filter.match {
            case .any: conditions.append("(" + tests.joined(separator: " OR ") + ")")
            case .all: conditions.append("(" + tests.joined(separator: " AND ") + ")")
            case .none: conditions.append("NOT (" + tests.joined(separator: " OR ") + ")")
            }
        }
        try take(String.fetchAll(
            db.cachedStatement(sql: "SELECT record_id FROM search_rows WHERE \(conditions.joined(separator: " AND ")) ORDER BY key, record_id LIMIT \(query.limit)"),
            arguments: StatementArguments(arguments)))

        // 2 and 3. Every word in the key, then in the key or the text.
        let scopeExpression = scopeMatch(query, spec: spec)
        let words = wordsMatch(terms)
        for columns in ["key", "{key body}"] where found.count < query.limit {
            let match = "scope : (\(scopeExpression)) AND \(columns) : (\(words))"
            let ids = try String.fetchAll(db.cachedStatement(sql: """
                SELECT r.record_id FROM (
                    SELECT rowid, bm25(search_fts, 10.0, 1.0, 0.0) AS score FROM search_fts
                    WHERE search_fts MATCH ? LIMIT \(candidateCap)
                ) AS m JOIN search_rows AS r ON r.rowid = m.rowid
                WHERE r.collection = ? AND r.owner = ?
                ORDER BY m.score, r.record_id LIMIT ?
                """), arguments: [match, query.collection, query.owner, query.limit + seen.count])
            try take(ids)
        }
        // Ranked by tier; within a tier, the order each step found them in.
        let ranked = found.enumerated().sorted { a, b in
            a.element.tier != b.element.tier ? a.element.tier < b.element.tier : a.offset < b.offset
        }
        return SearchResult(hits: ranked.map { _, hit in
            SearchHit(record: hit.record, tier: hit.tier, highlights: SearchRules.highlights(spec, hit.data, terms))
        })
    }

    /// The owner's records of the collection, narrowed by the filters, as an FTS5 expression.
    private static func scopeMatch(_ query: SearchQuery, spec: SearchIndexSpec) -> String {
        var expression = ownerToken(query.collection, query.owner)
        var exclusions: [String] = []
        for filter in query.filters {
            guard let index = spec.filters.firstIndex(of: filter.field) else { continue }
            let tokens = filter.values.map { filterToken(index, $0) }
            switch filter.match {
            case .any: expression += " AND (" + tokens.joined(separator: " OR ") + ")"
            case .all: expression += " AND " + tokens.joined(separator: " AND ")
            case .none: exclusions += tokens
            }
        }
        // FTS5's NOT is binary: `a NOT b`.
        for token in exclusions { expression = "(\(expression)) NOT \(token)" }
        return expression
    }

    /// Every group of the query: a word, or a run of ideographs as a phrase; the last as a prefix.
    private static func wordsMatch(_ terms: SearchText.Terms) -> String {
        terms.groups.enumerated().map { index, group in
            let phrase = "\"" + group.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return terms.lastIsPrefix && index == terms.groups.count - 1 ? phrase + " *" : phrase
        }.joined(separator: " AND ")
    }
}
