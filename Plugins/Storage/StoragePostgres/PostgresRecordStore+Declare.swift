import Bus
import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    public func declare(_ schema: CollectionSchema) async throws(StorageError) {
        try SchemaRules.validate(schema)
        let queued = readiness.withLock { state in
            guard case .waiting(var pending) = state else { return false }
            pending.append(schema)
            state = .waiting(pending)
            return true
        }
        if !queued { try await apply(schema) }
    }

    /// Makes a declared collection's indexes and records its schema (``declare(_:)`` once ready).
    func apply(_ schema: CollectionSchema) async throws(StorageError) {
        var schema = schema
        let (knownBlobs, previousLog, previousSpatial, previousSearch) = collections.withLock {
            ($0.blobFields[schema.name] ?? [], $0.logs[schema.name], $0.spatial[schema.name], $0.search[schema.name])
        }
        schema.blobFields = knownBlobs + schema.blobFields.filter { !knownBlobs.contains($0) }
        if let previousLog, schema.scope == nil { schema.scope = previousLog.scope }
        if schema.spatial == nil { schema.spatial = previousSpatial }
        if schema.search == nil { schema.search = previousSearch }
        let final = schema
        let text = String(decoding: (try? JSONEncoder().encode(final)) ?? Data("{}".utf8), as: UTF8.self)
        for attempt in 0..<Contention.attempts {
            await Contention.backOff(before: attempt)
            do {
                try await declareTransaction(final, text: text, previousSearch: previousSearch, previousSpatial: previousSpatial)
                collections.withLock { $0.remember(final) }
                return
            } catch where error.details["reason"] == "busy" {
                continue  // a deadlock with a concurrent write: run it again
            }
        }
        throw Self.busy
    }

    /// One declaration's indexes and schema row, in one transaction. Declarations take a lock of
    /// their own first, so that two nodes (or a tool and a server) declaring the same new collection
    /// at once run one after the other instead of racing on PostgreSQL's catalog.
    func declareTransaction(_ final: CollectionSchema, text: String, previousSearch: SearchIndexSpec?,
                                    previousSpatial: SpatialIndexSpec?) async throws(StorageError) {
        try await transaction(gated: false) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.declareLock))", logger: self.logger)
            let blobIndexes = final.blobFields.map { IndexSpec(name: "blob_" + $0, fields: [$0], scope: .global) }
            for index in final.indexes + blobIndexes {
                let wanted = PostgresSQL.createIndex(index, collection: final.name)
                let name = PostgresSQL.indexName(collection: final.name, index: index.name)
                // An index declared anew with another definition replaces the old one.
                let existing = try await connection.query("SELECT indexdef FROM pg_indexes WHERE indexname = \(name) AND schemaname = current_schema()",
                                                          logger: self.logger).collect().first.map { try $0.decode(String.self) }
                if let existing, !Self.sameIndex(existing, wanted) {
                    try await connection.query(PostgresQuery(unsafeSQL: "DROP INDEX \(name)"), logger: self.logger)
                }
                try await connection.query(PostgresQuery(unsafeSQL: wanted), logger: self.logger)
            }
            if final.search != previousSearch {
                try await PostgresSearch.rebuild(connection, collection: final.name, spec: final.search, logger: self.logger)
            }
            if final.spatial != previousSpatial {
                try await PostgresSpatial.rebuild(connection, collection: final.name, spec: final.spatial, logger: self.logger)
            } else if final.spatial != nil {
                // Indexes a later version added, on a collection declared before it.
                try await PostgresSpatial.ensureIndexes(connection, collection: final.name, logger: self.logger)
            }
            try await connection.query("""
                INSERT INTO collections (name, schema) VALUES (\(final.name), \(text))
                ON CONFLICT (name) DO UPDATE SET schema = excluded.schema
                """, logger: self.logger)
        } onUniqueViolation: { index in
            StorageError.conflict("Index '\(index)' on '\(final.name)' cannot be unique: existing records share a key.")
        }
    }

    /// The advisory lock key declarations hold for their transaction ("quire.declare").
    static let declareLock: Int64 = 0x7175_6972_6564_6563

    /// Whether PostgreSQL's definition of an index (as `pg_indexes` prints it) is the one wanted:
    /// compared on the unique flag and the declared fields, which is what a redeclaration changes,
    /// and on the order of nulls (indexes made before they came first are made again).
    static func sameIndex(_ existing: String, _ wanted: String) -> Bool {
        let unique = existing.hasPrefix("CREATE UNIQUE")
        guard unique == wanted.hasPrefix("CREATE UNIQUE"), existing.contains("NULLS FIRST") == wanted.contains("NULLS FIRST") else { return false }
        let fields = { (text: String) -> [String] in
            text.components(separatedBy: "'{").dropFirst().map { String($0.prefix { $0 != "}" }) }
        }
        return fields(existing) == fields(wanted) && existing.contains("(owner") == wanted.contains("(owner")
    }
}
