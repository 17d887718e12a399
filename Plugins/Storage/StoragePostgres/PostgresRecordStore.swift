import Bus
public import Foundation
public import Logging
import PostgresNIO
public import ServiceLifecycle
public import StorageAPI
import Synchronization

/// Records on a PostgreSQL server (postgres-nio's connection pool): the same contract as SQLite's,
/// for several `quire serve` nodes sharing one database. Every batch is one transaction; every
/// value is bound, never written into the SQL. The change log's sequences are taken at the end of
/// each writing transaction from one counter row, so they follow commit order without gaps even
/// with many writers: a reader that saw sequence n never later finds a change below n appear.
///
/// Run it as a service (its pool's connections live there), then ``prepare()`` it.
public final class PostgresRecordStore: RecordStore, BlobHolds, RecordUsage, RecordSearching, RecordSpatialIndexing, ChangeLogCompacting, Service {
    /// Where the database is and how to reach it.
    public struct Settings: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        public var tls: TLSMode
        /// The schema Quire's tables live in (`public` unless the URL says `?search_path=`).
        public var schema: String
        public var maxConnections: Int
        /// Refuse to migrate an existing schema without a `quire backup` from the last 24 hours
        /// (`quire_backups`); `storage.migrate_without_backup: true` turns it off.
        public var requireBackupBeforeMigrating = true

        public enum TLSMode: String, Sendable { case disable, prefer, require }

