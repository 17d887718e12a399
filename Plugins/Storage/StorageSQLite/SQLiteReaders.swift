import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Read-only SQLite connections of the store's own, for the hottest read (a page of records written
/// as JSON, ``SQLiteRecordStore/queryJSON(_:)``): taken from a pool under one lock, used on the
/// calling thread, given back. Through GRDB's pool the same read also took a reader from its pool,
/// hopped onto the reader's dispatch queue and ran `PRAGMA schema_version` to check its schema
/// cache — 7.6 % of a list's CPU, measured (BENCHMARKS.md, 2026-11-26). Each connection keeps its
/// prepared statements; a schema change by the writer makes SQLite prepare them again by itself.
///
/// A statement here is a single SELECT outside a transaction, so it reads one consistent snapshot
/// of the WAL, as GRDB's `unsafeRead` did; the statement is reset before the connection goes back,
/// so that no read outlives its request and holds a checkpoint back.
final class SQLiteReaders: Sendable {
    /// One connection and its prepared statements; used by one thread at a time.
    final class Connection: @unchecked Sendable {
        let handle: OpaquePointer
        private var statements: [String: OpaquePointer] = [:]

        init(handle: OpaquePointer) { self.handle = handle }

        /// The prepared statement for `sql`, kept for the connection's life.
        func statement(_ sql: String) throws -> OpaquePointer {
            if let statement = statements[sql] { return statement }
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
            guard code == SQLITE_OK, let statement else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            }
            statements[sql] = statement
            return statement
        }

        /// Binds `values` to `statement`'s parameters 1…n (the statement was reset).
        func bind(_ values: [DatabaseValue], to statement: OpaquePointer) throws {
            sqlite3_clear_bindings(statement)
            for (offset, value) in values.enumerated() {
                let index = Int32(offset + 1)
                let code: Int32 = switch value.storage {
                case .null: sqlite3_bind_null(statement, index)
                case .int64(let number): sqlite3_bind_int64(statement, index, number)
                case .double(let number): sqlite3_bind_double(statement, index, number)
                case .string(let text): sqlite3_bind_text(statement, index, text, -1, Self.transient)
                case .blob(let data): data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient) }
                }
                guard code == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)))
                }
            }
        }

        /// SQLite copies the bound bytes (`SQLITE_TRANSIENT`).
        static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        func close() {
            for statement in statements.values { sqlite3_finalize(statement) }
            statements.removeAll()
            sqlite3_close_v2(handle)
        }
    }

    private struct State {
        var idle: [Connection] = []
        var closed = false
    }

    let path: String
    let mmapBytes: Int
    /// Idle connections kept; more may be open at once under load, and close when given back.
    static let maxIdle = 8
    private let state = Mutex(State())

    init(path: String, mmapBytes: Int) {
        self.path = path
        self.mmapBytes = mmapBytes
    }

    /// Runs `body` with a connection of the pool, on the calling thread.
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        let (connection, closed) = state.withLock { ($0.idle.popLast(), $0.closed) }
        if closed { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed") }
        let reader = try connection ?? open()
        defer {
            let keep = state.withLock { state in
                guard !state.closed, state.idle.count < Self.maxIdle else { return false }
                state.idle.append(reader)
                return true
            }
            if !keep { reader.close() }
        }
        return try body(reader)
    }

    private func open() throws -> Connection {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let handle { sqlite3_close_v2(handle) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        sqlite3_busy_timeout(handle, 10_000)
        // As GRDB's readers: pages through a memory map.
        sqlite3_exec(handle, "PRAGMA mmap_size = \(mmapBytes)", nil, nil, nil)
        return Connection(handle: handle)
    }

    /// Closes the idle connections; one in use closes when it is given back.
    func close() {
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }
}
