import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    public func changes(_ query: ChangeQuery) async throws(StorageError) -> ChangePage {
        try query.validate()
        var condition = "owner = ?"
        var texts = [query.owner]
        for shared in query.shared {
            condition += " OR (owner = ? AND scope = ?)"
            texts += [shared.owner, shared.scope]
        }
        let sql = """
            SELECT sequence, owner, collection, record_id, kind, version, scope FROM changes
            WHERE (\(condition)) AND sequence > ? ORDER BY sequence LIMIT ?
            """
        return try await read { [texts] db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: sql),
                                        arguments: StatementArguments(texts) + [query.after, query.limit + 1])
            let changes = rows.prefix(query.limit).map { row in
                Change(sequence: row[0], owner: row[1], collection: row[2], recordID: row[3],
                       kind: Change.Kind(rawValue: row[4]) ?? .replace, version: row[5], scope: row[6])
            }
            let horizon = try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM log_meta WHERE key = 'horizon'")) ?? 0
            return ChangePage(changes: Array(changes), hasMore: rows.count > query.limit, horizon: horizon)
        }
    }

    public func compact(before cutoff: Date) async throws(StorageError) -> Compaction {
        let stamp = cutoff.timeIntervalSince1970
        return try await run { db in
            try db.execute(sql: """
                DELETE FROM changes WHERE EXISTS (
                    SELECT 1 FROM changes AS later
                    WHERE later.collection = changes.collection AND later.record_id = changes.record_id AND later.sequence > changes.sequence)
                """)
            let superseded = db.changesCount
            let dropped = try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM changes WHERE kind = 'delete' AND at < ?", arguments: [stamp])
            try db.execute(sql: "DELETE FROM changes WHERE kind = 'delete' AND at < ?", arguments: [stamp])
            let tombstones = db.changesCount
            // A scan, hourly: an index on the time would cost every edit a second B-tree insert.
            try db.execute(sql: "DELETE FROM versions WHERE superseded_at < ?", arguments: [stamp])
            let versions = db.changesCount
            if let dropped {
                try db.execute(sql: """
                    INSERT INTO log_meta(key, value) VALUES ('horizon', ?)
                    ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)
                    """, arguments: [dropped])
            }
            let horizon = try Int64.fetchOne(db, sql: "SELECT value FROM log_meta WHERE key = 'horizon'") ?? 0
            return Compaction(supersededChanges: superseded, tombstones: tombstones, versions: versions, horizon: horizon)
        }
    }
}