        /// Reads `postgres://user:password@host:port/database?sslmode=…&search_path=…`.
        /// - Throws: a sentence saying what is wrong with it.
        public init(url text: String, maxConnections: Int = 20) throws(StorageError) {
            guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
                throw StorageError.invalid("'\(Self.redacted(text))' is not a PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.",
                                           field: "url")
            }
            guard let host = url.host, !host.isEmpty else {
                throw StorageError.invalid("The PostgreSQL URL names no host; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.", field: "url")
            }
            guard let user = url.user, !user.isEmpty else {
                throw StorageError.invalid("The PostgreSQL URL names no user; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.", field: "url")
            }
            let database = String(url.path.drop { $0 == "/" })
            guard !database.isEmpty, !database.contains("/") else {
                throw StorageError.invalid("The PostgreSQL URL names no database; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.", field: "url")
            }
            let options = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
            for name in options.keys where !["sslmode", "search_path"].contains(name) {
                throw StorageError.invalid("The PostgreSQL URL's option '\(name)' is not one Quire reads (sslmode, search_path).", field: "url")
            }
            guard let tls = TLSMode(rawValue: options["sslmode"] ?? "prefer") else {
                throw StorageError.invalid("sslmode is disable, prefer or require, not '\(options["sslmode"] ?? "")'.", field: "url")
            }
            let schema = options["search_path"] ?? "public"
            guard !schema.isEmpty, schema.utf8.count <= 63, schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw StorageError.invalid("search_path is one schema name (letters, digits, '_'), not '\(schema)'.", field: "url")
            }
            self.host = host
            self.port = url.port ?? 5432
            self.username = user.removingPercentEncoding ?? user
            self.password = url.password.map { $0.removingPercentEncoding ?? $0 }
            self.database = database.removingPercentEncoding ?? database
            self.tls = tls
            self.schema = schema
            self.maxConnections = maxConnections
        }

        /// The URL without its password, for messages and logs.
        public static func redacted(_ text: String) -> String {
            guard var url = URLComponents(string: text), url.password != nil else { return text }
            url.password = "***"
            return url.string ?? "postgres://…"
        }

        /// Where it connects, without the password.
        public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" + (schema == "public" ? "" : " (schema \(schema))") }
    }

    public let settings: Settings
    private let client: PostgresClient
    private let logger: Logger
    /// Each collection's blob fields, history and scope, and the declared names of its unique
    /// indexes by their PostgreSQL names (to say which one a conflict hit), from `collections`.
    private let collections = Mutex<Collections>(Collections())
    /// Until ``prepare()`` has run, requests are answered ``unreachable`` (503, Retry-After) and
    /// declarations wait here; they are applied, in order, once the database answers.
    private let readiness = Mutex(Readiness.waiting([]))

    enum Readiness {
        case waiting([CollectionSchema])
        case ready
    }

    struct Collections {
        var blobFields: [String: [String]] = [:]
        var logs: [String: LogSpec] = [:]
        var indexNames: [String: String] = [:]
        var spatial: [String: SpatialIndexSpec] = [:]
        var search: [String: SearchIndexSpec] = [:]
    }

    public init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database,
            tls: settings.tls == .disable ? .disable
                : settings.tls == .require ? .require(.makeClientConfiguration()) : .prefer(.makeClientConfiguration()))
        configuration.options.maximumConnections = settings.maxConnections
        configuration.options.connectTimeout = .seconds(5)
        if settings.schema != "public" {
            configuration.options.additionalStartupParameters = [("search_path", "\(settings.schema), public")]
        }
        // The pool logs each failed connection attempt at info; this store says once per wait what is wrong.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .notice)
        client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
    }

    /// The pool: connections are made and kept while this runs.
    public func run() async {
        await client.run()
    }

    /// ``prepare()``, waiting for the database while it cannot be reached: one line per attempt,
    /// 1 s, 2 s, 4 s… up to 30 s apart, until it answers or the task is cancelled (shutdown).
    /// Meanwhile requests are answered 503 with Retry-After, and declarations wait for it.
    public func prepareWhenReachable() async throws(StorageError) {
        var wait: Duration = .seconds(1)
        while true {
            do {
                try await prepare()
                return
            } catch where error.code == .unavailable && !Task.isCancelled {
                logger.warning("storage: PostgreSQL cannot be reached; trying again in a moment",
                               metadata: ["database": "\(settings.description)", "retryInSeconds": "\(wait.components.seconds)"])
                do { try await Task.sleep(for: wait) } catch { throw StorageError.unavailable("Stopped while waiting for PostgreSQL.") }
                wait = min(wait * 2, .seconds(30))
            }
        }
    }

    /// What ``prepare()`` would do with the versions `applied`.
    static func plan(applied: Set<Int>, database: String) -> SchemaMigrationPlan {
        let known = PostgresMigrations.all
        let pending = known.filter { !applied.contains($0.version) }
        return SchemaMigrationPlan(database: database, current: applied.max() ?? 0, latest: known.map(\.version).max() ?? 0,
                                   pending: pending.map { "v\($0.version): \($0.name)" },
                                   unknown: applied.subtracting(known.map(\.version)).sorted().map { "v\($0)" },
                                   safeguard: pending.isEmpty || applied.isEmpty ? nil
                                       : "Before that, a quire backup from the last 24 hours is required (or storage.migrate_without_backup: true).")
    }

    /// Whether `quire backup` recorded a backup in the last 24 hours.
    static func recentBackup(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        for try await exists in try await connection.query("SELECT to_regclass('quire_backups') IS NOT NULL", logger: logger).decode(Bool.self) where !exists {
            return false
        }
        for try await count in try await connection.query("SELECT count(*) FROM quire_backups WHERE taken_at > now() - interval '24 hours'", logger: logger)
            .decode(Int.self) {
            return count > 0
        }
        return false
    }

    /// What ``prepare()`` would do to the schema, read without changing anything (`quire migrate --plan`).
    /// Call once ``run()`` is under way.
    public func migrationPlan() async throws(StorageError) -> SchemaMigrationPlan {
        let logger = self.logger
        let database = settings.description
        let applied = try await transaction(gated: false) { connection in
            var applied: Set<Int> = []
            for try await exists in try await connection.query("SELECT to_regclass('quire_migrations') IS NOT NULL", logger: logger).decode(Bool.self) where !exists {
                return applied
            }
            for try await version in try await connection.query("SELECT version FROM quire_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            return applied
        }
        return Self.plan(applied: applied, database: database)
    }

    /// Brings the schema up to date (each migration once, whichever node gets there first), reads
    /// the declared collections and applies the declarations that waited; from then on requests are
    /// served. Call once ``run()`` is under way.
    public func prepare() async throws(StorageError) {
        let schema = settings.schema
        // One lock for the whole database, not one per schema: migrations create extensions, which
        // are the database's, and two schemas migrating at once would both try to.
        let key = PostgresMigrations.lockKey
        let logger = self.logger
        let settings = self.settings
        let texts = try await transaction(gated: false) { connection in
            if schema != "public" { try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(PostgresSQL.identifier(schema))"), logger: logger) }
            try await connection.query("SELECT pg_advisory_xact_lock(\(key))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS quire_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
                                       logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM quire_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            let plan = Self.plan(applied: applied, database: settings.description)
            if plan.isNewer { throw StorageError(.conflict, plan.newerRefusal) }
            if !plan.pending.isEmpty, plan.current > 0, settings.requireBackupBeforeMigrating,
               try await !Self.recentBackup(connection, logger: logger) {
                throw StorageError(.conflict, "The PostgreSQL database \(settings.description) is at schema v\(plan.current) and this Quire would migrate it to "
                                   + "v\(plan.latest), but no quire backup was taken in the last 24 hours; run quire backup --config FILE DIR first "
                                   + "(it is remembered in the database), or set storage.migrate_without_backup: true to migrate without one.")
            }
            for migration in PostgresMigrations.all where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO quire_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                logger.info("storage: PostgreSQL migration applied", metadata: ["version": "\(migration.version)", "migration": "\(migration.name)"])
            }
            var texts: [String] = []
            for try await text in try await connection.query("SELECT schema FROM collections", logger: logger).decode(String.self) {
                texts.append(text)
            }
            return texts
        }
        var known = Collections()
        for text in texts {
            guard let schema = try? JSONDecoder().decode(CollectionSchema.self, from: Data(text.utf8)) else { continue }
            known.remember(schema)
        }
        collections.withLock { $0 = known }
        // The declarations made while the database was away, one at a time, each taken off the
        // queue once applied (an outage in between leaves the rest for the next attempt).
        while let next = readiness.withLock({ state -> CollectionSchema? in
            guard case .waiting(let pending) = state else { return nil }
            if let first = pending.first { return first }
            state = .ready
            return nil
        }) {
            do {
                try await apply(next)
            } catch where error.code != .unavailable {
                logger.error("storage: a collection could not be declared", metadata: ["collection": "\(next.name)", "error": "\(error.message)"])
            }
            readiness.withLock { state in
                if case .waiting(var pending) = state, !pending.isEmpty {
                    pending.removeFirst()
                    state = .waiting(pending)
                }
            }
        }
    }

    // MARK: RecordStore

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
    private func apply(_ schema: CollectionSchema) async throws(StorageError) {
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
    private func declareTransaction(_ final: CollectionSchema, text: String, previousSearch: SearchIndexSpec?,
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

    public func write(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        try batch.validate()
        do {
            return try await writeOnce(batch)
        } catch where error.details["reason"] == "idempotency_race" {
            // Another node committed the same key meanwhile: this is now a replay.
            return try await writeOnce(batch)
        }
    }

    private func writeOnce(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        let stamp = Timestamps.now()
        let known = collections.withLock { $0 }
        return try await transaction { connection in
            if let claim = batch.idempotency,
               let row = try await connection.query("""
                   SELECT fingerprint, results FROM idempotency WHERE owner = \(claim.owner) AND scope = \(claim.scope) AND key = \(claim.key)
                   """, logger: self.logger).collect().first {
                let (fingerprint, results) = try row.decode((String, String).self)
                guard fingerprint == claim.fingerprint else { throw IdempotencyRules.mismatch(claim) }
                let references = try JSONDecoder().decode([RecordReference?].self, from: Data(results.utf8))
                var records: [StorageAPI.Record?] = []
                for reference in references {
                    guard let reference else { records.append(nil); continue }
                    records.append(try await Self.record(connection, collection: reference.collection, id: reference.id, lock: false, logger: self.logger))
                }
                return WriteResult(records: records, replayed: true)
            }
            var written: [StorageAPI.Record?] = []
            var letGo: Set<String> = []
            var log: [Change] = []
            // Inserts are written a run at a time (a statement per table, not per record: an
            // import's 500-entry batches are most of its time otherwise).
            var run: [PendingInsert] = []
            for operation in batch.operations {
                if case .insert(let collection, let chosen, let owner, let data) = operation {
                    if let fields = known.blobFields[collection] {
                        _ = try BlobFieldRules.blobs(in: try data.parsed(), fields: fields, collection: collection)
                    }
                    run.append(PendingInsert(slot: written.count, collection: collection, id: chosen ?? RecordIDs.make(), chosen: chosen != nil,
                                             owner: owner, data: data))
                    written.append(nil)
                    continue
                }
                try await self.insertAll(run, known: known, connection: connection, stamp: stamp, log: &log, written: &written)
                run.removeAll()
                if let fields = known.blobFields[operation.collection] {
                    letGo.formUnion(try await self.blobChange(operation, fields: fields, connection: connection))
                }
                let record = try await self.apply(operation, connection: connection, stamp: stamp, spec: known.logs[operation.collection], log: &log)
                if let spec = known.search[operation.collection] {
                    try await PostgresSearch.follow(connection, operation, record: record, spec: spec, logger: self.logger)
                }
                if let spec = known.spatial[operation.collection] {
                    try await PostgresSpatial.follow(connection, operation, record: record, spec: spec, logger: self.logger)
                }
                written.append(record)
            }
            try await self.insertAll(run, known: known, connection: connection, stamp: stamp, log: &log, written: &written)
            let released = letGo.subtracting(try await Self.held(among: letGo, fields: known.blobFields, connection: connection, logger: self.logger)).sorted()
            if let claim = batch.idempotency {
                let references = zip(batch.operations, written).map { operation, record in
                    record.map { RecordReference(collection: operation.collection, id: $0.id) }
                }
                let results = String(decoding: try JSONEncoder().encode(references), as: UTF8.self)
                try await connection.query("""
                    INSERT INTO idempotency (owner, scope, key, fingerprint, results, created_at)
                    VALUES (\(claim.owner), \(claim.scope), \(claim.key), \(claim.fingerprint), \(results), \(stamp))
                    """, logger: self.logger)
            }
            // Last: the counter row it takes stays locked until COMMIT, and every other writer waits for it.
            let moved = try await self.appendLog(log, connection: connection, stamp: stamp)
            return WriteResult(records: written, replayed: false, releasedBlobs: released, moved: moved)
        } onUniqueViolation: { constraint in
            if constraint == "idempotency_pkey" {
                return StorageError(.conflict, "The same request is being written by another node.", details: ["reason": "idempotency_race"])
            }
            return nil
        }
    }

    /// An insert of a batch, waiting to be written with the others of its run.
    struct PendingInsert {
        var slot: Int
        var collection: String
        var id: String
        var chosen: Bool
        var owner: String
        var data: JSONDocument
    }

    /// Writes a run of inserts with their search rows and points, a statement per table. An id the
    /// caller chose may be a deleted record's: its versions go on from the tombstone (this batch's
    /// log, else the change log, read for the whole run at once); one that exists is a conflict.
    private func insertAll(_ run: [PendingInsert], known: Collections, connection: PostgresConnection, stamp: Double,
                           log: inout [Change], written: inout [StorageAPI.Record?]) async throws {
        guard !run.isEmpty else { return }
        var tombstones: [String: [String: Int64]] = [:]
        for (collection, inserts) in Dictionary(grouping: run.filter(\.chosen), by: \.collection) {
            var found: [String: Int64] = [:]
            // One probe of changes_by_record per id, newest first. `DISTINCT ON … = ANY(…)` let
            // PostgreSQL read the whole collection's changes instead: 54 ms a batch of 500 ids,
            // 110 s of a million-entry import.
            for try await (id, kind, version) in try await connection.query("""
                SELECT u.id, c.kind, c.version FROM unnest(\(inserts.map(\.id))::text[]) AS u(id)
                CROSS JOIN LATERAL (SELECT kind, version FROM changes WHERE collection = \(collection) AND record_id = u.id
                                    ORDER BY sequence DESC LIMIT 1) AS c
                """, logger: logger).decode((String, String, Int64).self) where kind == Change.Kind.delete.rawValue {
                found[id] = version
            }
            tombstones[collection] = found
        }
        // This batch's earlier changes by record, for chosen ids only (made ids are new).
        var pending: [String: Change] = [:]
        if run.contains(where: \.chosen) {
            for change in log { pending[change.collection + "\u{0}" + change.recordID] = change }
        }
        let now = Date(timeIntervalSince1970: stamp)
        var records: [StorageAPI.Record] = []
        for insert in run {
            var version: Int64 = 1
            if insert.chosen {
                if let earlier = pending[insert.collection + "\u{0}" + insert.id] {
                    guard earlier.kind == .delete else { throw RecordRules.duplicateID(collection: insert.collection, id: insert.id) }
                    version = earlier.version + 1
                } else {
                    version = (tombstones[insert.collection]?[insert.id] ?? 0) + 1
                }
            }
            let record = StorageAPI.Record(collection: insert.collection, id: insert.id, owner: insert.owner, version: version,
                                           createdAt: now, updatedAt: now, data: insert.data)
            let change = Change(sequence: 0, owner: insert.owner, collection: insert.collection, recordID: insert.id, kind: .insert,
                                version: version, scope: try known.logs[insert.collection]?.scope(id: insert.id, insert.data))
            if insert.chosen { pending[insert.collection + "\u{0}" + insert.id] = change }
            log.append(change)
            written[insert.slot] = record
            records.append(record)
        }
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

    /// Takes the next sequences (in commit order: the counter row stays locked until this
    /// transaction ends) and writes the batch's changes under them, in one statement: the lock is
    /// held for that statement and the COMMIT, not for a round trip more.
    private func appendLog(_ log: [Change], connection: PostgresConnection, stamp: Double) async throws -> [LogMove] {
        guard !log.isEmpty else { return [] }
        // Columns as arrays (an import's 500 changes are eight binds, not 4,000).
        var statement = Statement()
        let count = statement.bind(Int64(log.count))
        let columns = [statement.bindArray(log.map(\.owner)), statement.bindArray(log.map(\.collection)),
                       statement.bindArray(log.map(\.recordID)), statement.bindArray(log.map(\.kind.rawValue)),
                       statement.bindArray(log.map { String($0.version) })]
        // A change without a scope: its flag is false (arrays of text hold no NULL here).
        let scopes = statement.bindArray(log.map { $0.scope ?? "" })
        let scoped = statement.bindArray(log.map { $0.scope == nil ? "f" : "t" })
        let at = statement.bind(stamp)
        statement.append("""
            WITH taken AS (UPDATE log_meta SET value = value + \(count) WHERE key = 'sequence' RETURNING value)
            INSERT INTO changes (sequence, owner, collection, record_id, kind, version, scope, at)
            SELECT taken.value - \(count) + n, o, c, r, k, v::bigint, CASE WHEN h::boolean THEN s END, \(at)
            FROM taken, unnest(\(columns.joined(separator: ", ")), \(scopes), \(scoped)) WITH ORDINALITY AS u(o, c, r, k, v, s, h, n)
            RETURNING sequence
            """)
        var sequences: [Int64] = []
        for try await sequence in try await connection.query(statement.query, logger: logger).decode(Int64.self) {
            sequences.append(sequence)
        }
        guard sequences.count == log.count, let last = sequences.max() else {
            throw StorageError(.internal, "The change log's counter (log_meta 'sequence') is missing; the database was not migrated by this version.")
        }
        var numbered: [Change] = []
        for (offset, change) in log.enumerated() {
            var change = change
            change.sequence = last - Int64(log.count) + 1 + Int64(offset)
            numbered.append(change)
        }
        return LogMove.of(numbered)
    }

    /// A replace or a delete (inserts go through ``insertAll``).
    private func apply(_ operation: WriteOperation, connection: PostgresConnection, stamp: Double, spec: LogSpec?,
                       log: inout [Change]) async throws -> StorageAPI.Record? {
        let now = Date(timeIntervalSince1970: stamp)
        switch operation {
        case .insert:
            // Never reached: inserts are written a run at a time by insertAll.
            throw StorageError(.internal, "An insert reached the single-record path.")
        case .replace(let collection, let id, let owner, let data, let expectedVersion):
            let existing = try await existingRecord(connection, collection: collection, id: id, owner: owner, expectedVersion: expectedVersion)
            if spec?.history == true { try await keep(existing, connection: connection, at: stamp) }
            let version = existing.version + 1
            let text = String(decoding: data.bytes, as: UTF8.self)
            try await connection.query("""
                UPDATE records SET version = \(version), updated_at = \(stamp), data = \(text)::jsonb WHERE collection = \(collection) AND id = \(id)
                """, logger: logger)
            log.append(Change(sequence: 0, owner: owner, collection: collection, recordID: id, kind: .replace, version: version,
                              scope: try spec?.scope(id: id, data)))
            return StorageAPI.Record(collection: collection, id: id, owner: owner, version: version, createdAt: existing.createdAt,
                                     updatedAt: now, data: data)
        case .delete(let collection, let id, let owner, let expectedVersion):
            let existing = try await existingRecord(connection, collection: collection, id: id, owner: owner, expectedVersion: expectedVersion)
            if spec?.forgetsOnDelete == true {
                try await connection.query("DELETE FROM versions WHERE collection = \(collection) AND id = \(id)", logger: logger)
            } else if spec?.history == true {
                try await keep(existing, connection: connection, at: stamp)
            }
            try await connection.query("DELETE FROM records WHERE collection = \(collection) AND id = \(id)", logger: logger)
            log.append(Change(sequence: 0, owner: owner, collection: collection, recordID: id, kind: .delete, version: existing.version + 1,
                              scope: try spec?.scope(id: id, existing.data)))
            return nil
        }
    }

    /// Keeps a record's version as it was before a replace or delete.
    private func keep(_ record: StorageAPI.Record, connection: PostgresConnection, at stamp: Double) async throws {
        let text = String(decoding: record.data.bytes, as: UTF8.self)
        try await connection.query("""
            INSERT INTO versions (collection, id, owner, version, created_at, updated_at, data, superseded_at)
            VALUES (\(record.collection), \(record.id), \(record.owner), \(record.version), \(record.createdAt.timeIntervalSince1970),
                    \(record.updatedAt.timeIntervalSince1970), \(text)::jsonb, \(stamp))
            ON CONFLICT (collection, id, version) DO UPDATE SET data = excluded.data, superseded_at = excluded.superseded_at
            """, logger: logger)
    }

    /// The record a replace or delete is about, locked until the batch ends; checks its owner and version.
    private func existingRecord(_ connection: PostgresConnection, collection: String, id: String, owner: String,
                                expectedVersion: Int64?) async throws -> StorageAPI.Record {
        guard let record = try await Self.record(connection, collection: collection, id: id, lock: true, logger: logger),
              record.owner == owner else {
            throw RecordRules.notFound(collection: collection, id: id)
        }
        try RecordRules.check(expectedVersion: expectedVersion, actual: record.version, id: id)
        return record
    }

    private static func record(_ connection: PostgresConnection, collection: String, id: String, lock: Bool,
                               logger: Logger) async throws -> StorageAPI.Record? {
        let sql = "SELECT \(PostgresSQL.recordColumns) FROM records WHERE collection = $1 AND id = $2" + (lock ? " FOR UPDATE" : "")
        guard let row = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds(collection, id)), logger: logger).collect().first else {
            return nil
        }
        return try record(row)
    }

    /// Checks the blob fields an operation writes, and returns the blobs the record held before it.
    private func blobChange(_ operation: WriteOperation, fields: [String], connection: PostgresConnection) async throws -> Set<String> {
        switch operation {
        case .insert(_, _, _, let data), .replace(_, _, _, let data, _):
            _ = try BlobFieldRules.blobs(in: try data.parsed(), fields: fields, collection: operation.collection)
        case .delete: break
        }
        guard let id = operation.id,
              let row = try await connection.query("""
                  SELECT data::text FROM records WHERE collection = \(operation.collection) AND id = \(id) AND owner = \(operation.owner)
                  """, logger: logger).collect().first else { return [] }
        let text = try row.decode(String.self)
        return try BlobFieldRules.blobs(in: try JSONDocument(trustedBytes: Data(text.utf8)).parsed(), fields: fields, collection: operation.collection)
    }

    public func changes(_ query: ChangeQuery) async throws(StorageError) -> ChangePage {
        try query.validate()
        var statement = Statement()
        var conditions = ["owner = \(statement.bind(query.owner))"]
        for shared in query.shared {
            conditions.append("(owner = \(statement.bind(shared.owner)) AND scope = \(statement.bind(shared.scope)))")
        }
        let after = statement.bind(query.after)
        let limit = statement.bind(Int64(query.limit + 1))
        statement.append("""
            SELECT sequence, owner, collection, record_id, kind, version, scope FROM changes
            WHERE (\(conditions.joined(separator: " OR "))) AND sequence > \(after) ORDER BY sequence LIMIT \(limit)
            """)
        let sql = statement.query
        let found = try await run { connection async throws -> ([Change], Int64) in
            var changes: [Change] = []
            for try await (sequence, owner, collection, recordID, kind, version, scope) in try await connection.query(sql, logger: self.logger)
                .decode((Int64, String, String, String, String, Int64, String?).self) {
                changes.append(Change(sequence: sequence, owner: owner, collection: collection, recordID: recordID,
                                      kind: Change.Kind(rawValue: kind) ?? .replace, version: version, scope: scope))
            }
            var horizon: Int64 = 0
            for try await value in try await connection.query("SELECT value FROM log_meta WHERE key = 'horizon'", logger: self.logger).decode(Int64.self) {
                horizon = value
            }
            return (changes, horizon)
        }
        return ChangePage(changes: Array(found.0.prefix(query.limit)), hasMore: found.0.count > query.limit, horizon: found.1)
    }

    public func history(collection: String, id: String, owner: String) async throws(StorageError) -> [StorageAPI.Record] {
        guard StorageNames.isValidCollection(collection), StorageNames.isValidID(id) else { return [] }
        return try await records(PostgresQuery(unsafeSQL: """
            SELECT collection, id, owner, version, created_at, updated_at, data::text FROM versions
            WHERE collection = $1 AND id = $2 AND owner = $3 ORDER BY version DESC
            """, binds: Self.binds(collection, id, owner)))
    }

    public func compact(before cutoff: Date) async throws(StorageError) -> Compaction {
        let stamp = cutoff.timeIntervalSince1970
        return try await transaction { connection in
            // One compaction at a time across nodes; writers are not held up.
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresMigrations.lockKey + 1))", logger: self.logger)
            let superseded = try await Self.affected(connection, """
                DELETE FROM changes c WHERE EXISTS (
                    SELECT 1 FROM changes later WHERE later.collection = c.collection AND later.record_id = c.record_id AND later.sequence > c.sequence)
                """, logger: self.logger)
            let dropped = try await connection.query("SELECT MAX(sequence) FROM changes WHERE kind = 'delete' AND at < \(stamp)", logger: self.logger)
                .collect().first.flatMap { try $0.decode(Int64?.self) }
            let tombstones = try await Self.affected(connection, "DELETE FROM changes WHERE kind = 'delete' AND at < \(stamp)", logger: self.logger)
            let versions = try await Self.affected(connection, "DELETE FROM versions WHERE superseded_at < \(stamp)", logger: self.logger)
            if let dropped {
                try await connection.query("UPDATE log_meta SET value = GREATEST(value, \(dropped)) WHERE key = 'horizon'", logger: self.logger)
            }
            let horizon = try await connection.query("SELECT value FROM log_meta WHERE key = 'horizon'", logger: self.logger)
                .collect().first.map { try $0.decode(Int64.self) } ?? 0
            return Compaction(supersededChanges: superseded, tombstones: tombstones, versions: versions, horizon: horizon)
        }
    }

    /// Runs a DELETE and answers how many rows it removed.
    private static func affected(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Int {
        var count = 0
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: query.sql + " RETURNING 1", binds: query.binds), logger: logger) {
            count += 1
        }
        return count
    }

    // MARK: Search

    public func search(_ query: SearchQuery) async throws(StorageError) -> SearchResult {
        let spec = collections.withLock { $0.search[query.collection] }
        try query.validate(against: spec)
        guard let spec else { return SearchResult(hits: []) }
        let terms = SearchText.terms(query.text)
        let logger = self.logger
        guard !terms.isEmpty else {
            let found = try await run { connection in try await Self.keyed(connection, PostgresSearch.browse(query), logger: logger) }
            let page = found.prefix(query.limit)
            let next = found.count > query.limit ? page.last.map { SearchCursor(key: $0.key, id: $0.record.id) } : nil
            return SearchResult(hits: page.map { SearchHit(record: $0.record, tier: .listed, highlights: []) }, next: next)
        }
        // The steps of ``PostgresSearch``, on one connection; the stored record decides each tier.
        let found = try await run { connection in
            var hits: [(tier: SearchTier, record: StorageAPI.Record, data: JSONValue)] = []
            var seen: Set<String> = []
            func take(_ rows: [(record: StorageAPI.Record, key: String)]) {
                for (record, _) in rows where hits.count < query.limit && seen.insert(record.id).inserted {
                    guard let data = try? record.data.parsed(), let tier = SearchRules.tier(spec, data, terms) else { continue }
                    hits.append((tier, record, data))
                }
            }
            take(try await Self.keyed(connection, PostgresSearch.keyMatches(query, terms: terms), logger: logger))
            for keyOnly in [true, false] where hits.count < query.limit {
                // Enough to fill the page even if every record found before is among them.
                let wanted = query.limit + seen.count
                take(try await Self.keyed(connection, PostgresSearch.wordMatches(query, terms: terms, keyOnly: keyOnly, wanted: wanted), logger: logger))
            }
            return hits
        }
        // Ranked by tier; within a tier, the order each step found them in.
        let ranked = found.enumerated().sorted { a, b in
            a.element.tier != b.element.tier ? a.element.tier < b.element.tier : a.offset < b.offset
        }
        return SearchResult(hits: ranked.map { _, hit in
            SearchHit(record: hit.record, tier: hit.tier, highlights: SearchRules.highlights(spec, hit.data, terms))
        })
    }

    /// PostgreSQL's plan for a statement this store would run, after `ANALYZE` (for tests that pin
    /// which index answers a query).
    func plan(_ statement: Statement) async throws(StorageError) -> String {
        let logger = self.logger
        return try await run { connection in
            try await connection.query("ANALYZE", logger: logger)
            var lines: [String] = []
            let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + statement.query.sql, binds: statement.query.binds)
            for try await line in try await connection.query(explain, logger: logger).decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
    }

    /// The records a search statement selects, each with its folded key.
    private static func keyed(_ connection: PostgresConnection, _ statement: Statement,
                              logger: Logger) async throws -> [(record: StorageAPI.Record, key: String)] {
        var rows: [(record: StorageAPI.Record, key: String)] = []
        for try await (collection, id, owner, version, created, updated, data, key) in try await connection
            .query(statement.query, logger: logger).decode((String, String, String, Int64, Double, Double, String, String).self) {
            rows.append((record((collection, id, owner, version, created, updated, data)), key))
        }
        return rows
    }

    // MARK: Spatial

    public func spatialQuery(_ query: SpatialQuery) async throws(StorageError) -> SpatialResult {
        let area = try query.validatedArea()
        guard collections.withLock({ $0.spatial[query.collection] }) != nil else {
            throw StorageError.invalid("'\(query.collection)' has no spatial index; declare one with the collection.", field: "collection")
        }
        let statement = PostgresSpatial.select(query, area: area)
        let candidates = try await run { connection in
            var found: [(StorageAPI.Record, GeoPoint)] = []
            for try await (collection, id, owner, version, created, updated, data, latitude, longitude) in try await connection
                .query(statement.query, logger: self.logger).decode((String, String, String, Int64, Double, Double, String, Double, Double).self) {
                found.append((Self.record((collection, id, owner, version, created, updated, data)), GeoPoint(latitude: latitude, longitude: longitude)))
            }
            return found
        }
        return PostgresSpatial.answer(candidates, area: area, limit: query.limit)
    }

    // MARK: Blobs and usage

    public func heldBlobs(among blobs: Set<String>) async throws(StorageError) -> Set<String> {
        let fields = collections.withLock { $0.blobFields }
        return try await run { connection in
            try await Self.held(among: blobs, fields: fields, connection: connection, logger: self.logger)
        }
    }

    private static func held(among blobs: Set<String>, fields: [String: [String]], connection: PostgresConnection,
                             logger: Logger) async throws -> Set<String> {
        var held: Set<String> = []
        for (collection, names) in fields.sorted(by: { $0.key < $1.key }) {
            for field in names {
                // The collection and field are validated names, written as the blob index's literals;
                // the hashes still unaccounted for go in as one array, each looked up in the blob index
                // until its first holder (a blob a hundred thousand photos share is one probe).
                let pending = blobs.subtracting(held).sorted()
                guard !pending.isEmpty else { return held }
                let expression = PostgresSQL.expression(field)
                let sql = """
                    SELECT b FROM unnest($1::text[]) AS b WHERE EXISTS (
                        SELECT 1 FROM records WHERE collection = \(PostgresSQL.literal(collection)) AND \(expression) = to_jsonb(b))
                    """
                var binds = PostgresBindings()
                binds.append(pending)
                for try await blob in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(String.self) {
                    held.insert(blob)
                }
            }
        }
        return held
    }

    public func usage(owner: String) async throws(StorageError) -> (recordBytes: Int, blobs: Set<String>) {
        let fields = collections.withLock { $0.blobFields }
        return try await run { connection in
            var bytes = 0
            for try await value in try await connection.query("SELECT COALESCE(SUM(octet_length(data::text)), 0)::bigint FROM records WHERE owner = \(owner)",
                                                               logger: self.logger).decode(Int64.self) {
                bytes = Int(value)
            }
            var blobs: Set<String> = []
            for (collection, names) in fields {
                for field in names {
                    let sql = "SELECT DISTINCT \(PostgresSQL.expression(field)) #>> '{}' FROM records WHERE collection = $1 AND owner = $2"
                    for try await sha in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.binds(collection, owner)),
                                                                     logger: self.logger).decode(String?.self) {
                        if let sha { blobs.insert(sha) }
                    }
                }
            }
            return (bytes, blobs)
        }
    }

    // MARK: Running

    private static func binds(_ values: String...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }

    private static func record(_ row: PostgresRow) throws -> StorageAPI.Record {
        record(try row.decode((String, String, String, Int64, Double, Double, String).self))
    }

    /// A record from `PostgresSQL.recordColumns`, in their order.
    static func record(_ columns: (String, String, String, Int64, Double, Double, String)) -> StorageAPI.Record {
        let (collection, id, owner, version, created, updated, data) = columns
        return StorageAPI.Record(collection: collection, id: id, owner: owner, version: version,
                                 createdAt: Date(timeIntervalSince1970: created), updatedAt: Date(timeIntervalSince1970: updated),
                                 data: JSONDocument(trustedBytes: Data(data.utf8)))
    }

    private func records(_ query: PostgresQuery) async throws(StorageError) -> [StorageAPI.Record] {
        try await run { connection in
            var found: [StorageAPI.Record] = []
            for try await row in try await connection.query(query, logger: self.logger) { found.append(try Self.record(row)) }
            return found
        }
    }

    /// Runs `body` on a pooled connection, mapping what PostgreSQL says to storage errors.
    private func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StorageError) -> T {
        do {
            return try await leasing(body)
        } catch {
            throw map(error, uniqueViolation: nil)
        }
    }

    /// How long a request waits for a connection before it is told the database cannot be reached
    /// (the pool keeps trying to connect meanwhile; a request never hangs on an outage).
    static let leaseTimeout: Duration = .seconds(5)

    /// `body` on a connection from the pool, or ``unreachable`` when none comes within
    /// ``leaseTimeout``. Only the wait is timed: once leased, a statement runs to its end.
    /// Until the store is prepared, only ``prepare()`` (`gated: false`) gets one.
    private func leasing<T: Sendable>(gated: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        if gated, readiness.withLock({ if case .ready = $0 { false } else { true } }) { throw Self.unreachable }
        let leased = LeaseFlag()
        let client = self.client
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    leased.set()
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: Self.leaseTimeout)
                if !leased.isSet { throw Self.unreachable }
                return nil
            }
            while let value = try await group.next() {
                if let value {
                    group.cancelAll()
                    return value
                }
            }
            throw Self.unreachable
        }
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws. A unique
    /// violation is a conflict naming the declared index, unless `onUniqueViolation` says otherwise.
    private func transaction<T: Sendable>(gated: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T,
                                          onUniqueViolation: ((String) -> StorageError?)? = nil) async throws(StorageError) -> T {
        let logger = self.logger
        do {
            return try await leasing(gated: gated) { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let value = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch {
            throw map(error, uniqueViolation: onUniqueViolation)
        }
    }

    /// What PostgreSQL said, as a storage error; anything unexpected is logged here with the
    /// server's own words (never the values bound) and reaches the client as an internal error.
    private func map(_ error: any Error, uniqueViolation: ((String) -> StorageError?)?) -> StorageError {
        let mapped = Self.map(error, uniqueViolation: uniqueViolation, names: collections.withLock { $0.indexNames })
        if mapped.code == .internal || mapped.code == .unavailable, let error = error as? PSQLError {
            logger.error("storage: PostgreSQL failed a statement",
                         metadata: ["sqlState": "\(error.serverInfo?[.sqlState] ?? "\(error.code)")", "error": "\(error.serverInfo?[.message] ?? "")"])
        }
        return mapped
    }

    /// The database is down or restarting: 503 with Retry-After; the pool reconnects by itself.
    static let unreachable = StorageError(.unavailable, "The database cannot be reached just now; try again in a few seconds.",
                                          details: ["retryAfter": "2"])

    /// A deadlock or serialization failure: the transaction can simply run again.
    static let busy = StorageError(.unavailable, "The database was busy; try again.", details: ["reason": "busy", "retryAfter": "1"])

    static func map(_ error: any Error, uniqueViolation: ((String) -> StorageError?)?, names: [String: String] = [:]) -> StorageError {
        if let error = error as? StorageError { return error }
        if let error = error as? BusError { return StorageError(error.code, error.message, details: error.details) }
        guard let error = error as? PSQLError else { return StorageError(.internal, "Unexpected storage error.") }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let constraint = error.serverInfo?[.constraintName] ?? ""
            if state == "23505" {
                if let special = uniqueViolation?(constraint) { return special }
                return StorageError(.conflict, "Another item already has the same unique value.",
                                    details: ["index": names[constraint] ?? constraint])
            }
            if state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03" { return unreachable }
            if state == "53100" { return .unavailable("The database's disk is full; free space and try again.") }
            if state == "40001" || state == "40P01" { return busy }
            return StorageError(.internal, "Database error \(state).")
        default:
            return isUnreachable(error.code) ? unreachable : StorageError(.internal, "Database error.")
        }
    }

    /// The connection went, whichever side noticed first: the server closed it, the pool did, or
    /// the client's end found it closed (`clientClosedConnection`: a postmaster killed mid-query).
    /// All are the database being unreachable for now (503), never a bug (500).
    static func isUnreachable(_ code: PSQLError.Code) -> Bool {
        [.connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown].contains(code)
    }
}

extension PostgresRecordStore.Collections {
    mutating func remember(_ schema: CollectionSchema) {
        if !schema.blobFields.isEmpty { blobFields[schema.name] = schema.blobFields }
        logs[schema.name] = LogSpec(schema)
        spatial[schema.name] = schema.spatial
        search[schema.name] = schema.search
        for index in schema.indexes where index.unique {
            indexNames[PostgresSQL.indexName(collection: schema.name, index: index.name)] = index.name
        }
    }
}

/// Whether a request got its connection (shared by the request and its timer).
final class LeaseFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
