import Foundation
import GRDB
import StorageAPI
import Synchronization

/// Search indexes in SQLite: one row per indexed record in `search_rows` (folded key, folded text,
/// scope tokens) with a B-tree over `(collection, owner, key)`, and an FTS5 table over those rows.
///
/// A search as you type runs up to three steps and stops as soon as it has `limit` hits:
/// 1. exact and prefix matches of the key: a range scan of the B-tree, already in key order — so a
///    one-letter query over a million rows reads 20 index entries instead of ranking every match;
/// 2. every word in the key: FTS5 restricted to the key column;
/// 3. every word in the key or the text fields: FTS5 over both.
/// Steps 2 and 3 take the first `candidateCap` matches (``SQLiteSearchTuning``) in FTS order and put the shortest entries
/// first (the closest to what was typed). A two-letter query can match most of a dictionary:
/// ranking all of it is what makes a plain FTS5 `ORDER BY rank` take ~100 ms at this size.
///
/// Owner, collection and filter values are FTS tokens of a third column (`scope`). For a user with
/// few rows, the owner's token narrows the match before anything is read. For a user who owns most
/// of a big collection that token's doclist is as long as the collection (40 ms to read at a
/// million rows), so the match runs without it and each candidate's owner is checked on its row
/// instead — see ``OwnerSizes``.
/// How steps 2 and 3 of a search find and rank FTS matches; tests turn the knobs to run every path.
public struct SQLiteSearchTuning: Sendable {
    /// Matches ranked per step.
    public var candidateCap = 300
    /// Owners with at least this many rows in a collection are checked per candidate, not by token.
    public var bigOwner = 20_000
    /// How many FTS matches a per-candidate check reads before it gives up and uses the token.
    public var scanCap = 30_000
    /// Spatial queries of an owner with at most this many points in a collection read that owner's
    /// points by index; larger owners (and everyone's queries) go through the collection's R*Tree.
    public var spatialSmallOwner = 4096
    /// A bigger owner's query also reads their points by index when the area's latitude band holds
    /// at most this many of them; else it goes through the tree.
    public var spatialOwnerBandCap = 8192

    public init(candidateCap: Int = 300, bigOwner: Int = 20_000, scanCap: Int = 30_000, spatialSmallOwner: Int = 4096,
                spatialOwnerBandCap: Int = 8192) {
        self.candidateCap = candidateCap
        self.bigOwner = bigOwner
        self.scanCap = scanCap
        self.spatialSmallOwner = spatialSmallOwner
        self.spatialOwnerBandCap = spatialOwnerBandCap
    }
}

enum SQLiteSearch {

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

    /// Version 3 keeps the FTS table from Swift, once per batch, instead of by triggers per row:
    /// FTS5 flushes its pending terms to a new segment at every statement that opens a savepoint,
    /// so a trigger made one segment per written record (and the merges that follow) — most of an
    /// import's time. The table is made anew without per-row sizes (`columnsize=0`: they served
    /// BM25 only, which ranking no longer uses) and merges segments 8 at a time instead of 4 — each a
    /// tenth to a fifth less work per write, measured — and filled again from `search_rows`.
    static func migrateToVersion3(_ db: Database) throws {
        try db.execute(sql: """
            DROP TRIGGER search_rows_insert;
            DROP TRIGGER search_rows_delete;
            DROP TRIGGER search_rows_update;
            DROP TABLE search_fts;
            CREATE VIRTUAL TABLE search_fts USING fts5(
                key, body, scope, content = 'search_rows', content_rowid = 'rowid', columnsize = 0,
                tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'", prefix = '2 3');
            INSERT INTO search_fts(search_fts, rank) VALUES ('automerge', 8);
            INSERT INTO search_fts(search_fts) VALUES ('rebuild');
            """)
    }

    // MARK: Keeping the index

    /// Indexes every record of a collection anew (a search index declared or changed).
    static func rebuild(_ db: Database, collection: String, spec: SearchIndexSpec?) throws {
        try db.execute(sql: """
            INSERT INTO search_fts(search_fts, rowid, key, body, scope)
            SELECT 'delete', rowid, key, body, scope FROM search_rows WHERE collection = ?
            """, arguments: [collection])
        try db.execute(sql: "DELETE FROM search_rows WHERE collection = ?", arguments: [collection])
        guard let spec else { return }
        let rows = try Row.fetchCursor(db, sql: "SELECT id, owner, data FROM records WHERE collection = ?", arguments: [collection])
        while let row = try rows.next() {
            let data = try JSONDocument(trustedBytes: row[2] as Data).parsed()
            try insert(db, collection: collection, id: row[0], owner: row[1],
                       row: IndexedRow(spec: spec, collection: collection, owner: row[1], data: data))
        }
        try db.execute(sql: """
            INSERT INTO search_fts(rowid, key, body, scope)
            SELECT rowid, key, body, scope FROM search_rows WHERE collection = ?
            """, arguments: [collection])
    }

