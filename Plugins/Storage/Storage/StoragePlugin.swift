public import AppConfig
public import Bus
public import PluginKit
public import ServiceLifecycle
public import StorageAPI
import Logging
import StoragePostgres
import StorageSQLite
import Synchronization
import Foundation

/// The `storage` plugin: answers the storage requests from the configured backend.
///
/// ```yaml
/// storage: { backend: sqlite, path: ./data/napkin-notes.sqlite, blobs: ./data/blobs }
/// ```
public struct StoragePlugin: Plugin {
    public struct Config: Sendable {
        public enum Backend: String, Sendable { case sqlite, memory, postgres }
        public var backend: Backend
        public var path: String
        /// The PostgreSQL backend's database (`url`), read and checked when the config is.
        public var postgres: PostgresRecordStore.Settings?
        public var blobs: String
        public var durability: SQLiteRecordStore.Durability
        public var maxBlobBytes: Int
        public var blobGrace: TimeInterval
        public var blobSweep: Duration
        /// How long tombstones and earlier versions are kept.
        public var retention: TimeInterval
        /// Whether earlier versions are kept for collections that ask for them.
        public var history: Bool
        public var compactEvery: Duration
        /// Scheduled backups (`backup:`), nil when the YAML has none.
        public var backup: BackupSchedule?
        /// PostgreSQL: migrate the schema even without a `quire backup` from the last day.
        public var migrateWithoutBackup: Bool = false
        /// The server's key files a backup seals (the host's ``PluginContext/keyFiles``; the tools' `AppConfig.keyFiles`).
        public var keyFiles: [KeyFile] = []
    }

