import Bus
public import Foundation
import Logging
public import StorageAPI
import StoragePostgres
import StorageSQLite

/// `quire backup` and `quire restore`: an app's records and blobs, copied while the server runs.
///
/// A backup is a directory: `manifest.json`, the records (`records.sqlite` from SQLite's online
/// backup API, a consistent snapshot taken beside the running server; or `records.pgdump` from
/// `pg_dump --format=custom`, one transaction's snapshot), and `blobs/` (the content-addressed
/// files, copied after the records so that every blob the snapshot names is there unless it was
/// deleted in between — scheduled backups hold deletions meanwhile, see ``BackupScheduler``), and
/// `manifest.json` with every file's SHA-256. It is written beside its name and renamed when complete.
public enum StorageBackup {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Writes a backup of `config`'s storage to `output` (a directory that must not exist): the
    /// records, then the blobs (those `previous`, an earlier backup in the same place, already has
    /// are hard-linked from it), then `manifest.json` with every file's SHA-256. It is written
    /// beside its name and renamed when complete, so a folder with the name is a whole backup.
    /// With `config.keyFiles`, the server's keys go in too, sealed with `passphrase` (``BackupKeys``);
    /// without a passphrase they are left out and the manifest names them (`keysLeftOut`).
    public static func backup(_ config: StoragePlugin.Config, appName: String, to output: URL, previous: URL? = nil,
                              passphrase: String? = nil,
                              progress: (String) -> Void) throws -> (records: String, blobs: Int) {
        guard !FileManager.default.fileExists(atPath: output.path) else {
            throw Failure("\(output.path) already exists; name a new directory (a backup is never written over another). [already_exists]")
        }
        let partial = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).partial")
        try? FileManager.default.removeItem(at: partial)
        do {
            try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        } catch {
            throw Failure("Cannot create \(partial.path): \(error.localizedDescription); check that \(output.deletingLastPathComponent().path) exists and is writable.")
        }
        do {
            let records: String
            switch config.backend {
            case .sqlite:
                let path = sqlitePath(config, appName: appName)
                guard FileManager.default.fileExists(atPath: path) else { throw Failure("There is no database at \(path) to back up.") }
                records = "records.sqlite"
                progress("copying the records from \(path) (SQLite online backup)")
                try SQLiteBackend.backup(path: path, to: partial.appendingPathComponent(records))
            case .postgres:
                guard let settings = config.postgres else { throw Failure("backend postgres needs a url.") }
                records = "records.pgdump"
                progress("copying the records from \(settings.description) (pg_dump)")
                try PostgresBackup.dump(settings, to: partial.appendingPathComponent(records))
            case .memory:
                throw Failure("backend memory keeps nothing to back up.")
            }
            var files = try BackupFiles.addBlobs(from: URL(fileURLWithPath: config.blobs), to: partial, previous: previous, progress: progress)
            let blobs = files.count
            files[records] = try BackupFiles.sha256(of: partial.appendingPathComponent(records))
            let keys = try BackupKeys.write(config.keyFiles, passphrase: passphrase, into: partial, progress: progress)
            if let sum = keys.checksum { files[BackupKeys.fileName] = sum }
            try BackupFiles.Manifest(app: appName, backend: config.backend.rawValue, records: records,
                                     createdAt: ISO8601DateFormatter().string(from: StoreTime.now()), blobs: blobs, files: files,
                                     keys: keys.sealed, keysLeftOut: keys.leftOut)
                .write(to: partial)
            try FileManager.default.moveItem(at: partial, to: output)
            if config.backend == .postgres, let settings = config.postgres {
                // Remembered in the database: a migration asks for a recent backup first.
                try PostgresBackup.recordBackup(settings, location: output.path)
            }
            return (records, blobs)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
    }