    /// Takes the records' current rows out of the FTS table; call before changing or deleting them.
    static func unindex(_ db: Database, collection: String, ids: [String]) throws {
        guard !ids.isEmpty else { return }
        try db.cachedStatement(sql: """
            INSERT INTO search_fts(search_fts, rowid, key, body, scope)
            SELECT 'delete', rowid, key, body, scope FROM search_rows
            WHERE collection = ? AND record_id IN (SELECT value FROM json_each(?))
            """).execute(arguments: [collection, jsonArray(ids)])
    }

    /// Puts the records' current rows into the FTS table; call after writing them.
    static func reindex(_ db: Database, collection: String, ids: [String]) throws {
        guard !ids.isEmpty else { return }
        try db.cachedStatement(sql: """
            INSERT INTO search_fts(rowid, key, body, scope)
            SELECT rowid, key, body, scope FROM search_rows
            WHERE collection = ? AND record_id IN (SELECT value FROM json_each(?))
            """).execute(arguments: [collection, jsonArray(ids)])
    }

    private static func jsonArray(_ ids: [String]) -> String {
        JSONValue.array(ids.map(JSONValue.string)).canonicalJSONText
    }

    /// What the index keeps of one record: folded key and text, and the scope tokens.
    struct IndexedRow: Sendable {
        var key: String
        var body: String
        var scope: String

        /// Computed outside the write transaction (folding and parsing are most of the CPU work).
        init(spec: SearchIndexSpec, collection: String, owner: String, data: JSONValue) {
            key = SearchRules.foldedKey(spec, data)
            body = SearchRules.foldedBody(spec, data)
            scope = SQLiteSearch.scope(spec, collection, owner, data)
        }
    }

