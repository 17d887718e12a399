import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

/// GRDB also exports a `Record`; in this module the name means storage's record.
typealias Record = StorageAPI.Record

/// The embedded default: records in one SQLite file through GRDB's `DatabasePool` (WAL mode, so
/// reads never wait for the writer). Every batch is one SQLite transaction; a crash mid-batch leaves
/// the file as it was before the batch.
public final class SQLiteRecordStore: RecordStore, BlobHolds, RecordSearching, RecordSpatialIndexing, RecordUsage, ChangeLogCompacting {
    /// How hard SQLite flushes at commit.
    public enum Durability: String, Sendable {
        /// fsync at every commit: a commit survives a power cut.
        case full
        /// fsync at checkpoints only (WAL): a commit survives a crash of the process, the last ones
        /// may be lost on power loss. SQLite's recommended setting for WAL.
        case normal
    }

    let writer: any DatabaseWriter
    /// The writer connection's page cache, in KiB.
    static let writerCacheKiB = 64 * 1024
    /// How much of the file readers map (SQLite maps no more than the file's size).
    static let mmapBytes = 1 << 30
    /// Each collection's blob fields, from its declared schema (kept in the `collections` table).
    let blobFields = Mutex<[String: [String]]>([:])
    /// Each collection's search index, likewise.
    let searchSpecs = Mutex<[String: SearchIndexSpec]>([:])
    /// Each collection's spatial index, likewise, and the R*Tree that keeps it.
    let spatialSpecs = Mutex<[String: SpatialIndexSpec]>([:])
    let spatialTrees = Mutex<[String: String]>([:])
    /// Each collection's history and scope settings, likewise.
    let logSpecs = Mutex<[String: LogSpec]>([:])
    let ownerSizes = OwnerSizes()
    /// The file checkpoints are run on (nil for a store over a given writer).
    let checkpointPath: String?
    let checkpointer = Checkpointer()
    /// Concurrent writes share transactions (group commit: see ``SQLiteWriteGroups``).
    let writeGroups = SQLiteWriteGroups()
    static let backstopCheckpointPages = 10_000
    let searchTuning: SQLiteSearchTuning
    /// Read-only connections of the store's own for pages written as JSON (a file's store; nil for
    /// a store over a given writer, which reads through it).
    let readers: SQLiteReaders?
    /// Where the database was copied before this build migrated its schema, when it did.
    public let upgradeSnapshot: String?

