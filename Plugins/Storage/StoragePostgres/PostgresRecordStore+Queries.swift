import Bus
import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    public func get(collection: String, id: String, owner: String?) async throws(StorageError) -> StorageAPI.Record? {
        guard StorageNames.isValidCollection(collection), StorageNames.isValidID(id) else { return nil }
        let found = try await records(PostgresQuery(unsafeSQL: "SELECT \(PostgresSQL.recordColumns) FROM records WHERE collection = $1 AND id = $2",
                                                    binds: Self.binds(collection, id)))
        guard let record = found.first, owner == nil || record.owner == owner else { return nil }
        return record
    }

    public func query(_ query: RecordQuery) async throws(StorageError) -> RecordPage {
        let cursor = try query.validatedCursor()
        let found = try await records(PostgresSQL.select(query, cursor: cursor).query)
        guard found.count > query.limit else { return RecordPage(records: found, nextCursor: nil) }
        let page = Array(found.prefix(query.limit))
        return RecordPage(records: page, nextCursor: PostgresSQL.cursor(after: page[page.count - 1], order: query.order))
    }

    public func history(collection: String, id: String, owner: String) async throws(StorageError) -> [StorageAPI.Record] {
        guard StorageNames.isValidCollection(collection), StorageNames.isValidID(id) else { return [] }
        return try await records(PostgresQuery(unsafeSQL: """
            SELECT collection, id, owner, version, created_at, updated_at, data::text FROM versions
            WHERE collection = $1 AND id = $2 AND owner = $3 ORDER BY version DESC
            """, binds: Self.binds(collection, id, owner)))
    }
}
