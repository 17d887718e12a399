import Foundation
import Logging
import PostgresNIO
import StorageAPI

/// Search indexes on PostgreSQL. Folding (case, accents, ß → ss), tokens, tiers and highlights are
/// the shared ``SearchRules`` and ``SearchText``, run in Swift when a record is written and when a
/// match is ranked, so a search answers what SQLite's answers. PostgreSQL keeps what finds matches:
/// - the folded key in byte order (`COLLATE "C"`), a B-tree over `(collection, owner, key, id)`: exact
///   and prefix matches are a range scan, already in order;
/// - the folded words as a `tsvector`, GIN-indexed: "every word, the last as a prefix" is a
///   `tsquery` of `&` and `:*`. Every word is written as it is (`hund`), and a word of the key once
///   more, marked (``keyMark``, `=hund`), so "in the key" is a lexeme of its own rather than a
///   weight: GIN keeps no weights, and a weighted query re-reads every candidate row to check them
///   (10 ms of the 14 a common word took). "In any field" is then one lexeme a word too, not
///   `('=hund' | 'hund')`: PostgreSQL unioned two long posting lists per word for that (3.3 ms of
///   "am pa"). The two- and three-letter beginnings of every word are
///   lexemes too (``prefixLengths``). Han and kana are one token per character in the shared
///   rules, so a run of them is found the same way (and the ranking checks they are adjacent).
///
/// Like SQLite's, a search as you type runs up to three steps and stops once it has `limit` hits:
/// 1. exact and prefix matches of the key, in key order;
/// 2. every word in the key; 3. every word in the key or the text fields. Steps 2 and 3 take the first
///    ``candidateCap`` matches and put the shortest entries first (the closest to what was typed):
///    a two-letter prefix can match most of a dictionary, and ranking all of it is what is slow.
enum PostgresSearch {
    /// Matches ranked per step (as SQLite's `SQLiteSearchTuning.candidateCap`).
    static let candidateCap = 300
    /// Lengths of the word beginnings also kept as lexemes of their own (`^ha`, `^hab`), as SQLite's
    /// FTS5 `prefix = '2 3'`: GIN answers `ha:*` by reading every word starting "ha" first (20 ms
    /// at a million entries); `^ha` is one posting list.
    static let prefixLengths = [2, 3]
    /// The longest word kept in the index (PostgreSQL's lexeme limit is 2 KB).
    static let longestWord = 500

    /// Marks a lexeme as a word of the key (search tokens are letters and digits, never `=`).
    static let keyMark = "="
    /// Marks a word's beginning kept as a lexeme of its own (``prefixLengths``).
    static let beginningMark = "^"

    /// A record's search row.
    struct Row {
        var key: String
        var terms: String
        var size: Int
        var filters: String

        init(spec: SearchIndexSpec, data: JSONValue) {
            key = SearchRules.foldedKey(spec, data)
            // Each word once with its beginnings, as it is; the key's once more, marked (two words
            // may share a beginning; the tsvector keeps one).
            var seenInKey: Set<String> = [], seenAnywhere: Set<String> = []
            var terms = ""
            var size = 0
            for (index, field) in spec.fields.enumerated() {
                for (_, text) in SearchRules.strings(field, in: data) {
                    size += text.count
                    for token in SearchText.tokens(text) where token.folded.utf8.count <= PostgresSearch.longestWord {
                        if index == 0, seenInKey.insert(token.folded).inserted {
                            PostgresSearch.appendLexemes(of: token.folded, mark: PostgresSearch.keyMark, to: &terms)
                        }
                        if seenAnywhere.insert(token.folded).inserted { PostgresSearch.appendLexemes(of: token.folded, mark: "", to: &terms) }
                    }
                }
            }
            self.terms = terms
            self.size = size
            let values = SearchRules.filterValues(spec, data).mapValues { JSONValue.array($0.sorted().map(JSONValue.string)) }
            filters = JSONValue.object(values).canonicalJSONText
        }
    }

    /// Appends a word's lexemes, quoted: itself and its two- and three-letter beginnings, each after `mark`.
    static func appendLexemes(of word: String, mark: String, to terms: inout String) {
        if !terms.isEmpty { terms += " " }
        appendQuoted(mark + word, to: &terms)
        var length = 0
        var beginning = mark + beginningMark
        for character in word {
            beginning.append(character)
            length += 1
            if prefixLengths.contains(length) {
                terms += " "
                appendQuoted(beginning, to: &terms)
            }
            if length == prefixLengths.last { break }
        }
    }