    /// Opens (or creates) the database at `path` and brings its schema up to date. Before a
    /// migration changes an existing database, it is copied with SQLite's online backup API to
    /// `<path>.before-v<from>-to-v<to>`; a database a newer Quire wrote is refused.
    public convenience init(path: String, durability: Durability = .normal,
                            searchTuning: SQLiteSearchTuning = SQLiteSearchTuning()) throws(StorageError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StorageError.unavailable("Cannot create the directory '\(directory)' for the database: \(error.localizedDescription)")
            }
        }
        let snapshot = try Self.snapshotBeforeMigrating(path: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
            // Reads through a memory map: an index walk that lands on pages all over a big file
            // (a spatial query, a tag search) costs no read() system call per page.
            try db.execute(sql: "PRAGMA mmap_size = \(Self.mmapBytes)")
            if !db.configuration.readonly {
                // The writer's page cache (SQLite's default is 2 MB): indexes in key order — the
                // search B-tree, a collection's sort index — take inserts all over their pages, and a
                // big import otherwise re-reads them from the OS for every batch. Readers keep the default.
                try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)")
                // 16 KiB pages for a new file (an existing one keeps its size): FTS5 segments and the
                // wide search rows fit fewer, fuller pages.
                try db.execute(sql: "PRAGMA page_size = 16384")
                // Checkpoints run from a connection of their own (``checkpoint()``, every second from the
                // storage plugin), so a commit never waits for one; the limit here is only a backstop
                // (160 MB of WAL) should that stop.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.backstopCheckpointPages)")
            }
        }
        do {
            try self.init(writer: DatabasePool(path: path, configuration: configuration), searchTuning: searchTuning, checkpointPath: path,
                          upgradeSnapshot: snapshot)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.unavailable("Cannot open the database '\(path)': \(error). Check the path and its permissions.")
        }
    }

    /// A store over any GRDB writer; tests may pass a `DatabaseQueue()` in memory.
    public init(writer: any DatabaseWriter, searchTuning: SQLiteSearchTuning = SQLiteSearchTuning(),
                checkpointPath: String? = nil, upgradeSnapshot: String? = nil) throws(StorageError) {
        self.writer = writer
        self.checkpointPath = checkpointPath
        self.searchTuning = searchTuning
        self.readers = checkpointPath.map { SQLiteReaders(path: $0, mmapBytes: Self.mmapBytes) }
        self.upgradeSnapshot = upgradeSnapshot
        let plan: SchemaMigrationPlan
        do {
            plan = try writer.read { db in try Self.plan(db, database: checkpointPath ?? "the database") }
        } catch {
            throw StorageError.unavailable("Cannot read the database's schema version: \(error)")
        }
        if plan.isNewer { throw StorageError(.conflict, plan.newerRefusal) }
        do {
            try Self.migrator.migrate(writer)
            let schemas = try writer.read { db in try String.fetchAll(db, sql: "SELECT schema FROM collections") }
            var fields: [String: [String]] = [:]
            var specs: [String: SearchIndexSpec] = [:]
            var spatial: [String: SpatialIndexSpec] = [:]
            var logs: [String: LogSpec] = [:]
            for text in schemas {
                let schema = try JSONDecoder().decode(CollectionSchema.self, from: Data(text.utf8))
                if let spec = LogSpec(schema) { logs[schema.name] = spec }
                if !schema.blobFields.isEmpty { fields[schema.name] = schema.blobFields }
                if let search = schema.search { specs[schema.name] = search }
                if let index = schema.spatial { spatial[schema.name] = index }
            }
            spatialSpecs.withLock { $0 = spatial }
            logSpecs.withLock { $0 = logs }
            let trees = try writer.read { db in try SQLiteSpatial.trees(db) }
            spatialTrees.withLock { $0 = trees }
            blobFields.withLock { $0 = fields }
            searchSpecs.withLock { $0 = specs }
        } catch {
            throw StorageError.unavailable("Cannot prepare the database schema: \(error)")
        }
    }

    /// Copies committed pages from the write-ahead log into the database file (SQLite's PASSIVE
    /// checkpoint: it never waits for and never blocks the writer), on a connection and a thread of
    /// its own. Answers how many log frames are now in the file.
    @discardableResult
    public func checkpoint() async throws(StorageError) -> Int {
        guard let path = checkpointPath else { return 0 }
        return try await checkpointer.run(path: path)
    }

    /// Closes the database; later calls fail with `unavailable`.
    public func close() throws {
        checkpointer.close()
        readers?.close()
        if let pool = writer as? DatabasePool { try pool.close() }
        if let queue = writer as? DatabaseQueue { try queue.close() }
    }

    static func record(_ row: Row) -> Record {
        Record(collection: row[0], id: row[1], owner: row[2], version: row[3],
               createdAt: Date(timeIntervalSince1970: row[4]), updatedAt: Date(timeIntervalSince1970: row[5]),
               data: JSONDocument(trustedBytes: row[6] as Data))
    }

    // MARK: Running

    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        do {
            return try await writer.write(body)
        } catch {
            throw Self.map(error)
        }
    }

    /// Runs a single-statement read on the calling thread, outside a transaction.
    ///
    /// Every read here is one SELECT, which SQLite runs against one consistent WAL snapshot by
    /// itself, so GRDB's `BEGIN … COMMIT` around it (and its hop to a dispatch queue and back) only
    /// cost CPU — 40 % of a list request's, measured (BENCHMARKS.md). Reads are short (a page of at
    /// most 1,000 rows) and never wait for the writer. Writes keep GRDB's async path: they can wait
    /// for the write lock, and must not hold a cooperative thread meanwhile.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        do {
            return try Self.readOnCallingThread(writer, body)
        } catch {
            throw Self.map(error)
        }
    }

    static func readOnCallingThread<T>(_ writer: any DatabaseWriter, _ body: (Database) throws -> T) throws -> T {
        try writer.unsafeRead(body)
    }

    static func map(_ error: any Error) -> StorageError {
        if let error = error as? StorageError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: return .unavailable("The disk is full; free space and try again.")
            case .SQLITE_BUSY, .SQLITE_LOCKED: return .unavailable("The database is busy; try again.")
            case .SQLITE_MISUSE where error.message?.contains("closed") == true:
                return .unavailable("The database is closed (the server is shutting down).")
            default: return StorageError(.internal, "Database error \(error.resultCode.rawValue).")
            }
        }
        return StorageError(.internal, "Unexpected storage error: \(error)")
    }
}

