import Bus
public import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    /// Takes the next sequences (in commit order: the counter row stays locked until this
    /// transaction ends) and writes the batch's changes under them, in one statement: the lock is
    /// held for that statement and the COMMIT, not for a round trip more.
    static func appendLog(_ log: [Change], connection: PostgresConnection, stamp: Double, logger: Logger) async throws -> [LogMove] {
        guard !log.isEmpty else { return [] }
        // Columns as arrays (an import's 500 changes are eight binds, not 4,000).
        var statement = Statement()
        let count = statement.bind(Int64(log.count))
        let columns = [statement.bindArray(log.map(\.owner)), statement.bindArray(log.map(\.collection)),
                       statement.bindArray(log.map(\.recordID)), statement.bindArray(log.map(\.kind.rawValue)),
                       statement.bindArray(log.map { String($0.version) })]
        // A change without a scope: its flag is false (arrays of text hold no NULL here).
        let scopes = statement.bindArray(log.map { $0.scope ?? "" })
        let scoped = statement.bindArray(log.map { $0.scope == nil ? "f" : "t" })
        let at = statement.bind(stamp)
        statement.append("""
            WITH taken AS (UPDATE log_meta SET value = value + \(count) WHERE key = 'sequence' RETURNING value)
            INSERT INTO changes (sequence, owner, collection, record_id, kind, version, scope, at)
            SELECT taken.value - \(count) + n, o, c, r, k, v::bigint, CASE WHEN h::boolean THEN s END, \(at)
            FROM taken, unnest(\(columns.joined(separator: ", ")), \(scopes), \(scoped)) WITH ORDINALITY AS u(o, c, r, k, v, s, h, n)
            RETURNING sequence
            """)
        var sequences: [Int64] = []
        for try await sequence in try await connection.query(statement.query, logger: logger).decode(Int64.self) {
            sequences.append(sequence)
        }
        guard sequences.count == log.count, let last = sequences.max() else {
            throw StorageError(.internal, "The change log's counter (log_meta 'sequence') is missing; the database was not migrated by this version.")
        }
        var numbered: [Change] = []
        for (offset, change) in log.enumerated() {
            var change = change
            change.sequence = last - Int64(log.count) + 1 + Int64(offset)
            numbered.append(change)
        }
        return LogMove.of(numbered)
    }

    public func changes(_ query: ChangeQuery) async throws(StorageError) -> ChangePage {
        try query.validate()
        var statement = Statement()
        var conditions = ["owner = \(statement.bind(query.owner))"]
        for shared in query.shared {
            conditions.append("(owner = \(statement.bind(shared.owner)) AND scope = \(statement.bind(shared.scope)))")
        }
        let after = statement.bind(query.after)
        let limit = statement.bind(Int64(query.limit + 1))
        statement.append("""
            SELECT sequence, owner, collection, record_id, kind, version, scope FROM changes
            WHERE (\(conditions.joined(separator: " OR "))) AND sequence > \(after) ORDER BY sequence LIMIT \(limit)
            """)
        let sql = statement.query
        let found = try await run { connection async throws -> ([Change], Int64) in
            var changes: [Change] = []
            for try await (sequence, owner, collection, recordID, kind, version, scope) in try await connection.query(sql, logger: self.logger)
                .decode((Int64, String, String, String, String, Int64, String?).self) {
                changes.append(Change(sequence: sequence, owner: owner, collection: collection, recordID: recordID,
                                      kind: Change.Kind(rawValue: kind) ?? .replace, version: version, scope: scope))
            }
            var horizon: Int64 = 0
            for try await value in try await connection.query("SELECT value FROM log_meta WHERE key = 'horizon'", logger: self.logger).decode(Int64.self) {
                horizon = value
            }
            return (changes, horizon)
        }
        return ChangePage(changes: Array(found.0.prefix(query.limit)), hasMore: found.0.count > query.limit, horizon: found.1)
    }

    public func compact(before cutoff: Date) async throws(StorageError) -> Compaction {
        let stamp = cutoff.timeIntervalSince1970
        return try await transaction { connection in
            // One compaction at a time across nodes; writers are not held up.
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresMigrations.lockKey + 1))", logger: self.logger)
            let superseded = try await Self.affected(connection, """
                DELETE FROM changes c WHERE EXISTS (
                    SELECT 1 FROM changes later WHERE later.collection = c.collection AND later.record_id = c.record_id AND later.sequence > c.sequence)
                """, logger: self.logger)
            let dropped = try await connection.query("SELECT MAX(sequence) FROM changes WHERE kind = 'delete' AND at < \(stamp)", logger: self.logger)
                .collect().first.flatMap { try $0.decode(Int64?.self) }
            let tombstones = try await Self.affected(connection, "DELETE FROM changes WHERE kind = 'delete' AND at < \(stamp)", logger: self.logger)
            let versions = try await Self.affected(connection, "DELETE FROM versions WHERE superseded_at < \(stamp)", logger: self.logger)
            if let dropped {
                try await connection.query("UPDATE log_meta SET value = GREATEST(value, \(dropped)) WHERE key = 'horizon'", logger: self.logger)
            }
            let horizon = try await connection.query("SELECT value FROM log_meta WHERE key = 'horizon'", logger: self.logger)
                .collect().first.map { try $0.decode(Int64.self) } ?? 0
            return Compaction(supersededChanges: superseded, tombstones: tombstones, versions: versions, horizon: horizon)
        }
    }

    /// Runs a DELETE and answers how many rows it removed.
    static func affected(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Int {
        var count = 0
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: query.sql + " RETURNING 1", binds: query.binds), logger: logger) {
            count += 1
        }
        return count
    }
}