    /// A word as a quoted `tsvector` / `tsquery` lexeme.
    static func lexeme(_ word: String) -> String {
        var quoted = ""
        appendQuoted(word, to: &quoted)
        return quoted
    }

    /// Appends `word` quoted (search tokens hold no quote or backslash; they are doubled if one does).
    static func appendQuoted(_ word: String, to text: inout String) {
        text += "'"
        if word.utf8.contains(where: { $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "\\") }) {
            for character in word {
                if character == "'" || character == "\\" { text.append(character) }
                text.append(character)
            }
        } else {
            text += word
        }
        text += "'"
    }

    /// What every group of `terms` asks for, as a `tsquery`: each word, the last as a prefix (its
    /// own lexeme when it is two or three letters long); with `keyOnly`, in the key only, else in
    /// the key or the other fields.
    static func tsquery(_ terms: SearchText.Terms, keyOnly: Bool) -> String {
        let words = terms.groups.flatMap { $0 }
        return words.enumerated().map { index, word in
            var word = word
            var prefix = terms.lastIsPrefix && index == words.count - 1
            if prefix, prefixLengths.contains(word.count) {
                word = beginningMark + word
                prefix = false
            }
            let suffix = prefix ? ":*" : ""
            return lexeme(keyOnly ? keyMark + word : word) + suffix
        }.joined(separator: " & ")
    }

    // MARK: Writing

    /// Keeps a collection's search rows in step with one write, in its transaction.
    static func follow(_ connection: PostgresConnection, _ operation: WriteOperation, record: StorageAPI.Record?,
                       spec: SearchIndexSpec, logger: Logger) async throws {
        guard let record, let data = operation.data else {
            if let id = operation.id {
                try await connection.query("DELETE FROM search_rows WHERE collection = \(operation.collection) AND id = \(id)", logger: logger)
            }
            return
        }
        try await upsert(connection, [(record, Row(spec: spec, data: try data.parsed()))], logger: logger)
    }

    /// Writes the search rows of several records in one statement.
    static func upsert(_ connection: PostgresConnection, _ rows: [(record: StorageAPI.Record, row: Row)], logger: Logger) async throws {
        guard !rows.isEmpty else { return }
        var statement = Statement()
        let columns = [statement.bindArray(rows.map(\.record.collection)), statement.bindArray(rows.map(\.record.id)),
                       statement.bindArray(rows.map(\.record.owner)), statement.bindArray(rows.map(\.row.key)),
                       statement.bindArray(rows.map(\.row.terms)), statement.bindArray(rows.map { String($0.row.size) }),
                       statement.bindArray(rows.map(\.row.filters))]
        statement.append("""
            INSERT INTO search_rows (collection, id, owner, key, terms, size, filters)
            SELECT c, i, o, k, t::tsvector, s::int, f::jsonb FROM unnest(\(columns.joined(separator: ", "))) AS u(c, i, o, k, t, s, f)
            ON CONFLICT (collection, id) DO UPDATE SET owner = excluded.owner, key = excluded.key, terms = excluded.terms,
                size = excluded.size, filters = excluded.filters
            """)
        try await connection.query(statement.query, logger: logger)
    }

    /// Indexes every record of `collection` again for `spec` (or drops its rows when nil).
    static func rebuild(_ connection: PostgresConnection, collection: String, spec: SearchIndexSpec?, logger: Logger) async throws {
        try await connection.query("DELETE FROM search_rows WHERE collection = \(collection)", logger: logger)
        guard let spec else { return }
        // A thousand records at a time, in id order: a statement's rows are read to their end
        // before the next statement runs on the connection, and a collection may not fit in memory.
        var after = ""
        var indexed = 0
        while true {
            var rows: [(StorageAPI.Record, Row)] = []
            for try await (id, owner, version, data) in try await connection.query("""
                SELECT id, owner, version, data::text FROM records WHERE collection = \(collection) AND id > \(after) ORDER BY id LIMIT 1000
                """, logger: logger).decode((String, String, Int64, String).self) {
                let record = StorageAPI.Record(collection: collection, id: id, owner: owner, version: version, createdAt: StoreTime.now(), updatedAt: StoreTime.now(),
                                               data: JSONDocument(trustedBytes: Data(data.utf8)))
                rows.append((record, Row(spec: spec, data: try record.data.parsed())))
            }
            try await upsert(connection, rows, logger: logger)
            indexed += rows.count
            guard rows.count == 1000, let last = rows.last?.0.id else { break }
            after = last
            if indexed % 100_000 == 0 { logger.info("storage: indexing for search", metadata: ["collection": "\(collection)", "records": "\(indexed)"]) }
        }
        if indexed > 0 { logger.info("storage: indexed for search", metadata: ["collection": "\(collection)", "records": "\(indexed)"]) }
    }

    // MARK: Reading

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

    // Joins to `records` name the id's collation: search rows keep ids in byte order ("C"),
    // records in the database's, and an equality between the two would not use records' key.
    static let columns = "r.collection, r.id, r.owner, r.version, r.created_at, r.updated_at, r.data::text, s.key"

    /// Every record passing the filters, by folded key then id, after the cursor.
    static func browse(_ query: SearchQuery) -> Statement {
        var statement = Statement()
        var conditions = scope(query, into: &statement)
        if let after = query.after {
            conditions.append("(s.key, s.id) > (\(statement.bind(after.key)), \(statement.bind(after.id)))")
        }
        return inKeyOrder(&statement, conditions, limit: query.limit + 1)
    }

    /// The first `limit` records meeting `conditions`, in key order: the search rows are picked
    /// (and ordered) alone, in a subquery, so that the order comes from the key's B-tree — joined
    /// to records in one statement, PostgreSQL sorts every match first.
    private static func inKeyOrder(_ statement: inout Statement, _ conditions: [String], limit: Int) -> Statement {
        let limit = statement.bind(Int64(limit))
        statement.append("""
            SELECT \(columns) FROM (
                SELECT s.collection, s.id, s.key FROM search_rows s
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY s.key, s.id LIMIT \(limit)
            ) s JOIN records r ON r.collection = s.collection AND r.id = s.id COLLATE "default" ORDER BY s.key, s.id
            """)
        return statement
    }

    /// Step 1: the records whose folded key is the query or starts with it, in key order.
    static func keyMatches(_ query: SearchQuery, terms: SearchText.Terms) -> Statement {
        var statement = Statement()
        var conditions = scope(query, into: &statement)
        let key = terms.foldedKey
        if terms.lastIsPrefix {
            conditions.append("s.key >= \(statement.bind(key)) AND s.key < \(statement.bind(key + "\u{10FFFF}"))")
        } else {
            conditions.append("(s.key = \(statement.bind(key)) OR (s.key >= \(statement.bind(key + " ")) AND s.key < \(statement.bind(key + " \u{10FFFF}"))))")
        }
        return inKeyOrder(&statement, conditions, limit: query.limit)
    }

    /// Steps 2 and 3 in one statement: of the first ``candidateCap`` records holding every word (in
    /// the key only, with `keyOnly`), the `wanted` shortest (by the length of their indexed text,
    /// then id), with their records, in that order.
    static func wordMatches(_ query: SearchQuery, terms: SearchText.Terms, keyOnly: Bool, wanted: Int) -> Statement {
        var statement = Statement()
        var conditions = scope(query, into: &statement)
        conditions.append("s.terms @@ \(statement.bind(tsquery(terms, keyOnly: keyOnly)))::tsquery")
        let limit = statement.bind(Int64(wanted))
        statement.append("""
            SELECT \(columns) FROM (
                SELECT c.id, c.size FROM (
                    SELECT s.id, s.size FROM search_rows s WHERE \(conditions.joined(separator: " AND ")) LIMIT \(candidateCap)
                ) c ORDER BY c.size, c.id LIMIT \(limit)
            ) c JOIN search_rows s ON s.collection = \(PostgresSQL.literal(query.collection)) AND s.id = c.id
            JOIN records r ON r.collection = s.collection AND r.id = s.id COLLATE "default"
            ORDER BY c.size, c.id
            """)
        return statement
    }
}

extension Statement {
    /// A list of strings, as `text[]`.
    mutating func bindArray(_ values: [String]) -> String {
        appendBind(values)
        return "$\(binds.count)::text[]"
    }

    /// A list of numbers, as `float8[]`.
    mutating func bindArray(_ values: [Double]) -> String {
        appendBind(values)
        return "$\(binds.count)::float8[]"
    }
}
