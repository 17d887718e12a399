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

    private let writer: any DatabaseWriter
    /// The writer connection's page cache, in KiB.
    static let writerCacheKiB = 64 * 1024
    /// How much of the file readers map (SQLite maps no more than the file's size).
    static let mmapBytes = 1 << 30
    /// Each collection's blob fields, from its declared schema (kept in the `collections` table).
    private let blobFields = Mutex<[String: [String]]>([:])
    /// Each collection's search index, likewise.
    private let searchSpecs = Mutex<[String: SearchIndexSpec]>([:])
    /// Each collection's spatial index, likewise, and the R*Tree that keeps it.
    private let spatialSpecs = Mutex<[String: SpatialIndexSpec]>([:])
    private let spatialTrees = Mutex<[String: String]>([:])
    /// Each collection's history and scope settings, likewise.
    private let logSpecs = Mutex<[String: LogSpec]>([:])
    private let ownerSizes = OwnerSizes()
    /// The file checkpoints are run on (nil for a store over a given writer).
    private let checkpointPath: String?
    private let checkpointer = Checkpointer()
    static let backstopCheckpointPages = 10_000
    private let searchTuning: SQLiteSearchTuning
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
        if let pool = writer as? DatabasePool { try pool.close() }
        if let queue = writer as? DatabaseQueue { try queue.close() }
    }

    // MARK: Schema versions

    /// A migration's version: the number in its identifier ("v5: …" is 5).
    static func version(_ identifier: String) -> Int {
        Int(identifier.dropFirst().prefix { $0.isNumber }) ?? 0
    }

    static func plan(_ db: Database, database: String) throws -> SchemaMigrationPlan {
        let migrator = Self.migrator
        let applied = try migrator.appliedIdentifiers(db)
        let known = migrator.migrations
        let current = applied.map(Self.version).max() ?? 0
        let latest = known.map(Self.version).max() ?? 0
        let pending = known.filter { !applied.contains($0) }
        return SchemaMigrationPlan(database: database, current: current, latest: latest, pending: pending,
                                   unknown: applied.filter { !known.contains($0) }.sorted(),
                                   safeguard: pending.isEmpty || applied.isEmpty ? nil
                                       : "Before that, the database is copied (SQLite online backup) to \(database).before-v\(current)-to-v\(latest).")
    }

    /// What opening the database at `path` would do to its schema, read without changing anything.
    public static func migrationPlan(path: String) throws(StorageError) -> SchemaMigrationPlan {
        guard FileManager.default.fileExists(atPath: path) else {
            let known = migrator.migrations
            return SchemaMigrationPlan(database: path, current: 0, latest: known.map(Self.version).max() ?? 0, pending: known, unknown: [], safeguard: nil)
        }
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: readOnly)
            defer { try? queue.close() }
            return try queue.read { db in try plan(db, database: path) }
        } catch {
            throw StorageError.unavailable("Cannot read the schema version of '\(path)': \(error). Check the path and its permissions.")
        }
    }

    /// Copies the database at `path` to `<path>.before-v<from>-to-v<to>` (SQLite's online backup API)
    /// when this build is about to migrate it; answers the copy's path. A copy already there (an
    /// earlier attempt at the same upgrade) is kept: it is the older one. Refuses a newer database.
    static func snapshotBeforeMigrating(path: String) throws(StorageError) -> String? {
        let plan = try migrationPlan(path: path)
        if plan.isNewer { throw StorageError(.conflict, plan.newerRefusal) }
        guard !plan.pending.isEmpty, plan.current > 0 else { return nil }
        let snapshot = "\(path).before-v\(plan.current)-to-v\(plan.latest)"
        if FileManager.default.fileExists(atPath: snapshot) { return snapshot }
        let partial = snapshot + ".partial"
        do {
            try? FileManager.default.removeItem(atPath: partial)
            var readOnly = Configuration()
            readOnly.readonly = true
            let source = try DatabaseQueue(path: path, configuration: readOnly)
            let copy = try DatabaseQueue(path: partial)
            try source.backup(to: copy)
            try copy.close()
            try source.close()
            try FileManager.default.moveItem(atPath: partial, toPath: snapshot)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw StorageError.unavailable("Cannot copy '\(path)' to \(snapshot) before upgrading its schema (\(error)); "
                                           + "nothing was changed. Free some disk space or make the folder writable, then start again.")
        }
        return snapshot
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: records, changes, idempotency") { db in
            try db.execute(sql: """
                CREATE TABLE records (
                    collection TEXT NOT NULL,
                    id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    data TEXT NOT NULL,
                    PRIMARY KEY (collection, id)
                ) WITHOUT ROWID;
                CREATE INDEX records_by_owner ON records(collection, owner, id);
                CREATE TABLE changes (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    owner TEXT NOT NULL,
                    collection TEXT NOT NULL,
                    record_id TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    at REAL NOT NULL
                );
                CREATE INDEX changes_by_owner ON changes(owner, sequence);
                CREATE TABLE idempotency (
                    owner TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    key TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    results TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (owner, scope, key)
                ) WITHOUT ROWID;
                CREATE TABLE collections (name TEXT PRIMARY KEY, schema TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2: search indexes") { db in try SQLiteSearch.createTables(db) }
        migrator.registerMigration("v3: search index kept per batch") { db in try SQLiteSearch.migrateToVersion3(db) }
        migrator.registerMigration("v4: spatial indexes") { db in try SQLiteSpatial.createTables(db) }
        migrator.registerMigration("v5: sync — scopes, earlier versions, compaction") { db in
            try db.execute(sql: """
                ALTER TABLE changes ADD COLUMN scope TEXT;
                CREATE INDEX changes_by_record ON changes(collection, record_id, sequence);
                CREATE INDEX changes_by_scope ON changes(owner, scope, sequence) WHERE scope IS NOT NULL;
                CREATE TABLE versions (
                    collection TEXT NOT NULL,
                    id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    data TEXT NOT NULL,
                    superseded_at REAL NOT NULL,
                    PRIMARY KEY (collection, id, version)
                ) WITHOUT ROWID;
                CREATE TABLE log_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        return migrator
    }

    // MARK: RecordStore

    public func declare(_ schema: CollectionSchema) async throws(StorageError) {
        try SchemaRules.validate(schema)
        var schema = schema
        let known = blobFields.withLock { $0[schema.name] ?? [] }
        schema.blobFields = known + schema.blobFields.filter { !known.contains($0) }
        let blobIndexes = schema.blobFields.map { Self.blobIndex($0) }
        let previousSearch = searchSpecs.withLock { $0[schema.name] }
        if schema.search == nil { schema.search = previousSearch }
        let previousSpatial = spatialSpecs.withLock { $0[schema.name] }
        if schema.spatial == nil { schema.spatial = previousSpatial }
        // History is as the latest declaration says (the storage plugin may turn it off); a scope stays.
        if let previous = logSpecs.withLock({ $0[schema.name] }), schema.scope == nil { schema.scope = previous.scope }
        let tree = try await run { [schema] db -> String? in
            if schema.spatial != previousSpatial {
                return try SQLiteSpatial.rebuild(db, collection: schema.name, spec: schema.spatial)
            }
            return nil
        }
        if let tree { spatialTrees.withLock { $0[schema.name] = tree } }
        try await run { [schema] db in
            if schema.search != previousSearch {
                try SQLiteSearch.rebuild(db, collection: schema.name, spec: schema.search)
            }
            for index in schema.indexes + blobIndexes {
                let wanted = SQLQueryBuilder.createIndex(index, collection: schema.name)
                let name = SQLQueryBuilder.indexName(collection: schema.name, index: index.name)
                // An index declared anew with another definition replaces the old one.
                if let existing = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                                                      arguments: [name]),
                   existing != wanted.replacingOccurrences(of: " IF NOT EXISTS", with: "") {
                    try db.execute(sql: "DROP INDEX \(name)")
                }
                do {
                    try db.execute(sql: wanted)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw StorageError.conflict("Index '\(index.name)' on '\(schema.name)' cannot be unique: existing records share a key.")
                }
            }
            let text = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
            try db.execute(sql: "INSERT OR REPLACE INTO collections(name, schema) VALUES (?, ?)", arguments: [schema.name, text])
        }
        if !schema.blobFields.isEmpty { blobFields.withLock { $0[schema.name] = schema.blobFields } }
        if let search = schema.search { searchSpecs.withLock { $0[schema.name] = search } }
        if let spatial = schema.spatial { spatialSpecs.withLock { $0[schema.name] = spatial } }
        let spec = LogSpec(schema)
        logSpecs.withLock { $0[schema.name] = spec }
    }

    public func spatialQuery(_ query: SpatialQuery) async throws(StorageError) -> SpatialResult {
        let area = try query.validatedArea()
        guard spatialSpecs.withLock({ $0[query.collection] }) != nil, let tree = spatialTrees.withLock({ $0[query.collection] }) else {
            throw StorageError.invalid("'\(query.collection)' has no spatial index; declare one with the collection.", field: "collection")
        }
        let (smallOwner, bandCap) = (searchTuning.spatialSmallOwner, searchTuning.spatialOwnerBandCap)
        return try await read { db in
            try SQLiteSpatial.query(db, tree: tree, query, boxes: area.boxes, from: area.from, radius: area.radius, smallOwner: smallOwner,
                                    ownerBandCap: bandCap)
        }
    }

    public func search(_ query: SearchQuery) async throws(StorageError) -> SearchResult {
        let spec = searchSpecs.withLock { $0[query.collection] }
        try query.validate(against: spec)
        guard let spec else { return SearchResult(hits: []) }
        let (ownerSizes, tuning) = (self.ownerSizes, searchTuning)
        return try await read { db in
            let rows = try ownerSizes.rows(db, collection: query.collection, owner: query.owner, upTo: tuning.bigOwner)
            return try SQLiteSearch.search(db, query, spec: spec, ownerRows: rows, tuning: tuning)
        }
    }

    /// The index that answers "which record holds this blob?" for one blob field.
    private static func blobIndex(_ field: String) -> IndexSpec {
        IndexSpec(name: "blob_" + field, fields: [field], scope: .global)
    }

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

    private static func held(among blobs: Set<String>, fields: [String: [String]], db: Database) throws -> Set<String> {
        var held: Set<String> = []
        for (collection, names) in fields.sorted(by: { $0.key < $1.key }) {
            for field in names {
                let statement = try db.cachedStatement(sql: """
                    SELECT 1 FROM records WHERE collection = \(SQLQueryBuilder.literal(collection)) \
                    AND \(SQLQueryBuilder.expression(field)) = ? LIMIT 1
                    """)
                for blob in blobs.subtracting(held) where try Bool.fetchOne(statement, arguments: [blob]) == true {
                    held.insert(blob)
                }
            }
        }
        return held
    }

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

    public func write(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        try batch.validate()
        let stamp = Timestamps.now()
        let fields = blobFields.withLock { $0 }
        let specs = searchSpecs.withLock { $0 }
        let spatial = spatialSpecs.withLock { $0 }
        let trees = spatialTrees.withLock { $0 }
        let logs = logSpecs.withLock { $0 }
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
        return try await run { [points, trees] db in
            if let claim = batch.idempotency,
               let row = try Row.fetchOne(
                db, sql: "SELECT fingerprint, results FROM idempotency WHERE owner = ? AND scope = ? AND key = ?",
                arguments: [claim.owner, claim.scope, claim.key]) {
                guard (row["fingerprint"] as String) == claim.fingerprint else {
                    throw IdempotencyRules.mismatch(claim)
                }
                let references = try JSONDecoder().decode([RecordReference?].self, from: Data((row["results"] as String).utf8))
                let records = try references.map { reference -> Record? in
                    guard let reference else { return nil }
                    return try Row.fetchOne(
                        db, sql: "SELECT \(SQLQueryBuilder.recordColumns) FROM records WHERE collection = ? AND id = ?",
                        arguments: [reference.collection, reference.id]).map(Self.record)
                }
                return WriteResult(records: records, replayed: true)
            }
            var written: [Record?] = []
            var letGo: Set<String> = []
            // The FTS table follows the batch in two statements per collection: out before, in after.
            var reindexed: [String: [String]] = [:]
            var changeLog = ChangeLog()
            for operation in batch.operations where specs[operation.collection] != nil {
                if case .insert = operation { continue }
                if let id = operation.id { reindexed[operation.collection, default: []].append(id) }
            }
            for (collection, ids) in reindexed { try SQLiteSearch.unindex(db, collection: collection, ids: ids) }
            for (position, operation) in batch.operations.enumerated() {
                if let names = fields[operation.collection] {
                    letGo.formUnion(try Self.blobChange(operation, fields: names, db: db))
                }
                let record = try Self.apply(operation, db: db, stamp: stamp, spec: logs[operation.collection], log: &changeLog)
                if spatial[operation.collection] != nil, let tree = trees[operation.collection] {
                    try SQLiteSpatial.apply(db, tree: tree, operation, record: record, point: points[position])
                }
                if specs[operation.collection] != nil {
                    try Self.index(operation, record, row: searchRows[position], db: db)
                    if case .insert = operation, let record { reindexed[operation.collection, default: []].append(record.id) }
                }
                written.append(record)
            }
            for (collection, ids) in reindexed { try SQLiteSearch.reindex(db, collection: collection, ids: ids) }
            let moved = try changeLog.write(db, at: stamp)
            let released = letGo.subtracting(try Self.held(among: letGo, fields: fields, db: db)).sorted()
            if let claim = batch.idempotency {
                let references = zip(batch.operations, written).map { operation, record in
                    record.map { RecordReference(collection: operation.collection, id: $0.id) }
                }
                let results = String(decoding: try JSONEncoder().encode(references), as: UTF8.self)
                try db.execute(
                    sql: "INSERT INTO idempotency(owner, scope, key, fingerprint, results, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [claim.owner, claim.scope, claim.key, claim.fingerprint, results, stamp])
            }
            return WriteResult(records: written, replayed: false, releasedBlobs: released, moved: moved)
        }
    }

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

    public func history(collection: String, id: String, owner: String) async throws(StorageError) -> [StorageAPI.Record] {
        guard StorageNames.isValidCollection(collection), StorageNames.isValidID(id) else { return [] }
        return try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(SQLQueryBuilder.recordColumns) FROM versions WHERE collection = ? AND id = ? AND owner = ? ORDER BY version DESC
                """), arguments: [collection, id, owner]).map(Self.record)
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

    // MARK: Writing

    /// Checks the blob fields an operation writes, and returns the blobs the record held before it.
    private static func blobChange(_ operation: WriteOperation, fields: [String], db: Database) throws -> Set<String> {
        switch operation {
        case .insert(_, _, _, let data), .replace(_, _, _, let data, _):
            _ = try BlobFieldRules.blobs(in: try data.parsed(), fields: fields, collection: operation.collection)
        case .delete: break
        }
        guard let id = operation.id,
              let text = try String.fetchOne(db.cachedStatement(sql: "SELECT data FROM records WHERE collection = ? AND id = ? AND owner = ?"),
                                             arguments: [operation.collection, id, operation.owner]) else { return [] }
        return try BlobFieldRules.blobs(in: try JSONDocument(trustedBytes: Data(text.utf8)).parsed(), fields: fields,
                                        collection: operation.collection)
    }

    /// The search rows of a batch's inserts and replacements, by position in the batch.
    private static func searchRows(_ batch: WriteBatch, specs: [String: SearchIndexSpec]) throws -> [Int: SQLiteSearch.IndexedRow] {
        var rows: [Int: SQLiteSearch.IndexedRow] = [:]
        for (position, operation) in batch.operations.enumerated() {
            guard let spec = specs[operation.collection], let data = operation.data else { continue }
            rows[position] = SQLiteSearch.IndexedRow(spec: spec, collection: operation.collection, owner: operation.owner,
                                              data: try data.parsed())
        }
        return rows
    }

    /// Keeps the collection's search rows in step with a write, in the same transaction.
    private static func index(_ operation: WriteOperation, _ record: Record?, row: SQLiteSearch.IndexedRow?, db: Database) throws {
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

    private static func apply(_ operation: WriteOperation, db: Database, stamp: Double, spec: LogSpec?,
                              log: inout ChangeLog) throws -> Record? {
        let now = Date(timeIntervalSince1970: stamp)
        switch operation {
        case .insert(let collection, let chosen, let owner, let data):
            let id = chosen ?? RecordIDs.make()
            // An id the caller chose may be a deleted record's: its versions go on from the tombstone.
            let version = try chosen.map { try tombstoneVersion(db, collection: collection, id: $0, log: log) + 1 } ?? 1
            let record = Record(collection: collection, id: id, owner: owner, version: version, createdAt: now,
                                updatedAt: now, data: data)
            do {
                // Cached: an insert's statement carries every index's checks, and preparing it cost
                // a sixth of an import's time.
                try db.cachedStatement(sql: "INSERT INTO records(\(SQLQueryBuilder.recordColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
                    .execute(arguments: [collection, id, owner, version, stamp, stamp, String(decoding: data.bytes, as: UTF8.self)])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw constraintError(error, collection: collection, id: id)
            }
            log.add(owner: owner, collection: collection, id: id, kind: .insert, version: version, scope: try spec?.scope(id: id, data))
            return record
        case .replace(let collection, let id, let owner, let data, let expectedVersion):
            let existing = try existingRecord(db, collection: collection, id: id, owner: owner, expectedVersion: expectedVersion)
            if spec?.history == true { try keep(existing, db: db, at: stamp) }
            let version = existing.version + 1
            do {
                try db.cachedStatement(sql: "UPDATE records SET version = ?, updated_at = ?, data = ? WHERE collection = ? AND id = ?")
                    .execute(arguments: [version, stamp, String(decoding: data.bytes, as: UTF8.self), collection, id])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw constraintError(error, collection: collection, id: id)
            }
            log.add(owner: owner, collection: collection, id: id, kind: .replace, version: version, scope: try spec?.scope(id: id, data))
            return Record(collection: collection, id: id, owner: owner, version: version, createdAt: existing.createdAt,
                          updatedAt: now, data: data)
        case .delete(let collection, let id, let owner, let expectedVersion):
            let existing = try existingRecord(db, collection: collection, id: id, owner: owner, expectedVersion: expectedVersion)
            if spec?.forgetsOnDelete == true {
                try db.cachedStatement(sql: "DELETE FROM versions WHERE collection = ? AND id = ?").execute(arguments: [collection, id])
            } else if spec?.history == true {
                try keep(existing, db: db, at: stamp)
            }
            try db.cachedStatement(sql: "DELETE FROM records WHERE collection = ? AND id = ?").execute(arguments: [collection, id])
            log.add(owner: owner, collection: collection, id: id, kind: .delete, version: existing.version + 1,
                    scope: try spec?.scope(id: id, existing.data))
            return nil
        }
    }

    /// Keeps a record's version as it was before a replace or delete.
    private static func keep(_ record: Record, db: Database, at stamp: Double) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO versions(collection, id, owner, version, created_at, updated_at, data, superseded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [record.collection, record.id, record.owner, record.version, record.createdAt.timeIntervalSince1970,
                                     record.updatedAt.timeIntervalSince1970, String(decoding: record.data.bytes, as: UTF8.self), stamp])
    }

    /// The version of a deleted record's tombstone (this batch's or the log's), or 0.
    private static func tombstoneVersion(_ db: Database, collection: String, id: String, log: ChangeLog) throws -> Int64 {
        if let pending = log.last(collection: collection, id: id) { return pending.kind == .delete ? pending.version : 0 }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT kind, version FROM changes WHERE collection = ? AND record_id = ? ORDER BY sequence DESC LIMIT 1
            """), arguments: [collection, id]) else { return 0 }
        return (row[0] as String) == Change.Kind.delete.rawValue ? row[1] : 0
    }

    private static func existingRecord(_ db: Database, collection: String, id: String, owner: String,
                                       expectedVersion: Int64?) throws -> Record {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(SQLQueryBuilder.recordColumns) FROM records WHERE collection = ? AND id = ?"),
            arguments: [collection, id]) else {
            throw RecordRules.notFound(collection: collection, id: id)
        }
        let record = record(row)
        guard record.owner == owner else { throw RecordRules.notFound(collection: collection, id: id) }
        try RecordRules.check(expectedVersion: expectedVersion, actual: record.version, id: id)
        return record
    }

    private static func constraintError(_ error: DatabaseError, collection: String, id: String) -> StorageError {
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

    static func record(_ row: Row) -> Record {
        Record(collection: row[0], id: row[1], owner: row[2], version: row[3],
               createdAt: Date(timeIntervalSince1970: row[4]), updatedAt: Date(timeIntervalSince1970: row[5]),
               data: JSONDocument(trustedBytes: row[6] as Data))
    }

    // MARK: Running

    private func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
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
    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        do {
            return try Self.readOnCallingThread(writer, body)
        } catch {
            throw Self.map(error)
        }
    }

    private static func readOnCallingThread<T>(_ writer: any DatabaseWriter, _ body: (Database) throws -> T) throws -> T {
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

/// A batch's rows of the change log, written in one statement at the end of the batch (in batch
/// order, so sequence numbers follow it): a statement per row — each also bumping the AUTOINCREMENT
/// counter — was a measurable part of a large import.
struct ChangeLog {
    private struct Entry {
        var owner: String
        var collection: String
        var id: String
        var kind: Change.Kind
        var version: Int64
        var scope: String?
    }

    private var entries: [Entry] = []

    mutating func add(owner: String, collection: String, id: String, kind: Change.Kind, version: Int64, scope: String?) {
        entries.append(Entry(owner: owner, collection: collection, id: id, kind: kind, version: version, scope: scope))
    }

    func last(collection: String, id: String) -> (kind: Change.Kind, version: Int64)? {
        entries.last { $0.collection == collection && $0.id == id }.map { ($0.kind, $0.version) }
    }

    /// Writes the rows; answers whose logs moved, to which sequence, touching which scopes.
    func write(_ db: Database, at stamp: Double) throws -> [LogMove] {
        guard !entries.isEmpty else { return [] }
        let rows = JSONValue.array(entries.map { entry in
            .array([.string(entry.owner), .string(entry.collection), .string(entry.id), .string(entry.kind.rawValue),
                    .number(Double(entry.version)), entry.scope.map(JSONValue.string) ?? .null])
        })
        try db.cachedStatement(sql: """
            INSERT INTO changes(owner, collection, record_id, kind, version, scope, at)
            SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, ? FROM json_each(?) ORDER BY key
            """).execute(arguments: [stamp, rows.canonicalJSONText])
        // One statement, one writer, AUTOINCREMENT: the rows took consecutive sequences ending here.
        let last = db.lastInsertedRowID
        return LogMove.of(entries.enumerated().map { offset, entry in
            Change(sequence: last - Int64(entries.count - 1 - offset), owner: entry.owner, collection: entry.collection, recordID: entry.id,
                   kind: entry.kind, version: entry.version, scope: entry.scope)
        })
    }
}

/// The connection checkpoints run on, opened on first use, used on one serial queue: a checkpoint
/// writes and syncs the database file, which must hold neither the writer nor a cooperative thread.
final class Checkpointer: Sendable {
    /// Log frames past which a checkpoint also restarts the log (16 MB at 16 KiB pages).
    static let restartFrames = 1000
    private let queue = DispatchQueue(label: "quire.storage.checkpoint")
    private let connection = Mutex<DatabaseQueue?>(nil)

    func run(path: String) async throws(StorageError) -> Int {
        let result: Result<Int, StorageError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(StorageError) -> Int in
                    do {
                        let database = try self.connection.withLock { connection in
                            if let connection { return connection }
                            var configuration = Configuration()
                            configuration.busyMode = .timeout(1)
                            let opened = try DatabaseQueue(path: path, configuration: configuration)
                            connection = opened
                            return opened
                        }
                        return try database.writeWithoutTransaction { db in
                            // The bulk (and its fsync) without blocking anyone…
                            let passive = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
                            let logged: Int = passive?[1] ?? 0
                            guard logged >= Self.restartFrames else { return passive?[2] ?? 0 }
                            // …then, once the log is long, the few frames committed meanwhile, waiting for the
                            // writer between two commits, so that the next commit starts the log over instead of
                            // growing it: under steady writes a passive checkpoint alone never catches up.
                            let restart = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(RESTART)")
                            return max(passive?[2] ?? 0, restart?[2] ?? 0)
                        }
                    } catch {
                        throw StorageError.unavailable("The database could not be checkpointed: \(error)")
                    }
                })
            }
        }
        return try result.get()
    }

    func close() {
        queue.sync { connection.withLock { $0 = nil } }
    }
}
