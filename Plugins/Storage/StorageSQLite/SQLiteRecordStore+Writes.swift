import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    public func write(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        let fields = blobFields.withLock { $0 }
        let pipeline = try WritePipeline(batch, blobFields: fields, logs: logSpecs.withLock { $0 })
        let specs = searchSpecs.withLock { $0 }
        let spatial = spatialSpecs.withLock { $0 }
        let trees = spatialTrees.withLock { $0 }
        let searchRows: [Int: SQLiteSearch.IndexedRow]
        var points: [Int: GeoPoint] = [:]
        do {
            searchRows = try Self.searchRows(batch, specs: specs)
            for (position, operation) in batch.operations.enumerated() {
                if let spec = spatial[operation.collection], let data = operation.data {
                    points[position] = SpatialRules.point(spec, try data.parsed())
                }
            }
        } catch {
            throw Self.map(error)
        }
        // Spatial trees only for collections that still declare an index.
        let followed = trees.filter { spatial[$0.key] != nil }
        return try await writeGroups.write({ [points] db in
            var tables = Tables(db: db, batch: batch, stamp: pipeline.stamp, blobFields: fields, search: specs, trees: followed,
                                searchRows: searchRows, points: points)
            return try pipeline.run(on: &tables)
        }, on: writer)
    }

    /// The pipeline's table operations, in the batch's transaction; each row change also keeps the
    /// collection's search and spatial indexes in step.
    struct Tables: WriteTables {
        let db: Database
        let batch: WriteBatch
        let stamp: Double
        let blobFields: [String: [String]]
        let search: [String: SearchIndexSpec]
        let trees: [String: String]
        let searchRows: [Int: SQLiteSearch.IndexedRow]
        let points: [Int: GeoPoint]
        /// The FTS table follows the batch in two statements per collection: out before, in after.
        var reindexed: [String: [String]] = [:]

        func claimed(_ claim: IdempotencyClaim) throws -> (fingerprint: String, results: String)? {
            try Row.fetchOne(db, sql: "SELECT fingerprint, results FROM idempotency WHERE owner = ? AND scope = ? AND key = ?",
                             arguments: [claim.owner, claim.scope, claim.key])
                .map { row in (fingerprint: row["fingerprint"] as String, results: row["results"] as String) }
        }

        func records(_ keys: [RecordKey?]) throws -> [Record?] {
            try keys.map { key in
                guard let key else { return nil }
                return try row(key)
            }
        }

        func rows(_ keys: [RecordKey]) throws -> [RecordKey: Record] {
            var rows: [RecordKey: Record] = [:]
            for key in keys { rows[key] = try row(key) }
            return rows
        }

        private func row(_ key: RecordKey) throws -> Record? {
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(SQLQueryBuilder.recordColumns) FROM records WHERE collection = ? AND id = ?"),
                             arguments: [key.collection, key.id]).map(SQLiteRecordStore.record)
        }

        func tombstones(_ keys: [RecordKey]) throws -> [RecordKey: Int64] {
            var found: [RecordKey: Int64] = [:]
            for key in keys {
                guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT kind, version FROM changes WHERE collection = ? AND record_id = ? ORDER BY sequence DESC LIMIT 1
                    """), arguments: [key.collection, key.id]), (row[0] as String) == Change.Kind.delete.rawValue else { continue }
                found[key] = row[1] as Int64
            }
            return found
        }

        mutating func begin(_ plan: WritePlan) throws {
            for operation in batch.operations where search[operation.collection] != nil {
                if case .insert = operation { continue }
                if let id = operation.id { reindexed[operation.collection, default: []].append(id) }
            }
            for (collection, ids) in reindexed { try SQLiteSearch.unindex(db, collection: collection, ids: ids) }
        }

        mutating func apply(_ step: WriteStep) throws {
            switch step {
            case .insert(let record, let position):
                do {
                    // Cached: an insert's statement carries every index's checks, and preparing it cost
                    // a sixth of an import's time.
                    try db.cachedStatement(sql: "INSERT INTO records(\(SQLQueryBuilder.recordColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
                        .execute(arguments: [record.collection, record.id, record.owner, record.version, stamp, stamp,
                                             String(decoding: record.data.bytes, as: UTF8.self)])
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw SQLiteRecordStore.constraintError(error, collection: record.collection, id: record.id)
                }
                try follow(position, record)
                if search[record.collection] != nil { reindexed[record.collection, default: []].append(record.id) }
            case .replace(let record, let position):
                do {
                    try db.cachedStatement(sql: "UPDATE records SET version = ?, updated_at = ?, data = ? WHERE collection = ? AND id = ?")
                        .execute(arguments: [record.version, stamp, String(decoding: record.data.bytes, as: UTF8.self), record.collection, record.id])
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw SQLiteRecordStore.constraintError(error, collection: record.collection, id: record.id)
                }
                try follow(position, record)
            case .delete(let previous, let position):
                try db.cachedStatement(sql: "DELETE FROM records WHERE collection = ? AND id = ?").execute(arguments: [previous.collection, previous.id])
                try follow(position, nil)
            case .keepVersion(let previous, let at):
                try SQLiteRecordStore.keep(previous, db: db, at: at)
            case .forgetVersions(let key):
                try db.cachedStatement(sql: "DELETE FROM versions WHERE collection = ? AND id = ?").execute(arguments: [key.collection, key.id])
            }
        }

        /// The spatial and search indexes, after the row's change.
        private func follow(_ position: Int, _ record: Record?) throws {
            let operation = batch.operations[position]
            if let tree = trees[operation.collection] {
                try SQLiteSpatial.apply(db, tree: tree, operation, record: record, point: points[position])
            }
            if search[operation.collection] != nil {
                try SQLiteRecordStore.index(operation, record, row: searchRows[position], db: db)
            }
        }

        mutating func end() throws {
            for (collection, ids) in reindexed { try SQLiteSearch.reindex(db, collection: collection, ids: ids) }
        }

        func held(among blobs: Set<String>) throws -> Set<String> {
            try SQLiteRecordStore.held(among: blobs, fields: blobFields, db: db)
        }

        func claim(_ claim: IdempotencyClaim, results: String) throws {
            try db.execute(
                sql: "INSERT INTO idempotency(owner, scope, key, fingerprint, results, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [claim.owner, claim.scope, claim.key, claim.fingerprint, results, stamp])
        }

        /// The batch's rows of the change log, in one statement (in batch order, so sequence numbers
        /// follow it): a statement per row — each also bumping the AUTOINCREMENT counter — was a
        /// measurable part of a large import.
        func append(_ changes: [Change]) throws -> [LogMove] {
            guard !changes.isEmpty else { return [] }
            if changes.count == 1, let change = changes.first {
                // One row (a note typed in): its values bound as they are, no JSON written and read back.
                try db.cachedStatement(sql: "INSERT INTO changes(owner, collection, record_id, kind, version, scope, at) VALUES (?, ?, ?, ?, ?, ?, ?)")
                    .execute(arguments: [change.owner, change.collection, change.recordID, change.kind.rawValue, change.version, change.scope, stamp])
                var change = change
                change.sequence = db.lastInsertedRowID
                return LogMove.of([change])
            }
            let rows = JSONValue.array(changes.map { change in
                .array([.string(change.owner), .string(change.collection), .string(change.recordID), .string(change.kind.rawValue),
                        .number(Double(change.version)), change.scope.map(JSONValue.string) ?? .null])
            })
            try db.cachedStatement(sql: """
                INSERT INTO changes(owner, collection, record_id, kind, version, scope, at)
                SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, ? FROM json_each(?) ORDER BY key
                """).execute(arguments: [stamp, rows.canonicalJSONText])
            // One statement, one writer, AUTOINCREMENT: the rows took consecutive sequences ending here.
            let last = db.lastInsertedRowID
            return LogMove.of(changes.enumerated().map { offset, change in
                var change = change
                change.sequence = last - Int64(changes.count - 1 - offset)
                return change
            })
        }
    }

    /// The search rows of a batch's inserts and replacements, by position in the batch.
    static func searchRows(_ batch: WriteBatch, specs: [String: SearchIndexSpec]) throws -> [Int: SQLiteSearch.IndexedRow] {
        var rows: [Int: SQLiteSearch.IndexedRow] = [:]
        for (position, operation) in batch.operations.enumerated() {
            guard let spec = specs[operation.collection], let data = operation.data else { continue }
            rows[position] = SQLiteSearch.IndexedRow(spec: spec, collection: operation.collection, owner: operation.owner,
                                              data: try data.parsed())
        }
        return rows
    }

    /// Keeps the collection's search rows in step with a write, in the same transaction.
    static func index(_ operation: WriteOperation, _ record: Record?, row: SQLiteSearch.IndexedRow?, db: Database) throws {
        switch operation {
        case .insert:
            guard let record, let row else { return }
            try SQLiteSearch.insert(db, collection: record.collection, id: record.id, owner: record.owner, row: row)
        case .replace:
            guard let record, let row else { return }
            try SQLiteSearch.update(db, collection: record.collection, id: record.id, row: row)
        case .delete(let collection, let id, _, _):
            try SQLiteSearch.delete(db, collection: collection, id: id)
        }
    }

    /// Keeps a record's version as it was before a replace or delete.
    static func keep(_ record: Record, db: Database, at stamp: Double) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO versions(collection, id, owner, version, created_at, updated_at, data, superseded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [record.collection, record.id, record.owner, record.version, record.createdAt.timeIntervalSince1970,
                                     record.updatedAt.timeIntervalSince1970, String(decoding: record.data.bytes, as: UTF8.self), stamp])
    }

    static func constraintError(_ error: DatabaseError, collection: String, id: String) -> StorageError {
        if error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            return RecordRules.duplicateID(collection: collection, id: id)
        }
        // SQLite names the index it enforced ("…: index 'ix_<collection>__<name>'"); report the
        // declared name, as every backend does.
        let prefix = SQLQueryBuilder.indexName(collection: collection, index: "")
        let index = error.message.flatMap { message -> String? in
            guard let start = message.range(of: prefix) else { return nil }
            return String(message[start.upperBound...].prefix { $0 != "'" && $0 != " " })
        } ?? "unknown"
        return StorageError(.conflict, "Another item already has the same unique value.",
                            details: ["index": index])
    }
}
