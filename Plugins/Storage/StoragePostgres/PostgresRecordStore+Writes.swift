import Bus
import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    public func write(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        try batch.validate()
        do {
            return try await writeOnce(batch)
        } catch where error.details["reason"] == "idempotency_race" {
            // Another node committed the same key meanwhile: this is now a replay.
            return try await writeOnce(batch)
        }
    }

    func writeOnce(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        let known = collections.withLock { $0 }
        // A create (inserts only): one statement, one round trip, when what it assumes holds.
        if Self.oneStatement(batch, known: known), let result = try await writeInOneStatement(batch, known: known) {
            return result
        }
        let pipeline = try WritePipeline(batch, blobFields: known.blobFields, logs: known.logs)
        let logger = self.logger
        return try await transaction { connection in
            var tables = Tables(connection: connection, logger: logger, batch: batch, known: known, stamp: pipeline.stamp)
            return try await pipeline.run(on: &tables)
        } onUniqueViolation: { constraint in
            if constraint == "idempotency_pkey" {
                return StorageError(.conflict, "The same request is being written by another node.", details: ["reason": "idempotency_race"])
            }
            return nil
        }
    }

    /// The pipeline's table operations, in the batch's transaction. Inserts are written a run at a
    /// time (a statement per table, not per record: an import's 500-entry batches are most of its
    /// time otherwise); any other step writes the run first.
    struct Tables: AsyncWriteTables {
        let connection: PostgresConnection
        let logger: Logger
        let batch: WriteBatch
        let known: Collections
        let stamp: Double
        var run: [StorageAPI.Record] = []

        func claimed(_ claim: IdempotencyClaim) async throws -> (fingerprint: String, results: String)? {
            guard let row = try await connection.query("""
                SELECT fingerprint, results FROM idempotency WHERE owner = \(claim.owner) AND scope = \(claim.scope) AND key = \(claim.key)
                """, logger: logger).collect().first else { return nil }
            let (fingerprint, results) = try row.decode((String, String).self)
            return (fingerprint, results)
        }

        func records(_ keys: [RecordKey?]) async throws -> [StorageAPI.Record?] {
            var records: [StorageAPI.Record?] = []
            for key in keys {
                guard let key else { records.append(nil); continue }
                records.append(try await PostgresRecordStore.record(connection, collection: key.collection, id: key.id, lock: false, logger: logger))
            }
            return records
        }

        /// The rows replaces and deletes are about, each locked until the batch ends.
        func rows(_ keys: [RecordKey]) async throws -> [RecordKey: StorageAPI.Record] {
            var rows: [RecordKey: StorageAPI.Record] = [:]
            for key in keys {
                rows[key] = try await PostgresRecordStore.record(connection, collection: key.collection, id: key.id, lock: true, logger: logger)
            }
            return rows
        }

        func tombstones(_ keys: [RecordKey]) async throws -> [RecordKey: Int64] {
            var found: [RecordKey: Int64] = [:]
            for (collection, group) in Dictionary(grouping: keys, by: \.collection) {
                // One probe of changes_by_record per id, newest first. `DISTINCT ON … = ANY(…)` let
                // PostgreSQL read the whole collection's changes instead: 54 ms a batch of 500 ids,
                // 110 s of a million-entry import.
                for try await (id, kind, version) in try await connection.query("""
                    SELECT u.id, c.kind, c.version FROM unnest(\(group.map(\.id))::text[]) AS u(id)
                    CROSS JOIN LATERAL (SELECT kind, version FROM changes WHERE collection = \(collection) AND record_id = u.id
                                        ORDER BY sequence DESC LIMIT 1) AS c
                    """, logger: logger).decode((String, String, Int64).self) where kind == Change.Kind.delete.rawValue {
                    found[RecordKey(collection, id)] = version
                }
            }
            return found
        }

        mutating func apply(_ step: WriteStep) async throws {
            if case .insert(let record, _) = step {
                run.append(record)
                return
            }
            try await end()
            switch step {
            case .insert:
                break
            case .replace(let record, let position):
                let text = String(decoding: record.data.bytes, as: UTF8.self)
                try await connection.query("""
                    UPDATE records SET version = \(record.version), updated_at = \(stamp), data = \(text)::jsonb
                    WHERE collection = \(record.collection) AND id = \(record.id)
                    """, logger: logger)
                try await follow(position, record)
            case .delete(let previous, let position):
                try await connection.query("DELETE FROM records WHERE collection = \(previous.collection) AND id = \(previous.id)", logger: logger)
                try await follow(position, nil)
            case .keepVersion(let previous, let at):
                try await PostgresRecordStore.keep(previous, connection: connection, at: at, logger: logger)
            case .forgetVersions(let key):
                try await connection.query("DELETE FROM versions WHERE collection = \(key.collection) AND id = \(key.id)", logger: logger)
            }
        }

        /// The search and spatial indexes, after a replace or delete.
        private func follow(_ position: Int, _ record: StorageAPI.Record?) async throws {
            let operation = batch.operations[position]
            if let spec = known.search[operation.collection] {
                try await PostgresSearch.follow(connection, operation, record: record, spec: spec, logger: logger)
            }
            if let spec = known.spatial[operation.collection] {
                try await PostgresSpatial.follow(connection, operation, record: record, spec: spec, logger: logger)
            }
        }

        /// Writes the run of inserts with their search rows and points, a statement per table; an
        /// id that exists is a conflict.
        mutating func end() async throws {
            guard !run.isEmpty else { return }
            let records = run
            run.removeAll()
            var statement = Statement()
            let columns = [statement.bindArray(records.map(\.collection)), statement.bindArray(records.map(\.id)),
                           statement.bindArray(records.map(\.owner)), statement.bindArray(records.map { String($0.version) }),
                           statement.bindArray(records.map { String(decoding: $0.data.bytes, as: UTF8.self) })]
            let at = statement.bind(stamp)
            statement.append("""
                INSERT INTO records (collection, id, owner, version, created_at, updated_at, data)
                SELECT c, i, o, v::bigint, \(at), \(at), d::jsonb FROM unnest(\(columns.joined(separator: ", "))) AS u(c, i, o, v, d)
                ON CONFLICT (collection, id) DO NOTHING RETURNING collection, id
                """)
            var inserted: Set<String> = []
            for try await (collection, id) in try await connection.query(statement.query, logger: logger).decode((String, String).self) {
                inserted.insert(collection + "\u{0}" + id)
            }
            if inserted.count < records.count, let taken = records.first(where: { !inserted.contains($0.collection + "\u{0}" + $0.id) }) {
                throw RecordRules.duplicateID(collection: taken.collection, id: taken.id)
            }
            var searchRows: [(record: StorageAPI.Record, row: PostgresSearch.Row)] = []
            var points: [(record: StorageAPI.Record, point: GeoPoint)] = []
            for record in records {
                let search = known.search[record.collection], spatial = known.spatial[record.collection]
                guard search != nil || spatial != nil else { continue }
                let data = try record.data.parsed()
                if let search { searchRows.append((record, PostgresSearch.Row(spec: search, data: data))) }
                if let spatial, let point = SpatialRules.point(spatial, data) { points.append((record, point)) }
            }
            try await PostgresSearch.upsert(connection, searchRows, logger: logger)
            try await PostgresSpatial.insert(connection, points, logger: logger)
        }

        func held(among blobs: Set<String>) async throws -> Set<String> {
            try await PostgresRecordStore.held(among: blobs, fields: known.blobFields, connection: connection, logger: logger)
        }

        func claim(_ claim: IdempotencyClaim, results: String) async throws {
            try await connection.query("""
                INSERT INTO idempotency (owner, scope, key, fingerprint, results, created_at)
                VALUES (\(claim.owner), \(claim.scope), \(claim.key), \(claim.fingerprint), \(results), \(stamp))
                """, logger: logger)
        }

        /// Last: the counter row it takes stays locked until COMMIT, and every other writer waits for it.
        func append(_ changes: [Change]) async throws -> [LogMove] {
            try await PostgresRecordStore.appendLog(changes, connection: connection, stamp: stamp, logger: logger)
        }
    }

    /// Keeps a record's version as it was before a replace or delete.
    static func keep(_ record: StorageAPI.Record, connection: PostgresConnection, at stamp: Double, logger: Logger) async throws {
        let text = String(decoding: record.data.bytes, as: UTF8.self)
        try await connection.query("""
            INSERT INTO versions (collection, id, owner, version, created_at, updated_at, data, superseded_at)
            VALUES (\(record.collection), \(record.id), \(record.owner), \(record.version), \(record.createdAt.timeIntervalSince1970),
                    \(record.updatedAt.timeIntervalSince1970), \(text)::jsonb, \(stamp))
            ON CONFLICT (collection, id, version) DO UPDATE SET data = excluded.data, superseded_at = excluded.superseded_at
            """, logger: logger)
    }

    static func record(_ connection: PostgresConnection, collection: String, id: String, lock: Bool,
                               logger: Logger) async throws -> StorageAPI.Record? {
        let sql = "SELECT \(PostgresSQL.recordColumns) FROM records WHERE collection = $1 AND id = $2" + (lock ? " FOR UPDATE" : "")
        guard let row = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds(collection, id)), logger: logger).collect().first else {
            return nil
        }
        return try record(row)
    }
}