    /// Writes a record's row of `search_rows` (the FTS table follows in `reindex`).
    static func insert(_ db: Database, collection: String, id: String, owner: String, row: IndexedRow) throws {
        try db.cachedStatement(sql: """
            INSERT INTO search_rows(collection, record_id, owner, key, body, scope) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [collection, id, owner, row.key, row.body, row.scope])
    }

    static func update(_ db: Database, collection: String, id: String, row: IndexedRow) throws {
        try db.cachedStatement(sql: "UPDATE search_rows SET key = ?, body = ?, scope = ? WHERE collection = ? AND record_id = ?")
            .execute(arguments: [row.key, row.body, row.scope, collection, id])
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

    /// - Parameter ownerRows: how many rows the owner has in the collection (at least), from ``OwnerSizes``.
    /// A query with no words: the owner's rows that pass the filters, in key order after the cursor
    /// (the `search_rows_by_key` index gives the order).
    static func browse(_ db: Database, _ query: SearchQuery, spec: SearchIndexSpec) throws -> SearchResult {
        var conditions = ["collection = ?", "owner = ?"]
        var arguments: [any DatabaseValueConvertible] = [query.collection, query.owner]
        if let after = query.after {
            conditions.append("(key > ? OR (key = ? AND record_id > ?))")
            arguments += [after.key, after.key, after.id]
        }
        appendFilters(query, spec: spec, to: &conditions, &arguments)
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT key, record_id FROM search_rows WHERE \(conditions.joined(separator: " AND "))
                ORDER BY key, record_id LIMIT \(query.limit + 1)
                """),
            arguments: StatementArguments(arguments))
        var hits: [SearchHit] = []
        for row in rows.prefix(query.limit) {
            let id: String = row["record_id"]
            guard let found = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(SQLQueryBuilder.recordColumns) FROM records WHERE collection = ? AND id = ?"),
                arguments: [query.collection, id]) else { continue }
            hits.append(SearchHit(record: SQLiteRecordStore.record(found), tier: .listed, highlights: []))
        }
        let last = rows.count > query.limit ? rows[query.limit - 1] : nil
        return SearchResult(hits: hits, next: last.map { SearchCursor(key: $0["key"], id: $0["record_id"]) })
    }

    static func appendFilters(_ query: SearchQuery, spec: SearchIndexSpec, to conditions: inout [String],
                              _ arguments: inout [any DatabaseValueConvertible]) {
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
    }

    static func search(_ db: Database, _ query: SearchQuery, spec: SearchIndexSpec, ownerRows: Int,
                       tuning: SQLiteSearchTuning) throws -> SearchResult {
        let terms = SearchText.terms(query.text)
        guard !terms.isEmpty else { return try browse(db, query, spec: spec) }
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
        appendFilters(query, spec: spec, to: &conditions, &arguments)
        try take(String.fetchAll(
            db.cachedStatement(sql: "SELECT record_id FROM search_rows WHERE \(conditions.joined(separator: " AND ")) ORDER BY key, record_id LIMIT \(query.limit)"),
            arguments: StatementArguments(arguments)))

        // 2 and 3. Every word in the key, then in the key or the text.
        let words = wordsMatch(terms)
        let byToken = ownerRows < tuning.bigOwner
        for columns in ["key", "{key body}"] where found.count < query.limit {
            let wanted = query.limit + seen.count
            var candidates = byToken ? nil
                : try candidatesCheckingOwner(db, query, spec: spec, words: "\(columns) : (\(words))", tuning: tuning)
            if candidates == nil {
                let match = "scope : (\(scopeMatch(query, spec: spec, owner: true))) AND \(columns) : (\(words))"
                candidates = try Array(Candidate.fetchCursor(db.cachedStatement(sql: """
                    SELECT r.record_id, length(r.key) + length(r.body) FROM search_fts AS f
                    CROSS JOIN search_rows AS r ON r.rowid = f.rowid
                    WHERE search_fts MATCH ? LIMIT \(tuning.candidateCap)
                    """), arguments: [match]))
            }
            let ranked = (candidates ?? []).sorted { ($0.length, $0.id) < ($1.length, $1.id) }
            try take(ranked.prefix(wanted).map(\.id))
        }
        // Ranked by tier; within a tier, the order each step found them in.
        let ranked = found.enumerated().sorted { a, b in
            a.element.tier != b.element.tier ? a.element.tier < b.element.tier : a.offset < b.offset
        }
        return SearchResult(hits: ranked.map { _, hit in
            SearchHit(record: hit.record, tier: hit.tier, highlights: SearchRules.highlights(spec, hit.data, terms))
        })
    }

    /// A candidate of steps 2 and 3: a record and the length of its indexed text.
    private struct Candidate: FetchableRecord {
        var id: String
        var length: Int
        init(row: GRDB.Row) {
            id = row[0]
            length = row[1]
        }
    }

    /// Steps 2 and 3 for an owner with many rows: matches without the owner's token, the owner checked
    /// on each candidate's row. Answers nil when the first `scanCap` matches were mostly someone
    /// else's — the owner's token is then the cheaper way.
    private static func candidatesCheckingOwner(_ db: Database, _ query: SearchQuery, spec: SearchIndexSpec,
                                                words: String, tuning: SQLiteSearchTuning) throws -> [Candidate]? {
        let scope = scopeMatch(query, spec: spec, owner: false)
        let match = scope.isEmpty ? words : scope.hasPrefix("NOT ") ? "\(words) \(scope)" : "scope : (\(scope)) AND \(words)"
        let rows = try GRDB.Row.fetchCursor(db.cachedStatement(sql: """
            SELECT r.record_id, length(r.key) + length(r.body), r.collection = ? AND r.owner = ?
            FROM search_fts AS f CROSS JOIN search_rows AS r ON r.rowid = f.rowid
            WHERE search_fts MATCH ? LIMIT \(tuning.scanCap)
            """), arguments: [query.collection, query.owner, match])
        var candidates: [Candidate] = []
        var scanned = 0
        while let row = try rows.next() {
            scanned += 1
            if row[2] as Bool { candidates.append(Candidate(row: row)) }
            if candidates.count == tuning.candidateCap { return candidates }
        }
        return scanned == tuning.scanCap ? nil : candidates
    }

    /// The filters (and, with `owner`, the owner's records of the collection) as an FTS5 expression
    /// over the scope column. Without the owner and with only exclusions it is `NOT a NOT b …`, to
    /// follow another expression (FTS5's NOT is binary); empty without filters.
    private static func scopeMatch(_ query: SearchQuery, spec: SearchIndexSpec, owner: Bool) -> String {
        var parts: [String] = owner ? [ownerToken(query.collection, query.owner)] : []
        var exclusions: [String] = []
        for filter in query.filters {
            guard let index = spec.filters.firstIndex(of: filter.field) else { continue }
            let tokens = filter.values.map { filterToken(index, $0) }
            switch filter.match {
            case .any: parts.append("(" + tokens.joined(separator: " OR ") + ")")
            case .all: parts += tokens
            case .none: exclusions += tokens
            }
        }
        if parts.isEmpty {
            return exclusions.map { "NOT scope : \($0)" }.joined(separator: " ")
        }
        var expression = parts.joined(separator: " AND ")
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

/// How many rows each owner has in each collection's index, roughly and recently: it decides how
/// steps 2 and 3 find the owner's matches. Counted up to `bigOwner` (a few ms at most), kept for a
/// minute; a stale count only makes a search slower, never wrong.
final class OwnerSizes: Sendable {
    private struct Entry {
        var rows: Int
        var counted: ContinuousClock.Instant
    }
    private let entries = Mutex<[String: Entry]>([:])
    static let lifetime = Duration.seconds(60)
    static let pruneAt = 10_000

    func rows(_ db: Database, collection: String, owner: String, upTo limit: Int) throws -> Int {
        let key = collection + "\u{1}" + owner
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[key] }), now - entry.counted < Self.lifetime { return entry.rows }
        let rows = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM (SELECT 1 FROM search_rows WHERE collection = ? AND owner = ? LIMIT ?)
            """), arguments: [collection, owner, limit]) ?? 0
        entries.withLock { entries in
            // One entry per user who searched in the last minute; the older ones go now and then.
            if entries.count >= Self.pruneAt { entries = entries.filter { now - $0.value.counted < Self.lifetime } }
            entries[key] = Entry(rows: rows, counted: now)
        }
        return rows
    }
}
