import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    /// Per collection, so that each sum walks the owner's slice of the (collection, owner, id) index.
    public func usage(owner: String) async throws(StorageError) -> (recordBytes: Int, blobs: Set<String>) {
        let fields = blobFields.withLock { $0 }
        return try await read { db in
            var bytes = 0
            var blobs: Set<String> = []
            for collection in try String.fetchAll(db, sql: "SELECT name FROM collections") {
                bytes += try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(LENGTH(data)), 0) FROM records WHERE collection = ? AND owner = ?",
                                          arguments: [collection, owner]) ?? 0
                for field in fields[collection] ?? [] {
                    let sql = "SELECT DISTINCT \(SQLQueryBuilder.expression(field)) FROM records WHERE collection = ? AND owner = ?"
                    for sha in try String?.fetchAll(db, sql: sql, arguments: [collection, owner]) { if let sha { blobs.insert(sha) } }
                }
            }
            return (bytes, blobs)
        }
    }

    public func heldBlobs(among blobs: Set<String>) async throws(StorageError) -> Set<String> {
        let fields = blobFields.withLock { $0 }
        return try await read { db in try Self.held(among: blobs, fields: fields, db: db) }
    }

    static func held(among blobs: Set<String>, fields: [String: [String]], db: Database) throws -> Set<String> {
        // Every write asks (a create lets go of nothing): no statement to look up then.
        guard !blobs.isEmpty else { return [] }
        var held: Set<String> = []
        for (collection, names) in fields.sorted(by: { $0.key < $1.key }) {
            for field in names {
                // Named: without statistics SQLite's planner ties the blob's index with the primary
                // key's `collection = …` (which covers every column) and takes the key, a scan of the
                // whole collection per blob. Every blob field has its index (`declare`).
                let index = SQLQueryBuilder.indexName(collection: collection, index: blobIndex(field).name)
                let statement = try db.cachedStatement(sql: """
                    SELECT 1 FROM records INDEXED BY \(index) WHERE collection = \(SQLQueryBuilder.literal(collection)) \
                    AND \(SQLQueryBuilder.expression(field)) = ? LIMIT 1
                    """)
                for blob in blobs.subtracting(held) where try Bool.fetchOne(statement, arguments: [blob]) == true {
                    held.insert(blob)
                }
            }
        }
        return held
    }
}