    /// Puts a backup back, once every file it lists matches its checksum (a damaged backup is
    /// refused, naming the file, before anything is touched): the records replace what the storage
    /// holds now (SQLite: the old file is kept beside it as `<file>.before-restore`); blobs missing
    /// from the blob folder are copied in. Run it with the server stopped.
    public static func restore(_ config: StoragePlugin.Config, appName: String, from input: URL,
                               progress: (String) -> Void) throws -> Int {
        let manifest = try BackupFiles.verify(input, progress: progress)
        guard manifest.backend == config.backend.rawValue else {
            throw Failure("This backup is of a \(manifest.backend) database; the config's storage is \(config.backend.rawValue). Restore it with a \(manifest.backend) config.")
        }
        let file = input.appendingPathComponent(manifest.records)
        switch config.backend {
        case .sqlite:
            let path = sqlitePath(config, appName: appName)
            progress("restoring the records into \(path)")
            try SQLiteBackend.restore(file, into: path)
        case .postgres:
            guard let settings = config.postgres else { throw Failure("backend postgres needs a url.") }
            progress("restoring the records into \(settings.description) (pg_restore)")
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quire-restore-list-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            try PostgresBackup.restore(file, into: settings, scratch: scratch)
        case .memory:
            throw Failure("backend memory keeps nothing to restore into.")
        }
        return try copyBlobs(from: input.appendingPathComponent("blobs"), to: URL(fileURLWithPath: config.blobs), progress: progress)
    }

    static func sqlitePath(_ config: StoragePlugin.Config, appName: String) -> String {
        config.path.isEmpty ? "./data/\(appName).sqlite" : config.path
    }

    /// Copies every blob file not already at the destination; answers how many blobs there are.
    static func copyBlobs(from source: URL, to destination: URL, progress: (String) -> Void) throws -> Int {
        let manager = FileManager.default
        try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        guard let walker = manager.enumerator(at: source, includingPropertiesForKeys: [.isRegularFileKey]) else { return 0 }
        var count = 0
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  BlobRef.isValidHash(url.lastPathComponent) else { continue }
            let relative = url.path.dropFirst(source.path.count).drop { $0 == "/" }
            let target = destination.appendingPathComponent(String(relative))
            if !manager.fileExists(atPath: target.path) {
                try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try manager.copyItem(at: url, to: target)
            }
            count += 1
            if count % 500 == 0 { progress("\(count) blobs") }
        }
        progress("\(count) blobs")
        return count
    }
}

extension StorageBackup {
    /// What opening the storage would do to its schema, changing nothing (`quire migrate --plan`).
    public static func migrationPlan(_ config: StoragePlugin.Config, appName: String) async throws -> SchemaMigrationPlan {
        do {
            return try await plan(config, appName: appName)
        } catch let error as StorageError {
            throw Failure(error.message)
        }
    }

    private static func plan(_ config: StoragePlugin.Config, appName: String) async throws -> SchemaMigrationPlan {
        switch config.backend {
        case .sqlite:
            return try SQLiteRecordStore.migrationPlan(path: sqlitePath(config, appName: appName))
        case .postgres:
            return try await withPostgres(config) { try await $0.migrationPlan() }
        case .memory:
            throw Failure("backend memory has no schema to migrate.")
        }
    }

    /// Brings the schema up to date as `quire serve` does at start (SQLite: a copy first, whose
    /// path is answered; PostgreSQL: only with a recent backup, or `migrate_without_backup`).
    public static func migrate(_ config: StoragePlugin.Config, appName: String) async throws -> String? {
        do {
            return try await upgrade(config, appName: appName)
        } catch let error as StorageError {
            throw Failure(error.message)
        }
    }

    private static func upgrade(_ config: StoragePlugin.Config, appName: String) async throws -> String? {
        switch config.backend {
        case .sqlite:
            let store = try SQLiteRecordStore(path: sqlitePath(config, appName: appName), durability: config.durability)
            try store.close()
            return store.upgradeSnapshot
        case .postgres:
            return try await withPostgres(config) { store in
                try await store.prepare()
                return nil
            }
        case .memory:
            throw Failure("backend memory has no schema to migrate.")
        }
    }

    private static func withPostgres<T: Sendable>(_ config: StoragePlugin.Config,
                                                  _ body: @Sendable (PostgresRecordStore) async throws -> T) async throws -> T {
        guard var settings = config.postgres else { throw Failure("backend postgres needs a url.") }
        settings.requireBackupBeforeMigrating = !config.migrateWithoutBackup
        settings.maxConnections = 2
        var logger = Logger(label: "quire")
        logger.logLevel = .warning
        let store = PostgresRecordStore(settings: settings, logger: logger)
        let pool = Task { await store.run() }
        defer { pool.cancel() }
        return try await body(store)
    }
}
