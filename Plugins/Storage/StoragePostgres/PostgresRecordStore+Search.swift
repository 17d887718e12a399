import Bus
import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    public func search(_ query: SearchQuery) async throws(StorageError) -> SearchResult {
        let spec = collections.withLock { $0.search[query.collection] }
        try query.validate(against: spec)
        guard let spec else { return SearchResult(hits: []) }
        let terms = SearchText.terms(query.text)
        let logger = self.logger
        guard !terms.isEmpty else {
            let found = try await run { connection in try await Self.keyed(connection, PostgresSearch.browse(query), logger: logger) }
            let page = found.prefix(query.limit)
            let next = found.count > query.limit ? page.last.map { SearchCursor(key: $0.key, id: $0.record.id) } : nil
            return SearchResult(hits: page.map { SearchHit(record: $0.record, tier: .listed, highlights: []) }, next: next)
        }
        // The steps of ``PostgresSearch``, on one connection; the stored record decides each tier.
        let found = try await run { connection in
            var hits: [(tier: SearchTier, record: StorageAPI.Record, data: JSONValue)] = []
            var seen: Set<String> = []
            func take(_ rows: [(record: StorageAPI.Record, key: String)]) {
                for (record, _) in rows where hits.count < query.limit && seen.insert(record.id).inserted {
                    guard let data = try? record.data.parsed(), let tier = SearchRules.tier(spec, data, terms) else { continue }
                    hits.append((tier, record, data))
                }
            }
            take(try await Self.keyed(connection, PostgresSearch.keyMatches(query, terms: terms), logger: logger))
            for keyOnly in [true, false] where hits.count < query.limit {
                // Enough to fill the page even if every record found before is among them.
                let wanted = query.limit + seen.count
                take(try await Self.keyed(connection, PostgresSearch.wordMatches(query, terms: terms, keyOnly: keyOnly, wanted: wanted), logger: logger))
            }
            return hits
        }
        // Ranked by tier; within a tier, the order each step found them in.
        let ranked = found.enumerated().sorted { a, b in
            a.element.tier != b.element.tier ? a.element.tier < b.element.tier : a.offset < b.offset
        }
        return SearchResult(hits: ranked.map { _, hit in
            SearchHit(record: hit.record, tier: hit.tier, highlights: SearchRules.highlights(spec, hit.data, terms))
        })
    }

    /// PostgreSQL's plan for a statement this store would run, after `ANALYZE` (for tests that pin
    /// which index answers a query).
    func plan(_ statement: Statement) async throws(StorageError) -> String {
        let logger = self.logger
        return try await run { connection in
            try await connection.query("ANALYZE", logger: logger)
            var lines: [String] = []
            let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + statement.query.sql, binds: statement.query.binds)
            for try await line in try await connection.query(explain, logger: logger).decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
    }

    /// The records a search statement selects, each with its folded key.
    static func keyed(_ connection: PostgresConnection, _ statement: Statement,
                              logger: Logger) async throws -> [(record: StorageAPI.Record, key: String)] {
        var rows: [(record: StorageAPI.Record, key: String)] = []
        for try await (collection, id, owner, version, created, updated, data, key) in try await connection
            .query(statement.query, logger: logger).decode((String, String, String, Int64, Double, Double, String, String).self) {
            rows.append((record((collection, id, owner, version, created, updated, data)), key))
        }
        return rows
    }
}