    public static let descriptor = PluginDescriptor(
        id: "storage",
        summary: "Records (collections, indexes, queries, atomic batches, change log) and content-addressed blobs",
        settings: [
            SettingDescription("backend", "sqlite | postgres | memory", default: "sqlite",
                               "Where records live: an embedded SQLite file, a PostgreSQL server several nodes share, or memory (lost at exit)"),
            SettingDescription("path", "path", default: "./data/<app>.sqlite", "The SQLite database file"),
            SettingDescription("url", "postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=disable|prefer|require&search_path=SCHEMA]",
                               "The PostgreSQL database (backend: postgres); use ${QUIRE_DATABASE_URL}"),
            SettingDescription("max_connections", "int 1...200", default: "20", "The PostgreSQL connections this node keeps at most"),
            SettingDescription("blobs", "path", default: "./data/blobs", "Directory of content-addressed blobs"),
            SettingDescription("durability", "normal | full", default: "normal", "normal survives a process crash; full also a power cut, at an fsync per commit"),
            SettingDescription("max_blob_bytes", "int 1...1073741824", default: "67108864", "Largest blob accepted"),
            SettingDescription("blob_grace_seconds", "int 0...86400", default: "600",
                               "A blob no record holds is deleted once it has not been uploaded again for this long (0: at once; for tests)"),
            SettingDescription("blob_sweep_minutes", "int 1...10080", default: "60", "How often unused blobs left by failed uploads are looked for"),
            SettingDescription("retention_days", "int 0...3650", default: "90",
                               "How long deletes stay in the change log and earlier versions in history; a device away longer resyncs "
                                   + "(0: until the next compaction; for tests)"),
            SettingDescription("compact_seconds", "int 1...604800", default: "3600", "How often the change log is compacted"),
            SettingDescription("backup", "{every: DURATION, keep: {last, hourly, daily, weekly, monthly}, to: [FOLDER | rclone:REMOTE:PATH], rclone_config: FILE, "
                                   + "passphrase: STRING | passphrase_file: FILE}",
                               "Backups taken while the server runs, every `every` (e.g. 24h), pruned by `keep` (default daily 7, weekly 4, monthly 6); "
                                   + "with a passphrase (12+ characters; use ${QUIRE_BACKUP_PASSPHRASE} or a file) they also hold the server's keys, sealed; "
                                   + "see docs/operations.md, \"Backups and upgrades\""),
            SettingDescription("migrate_without_backup", "bool", default: "false",
                               "PostgreSQL: let a newer Quire migrate the schema without a `quire backup` from the last 24 hours"),
            SettingDescription("history", "bool", default: "true",
                               "Keep earlier versions (note history, merging edits made offline); false: an edit on an older version is 412"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        let backend = Config.Backend(rawValue: section.choice("backend", ["sqlite", "postgres", "memory"], default: "sqlite")) ?? .sqlite
        var postgres: PostgresRecordStore.Settings?
        let connections = section.int("max_connections", default: 20, in: 1...200)
        let url = section.string("url") ?? ""
        if backend == .postgres {
            if url.isEmpty {
                section.report("url", "backend postgres needs the database's URL: url: ${QUIRE_DATABASE_URL} "
                               + "(postgres://USER:PASSWORD@HOST:PORT/DATABASE)")
            } else {
                do {
                    postgres = try PostgresRecordStore.Settings(url: url, maxConnections: connections)
                } catch {
                    section.report("url", error.message)
                }
            }
        }
        let sqlitePath = section.string("path", default: "") ?? ""
        let blobs = section.string("blobs", default: "./data/blobs") ?? "./data/blobs"
        let backup = section.contains("backup") ? backupSchedule(section.section("backup"), blobs: blobs, backend: backend) : nil
        return Config(
            backend: backend,
            path: sqlitePath,
            postgres: postgres,
            blobs: blobs,
            durability: SQLiteRecordStore.Durability(rawValue: section.choice("durability", ["normal", "full"], default: "normal")) ?? .normal,
            maxBlobBytes: section.int("max_blob_bytes", default: 64 << 20, in: 1...(1 << 30)),
            blobGrace: TimeInterval(section.int("blob_grace_seconds", default: 600, in: 0...86_400)),
            blobSweep: .seconds(60 * section.int("blob_sweep_minutes", default: 60, in: 1...10_080)),
            retention: TimeInterval(86_400 * section.int("retention_days", default: 90, in: 0...3650)),
            history: section.bool("history", default: true),
            compactEvery: .seconds(section.int("compact_seconds", default: 3600, in: 1...604_800)),
            backup: backup,
            migrateWithoutBackup: section.bool("migrate_without_backup", default: false))
    }

    /// Reads `backup: {every, keep, to, rclone_config}`.
    static func backupSchedule(_ section: ConfigSection, blobs: String, backend: Config.Backend) -> BackupSchedule {
        let every = section.duration("every", default: .seconds(86_400), in: .seconds(1) ... .seconds(366 * 86_400))
        let keepSection = section.section("keep")
        let defaults = BackupRetention()
        let given = !keepSection.keys.isEmpty
        let keep = BackupRetention(last: keepSection.int("last", default: 0, in: 0...10_000),
                                   hourly: keepSection.int("hourly", default: 0, in: 0...10_000),
                                   daily: keepSection.int("daily", default: given ? 0 : defaults.daily, in: 0...10_000),
                                   weekly: keepSection.int("weekly", default: given ? 0 : defaults.weekly, in: 0...10_000),
                                   monthly: keepSection.int("monthly", default: given ? 0 : defaults.monthly, in: 0...10_000))
        let destinations = section.stringList("to", default: [])
        if destinations.isEmpty {
            section.report("to", "a backup needs somewhere to go: to: [./backups] (a folder) or to: [\"rclone:REMOTE:PATH\"]")
        }
        for destination in destinations where destination.hasPrefix("rclone:") && !destination.dropFirst(7).contains(":") {
            section.report("to", "'\(destination)' names no rclone remote: write rclone:REMOTE:PATH (REMOTE as in the rclone config)")
        }
        let rcloneConfig = section.string("rclone_config")
        if rcloneConfig == nil, destinations.contains(where: { $0.hasPrefix("rclone:") }) {
            section.report("rclone_config", "an rclone destination needs the rclone config file: rclone_config: ./rclone.conf")
        }
        if backend == .memory { section.report(nil, "backend memory keeps nothing to back up; remove backup: or use sqlite or postgres") }
        // Beside the blob folder. (NSString's path methods crash on some strings in this Foundation,
        // an empty one among them: `quire plugins` reads every section with placeholder values.)
        let staging = blobs.isEmpty ? "backup-staging"
            : URL(fileURLWithPath: blobs).deletingLastPathComponent().appendingPathComponent("backup-staging").path
        var schedule = BackupSchedule(every: every, keep: keep, destinations: destinations, rcloneConfig: rcloneConfig, staging: staging)
        let passphrase = section.string("passphrase").flatMap { $0.isEmpty ? nil : $0 }
        let passphraseFile = section.string("passphrase_file").flatMap { $0.isEmpty ? nil : $0 }
        if passphrase != nil, passphraseFile != nil {
            section.report("passphrase", "give passphrase or passphrase_file, not both")
        } else if let passphrase, passphrase.count < 12 {
            section.report("passphrase", "is shorter than 12 characters; use a long random one (openssl rand -base64 32)")
        }
        schedule.passphrase = passphrase
        schedule.passphraseFile = passphraseFile
        return schedule
    }

    public let records: any RecordStore & BlobHolds & RecordSearching & ChangeLogCompacting
    public let blobs: any BlobCollecting
    private let closer: StorageService
    /// What the backend runs while the app does (SQLite: its checkpoints).
    private let backendServices: [any Service]
    /// Writes what the backend holds in memory or in a log to durable files now (``FlushStorage``).
    private let flush: @Sendable () async -> Void
    private let grace: TimeInterval
    private let sweepInterval: Duration
    private let retention: TimeInterval
    private let compactEvery: Duration
    private let keepHistory: Bool
    private let logger: Logger
    /// Set once the plugin is on a bus (deleted blobs are announced there).
    private let collectorBox = CollectorBox()
    /// The scheduled backups (`backup:`), nil when there are none.
    public let backups: BackupScheduler?
    /// Whether this process takes the scheduled backups: `quire serve` does (``runScheduledBackups()``);
    /// a tool that opens the same app (`quire export`, workers) does not.
    private static let scheduledBackups = Atomic(false)

    /// Called by `quire serve` before it builds the app: its storage plugin runs `backup:`.
    public static func runScheduledBackups() { scheduledBackups.store(true, ordering: .relaxed) }
    /// `sqlite`, `postgres` or `memory`; the SQLite file and the blob folder (for ``GetStorageStatus``).
    private let backendName: String
    private let databaseFile: String?
    private let blobFolder: String?

    public init(config: Config, context: PluginContext) async throws {
        let backend: OpenedBackend
        do {
            backend = try await StorageBackends.open(config, appName: context.appName, logger: context.logger)
        } catch let error as StorageError {
            // A refusal at start (a migration without a recent backup, a newer schema, a file that
            // cannot be opened) is one line, `quire: storage: <the sentence>`, and exit 1.
            throw PluginSetupError("storage: \(error.message)")
        }
        records = backend.records
        blobs = backend.blobs
        closer = StorageService(logger: context.logger, close: backend.close)
        backendServices = backend.services
        flush = backend.flush
        grace = config.blobGrace
        sweepInterval = config.blobSweep
        retention = config.retention
        compactEvery = config.compactEvery
        keepHistory = config.history
        logger = context.logger
        let collectors = collectorBox
        var withKeys = config
        withKeys.keyFiles = context.keyFiles
        backups = config.backup.map { [withKeys] in
            BackupScheduler(schedule: $0, storage: withKeys, appName: context.appName, logger: context.logger, collectors: collectors,
                            clock: { [clock = context.clock] in clock.now() })
        }
        backendName = config.backend.rawValue
        databaseFile = config.backend == .sqlite ? (config.path.isEmpty ? "./data/\(context.appName).sqlite" : config.path) : nil
        blobFolder = config.backend == .memory ? nil : config.blobs
    }

    /// A plugin over given stores (tests, tools).
    public init(records: any RecordStore & BlobHolds & RecordSearching & ChangeLogCompacting, blobs: any BlobCollecting, logger: Logger,
                blobGrace: TimeInterval = 600, blobSweep: Duration = .seconds(3600)) {
        self.records = records
        self.blobs = blobs
        self.closer = StorageService(logger: logger) {}
        self.backendServices = []
        self.flush = {}
        self.grace = blobGrace
        self.sweepInterval = blobSweep
        self.retention = 90 * 86_400
        self.compactEvery = .seconds(3600)
        self.keepHistory = true
        self.logger = logger
        self.backups = nil
        self.backendName = "memory"
        self.databaseFile = nil
        self.blobFolder = nil
    }

    public var services: [any Service] {
        // The closer first: services stop in reverse order, so the others end before the database closes.
        var services: [any Service] = [closer] + backendServices
        if let collector = collectorBox.collector { services.append(BlobSweepService(collector: collector, interval: sweepInterval)) }
        services.append(CompactionService(store: records, retention: retention, interval: compactEvery, logger: logger))
        if let backups, Self.scheduledBackups.load(ordering: .relaxed) { services.append(BackupService(scheduler: backups, clock: backups.clock)) }
        return services
    }

    public var features: [String] { ["records", "blobs", "changes"] }

    public func register(on bus: any MessageBus) async throws {
        let collector = BlobCollector(holds: records, blobs: blobs, bus: bus, grace: grace, logger: logger)
        collectorBox.set(collector)
        try Self.register(records: records, blobs: blobs, collector: collector, keepHistory: keepHistory, on: bus)
        let flush = self.flush
        try bus.handle(FlushStorage.self) { _, _ in
            await flush()
            return Empty()
        }
        let backups = self.backups
        try bus.handle(GetBackupDetail.self) { _, _ in backups?.status ?? BackupStatus(enabled: false) }
        try bus.handle(StartBackup.self) { request, _ in
            guard let backups else {
                throw BusError.invalid("Backups are not configured on this server: add storage.backup to the app's YAML (see docs/operations.md, \"Backups and upgrades\"), "
                                       + "or run quire backup --config FILE OUT on the server.")
            }
            return try backups.start(requestedBy: request.requestedBy)
        }
        try bus.handle(ListRestorePoints.self) { _, _ in
            guard let backups else { return RestorePoints(enabled: false) }
            return await BackupScheduler.offThread { backups.restorePoints() }
        }
        let status = StorageStatus(records: records, blobs: blobs, backend: backendName, databaseFile: databaseFile, blobFolder: blobFolder)
        try bus.handle(GetStorageStatus.self) { _, _ in await status.measure() }
    }

    /// Answers every storage request on `bus` from the given stores; with a collector, blobs a
    /// write releases are deleted before the write is answered.
    public static func register(records: any RecordStore, blobs: any BlobStore, collector: BlobCollector? = nil,
                                keepHistory: Bool = true, on bus: any MessageBus) throws(BusError) {
        let declared = DeclaredCollections()
        try bus.handle(DeclareCollection.self) { request, _ in
            var schema = request.schema
            if !keepHistory { schema.history = false }
            try await records.declare(schema)
            declared.insert(schema.name)
            return Empty()
        }
        try StorageAdmin.register(records: records, declared: declared, on: bus)
        try bus.handle(GetRecord.self) { request, _ in
            .init(record: try await records.get(collection: request.collection, id: request.id, owner: request.owner))
        }
        try bus.handle(QueryRecords.self) { request, _ in try await records.query(request.query) }
        try bus.handle(QueryRecordsJSON.self) { request, _ in
            if let fast = records as? any RecordJSONQuerying { return try await fast.queryJSON(request.query) }
            return RecordJSON.page(try await records.query(request.query))
        }
        try bus.handle(WriteRecords.self) { request, _ in
            let result = try await records.write(request.batch)
            if let collector, !result.releasedBlobs.isEmpty { await collector.collect(result.releasedBlobs) }
            // Committed before this: a client told of the move finds the changes when it pulls.
            if !result.moved.isEmpty {
                await bus.publish(RecordsChanged(moved: result.moved, origin: request.batch.origin))
                // Read by the bus before the writer hears back: a node serving a request made after
                // that (a list through another node) catches up with it first. Unreachable, the
                // event goes out on reconnect, when other nodes start their caches afresh anyway.
                try? await bus.settle()
            }
            return result
        }
        try bus.handle(ReadChanges.self) { request, _ in try await records.changes(request.query) }
        try bus.handle(ReadHistory.self) { request, _ in
            .init(versions: try await records.history(collection: request.collection, id: request.id, owner: request.owner))
        }
        try bus.handle(GetStorageUsage.self) { request, _ in
            guard let usage = records as? any RecordUsage else {
                throw StorageError(.unavailable, "This storage backend does not measure usage.")
            }
            let (recordBytes, held) = try await usage.usage(owner: request.owner)
            var blobBytes = 0
            for sha in held { blobBytes += try await blobs.stat(sha)?.size ?? 0 }
            return .init(recordBytes: recordBytes, blobBytes: blobBytes)
        }
        try bus.handle(SearchRecords.self) { request, _ in
            guard let searching = records as? any RecordSearching else {
                throw StorageError(.unavailable, "This storage backend does not keep search indexes.")
            }
            return try await searching.search(request.query)
        }
        try bus.handle(QuerySpatial.self) { request, _ in
            guard let spatial = records as? any RecordSpatialIndexing else {
                throw StorageError(.unavailable, "This storage backend does not keep spatial indexes.")
            }
            return try await spatial.spatialQuery(request.query)
        }
        try bus.handle(PutBlob.self) { request, _ in try await blobs.put(request.bytes) }
        try bus.handle(OpenBlobSpool.self) { _, _ in .init(directory: try await blobs.spoolDirectory()?.path) }
        try bus.handle(PutBlobFile.self) { request, _ in try await blobs.put(fileAt: URL(fileURLWithPath: request.path)) }
        try bus.handle(LocateBlob.self) { request, _ in .init(path: try await blobs.localPath(of: request.sha256)?.path) }
        try bus.handle(GetBlob.self) { request, _ in .init(bytes: try await blobs.get(request.sha256)) }
        try bus.handle(StatBlob.self) { request, _ in .init(blob: try await blobs.stat(request.sha256)) }
        try bus.handle(DeleteBlob.self) { request, _ in .init(existed: try await blobs.delete(request.sha256)) }
        try bus.handle(ReleaseBlobs.self) { request, _ in
            if let collector { await collector.collect(request.sha256s.filter(BlobRef.isValidHash)) }
            return Empty()
        }
    }
}

/// The plugin is a value made before it joins a bus; its collector is made when it does.
final class CollectorBox: Sendable {
    private let value = Mutex<BlobCollector?>(nil)
    var collector: BlobCollector? { value.withLock { $0 } }
    func set(_ collector: BlobCollector) { value.withLock { $0 = collector } }
}

/// Keeps the database open while the app runs and closes it cleanly at shutdown (after the HTTP
/// server and every plugin that depends on storage have stopped).
struct StorageService: Service {
    let logger: Logger
    let close: @Sendable () throws -> Void

    func run() async throws {
        try? await gracefulShutdown()
        do {
            try close()
            logger.info("Storage closed cleanly")
        } catch {
            logger.error("Storage did not close cleanly", metadata: ["error": "\(error)"])
        }
    }
}


/// Compacts the change log now and then (see ``ChangeLogCompacting``), once at start too.
struct CompactionService: Service {
    let store: any ChangeLogCompacting
    let retention: TimeInterval
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let report = try await store.compact(before: StoreTime.now().addingTimeInterval(-retention))
                if report.supersededChanges + report.tombstones + report.versions > 0 {
                    logger.info("storage: compacted the change log", metadata: [
                        "superseded": "\(report.supersededChanges)", "tombstones": "\(report.tombstones)",
                        "versions": "\(report.versions)", "horizon": "\(report.horizon)"])
                }
            } catch {
                logger.warning("storage: compaction failed", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }
}
