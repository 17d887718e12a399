import Bus
import Foundation
import GRDB
import GRDBSQLite
public import StorageAPI

/// A query's page written as JSON straight from SQLite's column bytes (``RecordJSON``): no `Record`
/// per row (three `String`s, a `Data` and two `Date`s), no GRDB `Row`. The id and the payload are
/// copied from the row's own bytes into the page; the version and timestamps are read as numbers.
/// Only the last row of a full page becomes a `Record`, for the cursor that continues after it.
extension SQLiteRecordStore: RecordJSONQuerying {
    public func queryJSON(_ query: RecordQuery) async throws(StorageError) -> RecordPageJSON {
        let cursor = try query.validatedCursor()
        let (sql, values) = SQLQueryBuilder.selectValues(query, cursor: cursor)
        if let readers {
            // A connection of the store's own (``SQLiteReaders``), no GRDB in between.
            do {
                return try readers.read { connection in
                    let statement = try connection.statement(sql)
                    defer { sqlite3_reset(statement) }
                    try connection.bind(values, to: statement)
                    return try Self.page(statement, connection: connection.handle, query: query, sql: sql)
                }
            } catch {
                throw Self.map(error)
            }
        }
        return try await read { db in
            // Cached, as `query` does: preparing costs more than running it for a page.
            let statement = try db.cachedStatement(sql: sql)
            try statement.setArguments(StatementArguments(values))
            // Reset whatever happens, so that the statement does not hold its read of the WAL.
            defer { sqlite3_reset(statement.sqliteStatement) }
            return try Self.page(statement.sqliteStatement, connection: db.sqliteConnection, query: query, sql: sql)
        }
    }

    /// Steps a bound statement of ``SQLQueryBuilder/select(_:cursor:)`` through its rows, writing each.
    private static func page(_ handle: OpaquePointer, connection: OpaquePointer?, query: RecordQuery, sql: String) throws -> RecordPageJSON {
        var items: [UInt8] = []
        items.reserveCapacity(64 + query.limit * 320)
        var count = 0
        var last: Record?
        var stamps = RecordJSON.Timestamps()
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: connection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
            }
            if count == query.limit, let last {
                return RecordPageJSON(items: items, count: count, nextCursor: CursorKeys.cursor(after: last, order: query.order))
            }
            if count > 0 { items.append(UInt8(ascii: ",")) }
            RecordJSON.append(id: bytes(handle, 1), version: sqlite3_column_int64(handle, 3),
                              createdAt: seconds(handle, 4), updatedAt: seconds(handle, 5),
                              data: bytes(handle, 6), to: &items, stamps: &stamps)
            count += 1
            if count == query.limit { last = record(handle) }
        }
        return RecordPageJSON(items: items, count: count, nextCursor: nil)
    }

    /// A column's bytes (text or blob), valid until the row steps on.
    private static func bytes(_ handle: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
        // The pointer first, then the length (SQLite's documented order).
        guard let start = sqlite3_column_blob(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// A timestamp column as `Record` reads it (a `Date` from seconds since 1970), in seconds.
    private static func seconds(_ handle: OpaquePointer, _ column: Int32) -> Double {
        Date(timeIntervalSince1970: sqlite3_column_double(handle, column)).timeIntervalSince1970
    }

    private static func string(_ handle: OpaquePointer, _ column: Int32) -> String {
        String(decoding: bytes(handle, column), as: UTF8.self)
    }

    /// The current row as a `Record` (columns in ``SQLQueryBuilder/recordColumns``' order).
    private static func record(_ handle: OpaquePointer) -> Record {
        Record(collection: string(handle, 0), id: string(handle, 1), owner: string(handle, 2), version: sqlite3_column_int64(handle, 3),
               createdAt: Date(timeIntervalSince1970: sqlite3_column_double(handle, 4)),
               updatedAt: Date(timeIntervalSince1970: sqlite3_column_double(handle, 5)),
               data: JSONDocument(trustedBytes: Data(bytes(handle, 6))))
    }
}
