import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    public func get(collection: String, id: String, owner: String?) async throws(StorageError) -> StorageAPI.Record? {
        guard StorageNames.isValidCollection(collection), StorageNames.isValidID(id) else { return nil }
        return try await read { db in
            guard let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT \(SQLQueryBuilder.recordColumns) FROM records WHERE collection = ? AND id = ?"),
                arguments: [collection, id]) else { return nil }
            let record = Self.record(row)
            if let owner, record.owner != owner { return nil }
            return record
        }
    }

    public func query(_ query: RecordQuery) async throws(StorageError) -> RecordPage {
        let cursor = try query.validatedCursor()
        let (sql, arguments) = SQLQueryBuilder.select(query, cursor: cursor)
        return try await read { db in
            var records: [Record] = []
            records.reserveCapacity(query.limit)
            // Cached: preparing the statement (and GRDB's authorizer pass over it) costs more than
            // running it for a page of records.
            let rows = try Row.fetchCursor(try db.cachedStatement(sql: sql), arguments: arguments)
            while let row = try rows.next() {
                if records.count == query.limit {
                    return RecordPage(records: records, nextCursor: CursorKeys.cursor(after: records[records.count - 1], order: query.order))
                }
                records.append(Self.record(row))
            }
            return RecordPage(records: records, nextCursor: nil)
        }
    }

    public func history(collection: String, id: String, owner: String) async throws(StorageError) -> [StorageAPI.Record] {
        guard StorageNames.isValidCollection(collection), StorageNames.isValidID(id) else { return [] }
        return try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(SQLQueryBuilder.recordColumns) FROM versions WHERE collection = ? AND id = ? AND owner = ? ORDER BY version DESC
                """), arguments: [collection, id, owner]).map(Self.record)
        }
    }
}
