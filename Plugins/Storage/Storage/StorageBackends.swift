import Bus
import Logging
import ServiceLifecycle
import StorageAPI
import StoragePostgres
import StorageSQLite

/// A backend as the plugin runs it: its stores, what it runs beside the app, how it flushes and closes.
struct OpenedBackend {
    var records: any RecordStore & BlobHolds & RecordSearching & ChangeLogCompacting
    var blobs: any BlobCollecting
    var services: [any Service] = []
    var flush: @Sendable () async -> Void = {}
    var close: @Sendable () throws -> Void = {}
}

/// The factory `storage.backend` picks from: each backend lives in a target of its own
/// (`StorageSQLite`, `StoragePostgres`) and passes the same contract suites; only this file knows them all.
enum StorageBackends {
    static func open(_ config: StoragePlugin.Config, appName: String, logger: Logger) async throws -> OpenedBackend {
        switch config.backend {
        case .sqlite:
            let path = config.path.isEmpty ? "./data/\(appName).sqlite" : config.path
            let backend = try SQLiteBackend(path: path, durability: config.durability, logger: logger)
            logger.info("Storage: SQLite", metadata: ["path": "\(path)", "blobs": "\(config.blobs)"])
            return OpenedBackend(records: backend.store, blobs: try FileBlobStore(directory: config.blobs, maxBlobBytes: config.maxBlobBytes),
                                 services: backend.services, flush: { await backend.flush() }, close: { try backend.close() })
        case .postgres:
            guard var settings = config.postgres else { throw StorageError.invalid("backend postgres needs a url.", field: "url") }
            settings.requireBackupBeforeMigrating = !config.migrateWithoutBackup
            return try await openPostgres(settings, config: config, logger: logger)
        case .memory:
            logger.info("Storage: in memory; nothing is kept after the server stops")
            return OpenedBackend(records: InMemoryRecordStore(), blobs: InMemoryBlobStore(maxBlobBytes: config.maxBlobBytes))
        }
    }

    /// The pool runs from now (other plugins declare their collections while the app is made)
    /// until the storage service ends, after everything that uses it has stopped. A database that
    /// cannot be reached does not stop the server: it says so, keeps trying with backoff, and
    /// answers 503 with Retry-After meanwhile.
    private static func openPostgres(_ settings: PostgresRecordStore.Settings, config: StoragePlugin.Config,
                                     logger: Logger) async throws -> OpenedBackend {
        let store = PostgresRecordStore(settings: settings, logger: logger)
        let pool = Task { await store.run() }
        let preparing: Task<Void, Never>?
        do {
            try await store.prepare()
            preparing = nil
        } catch where error.code == .unavailable {
            logger.warning("storage: PostgreSQL cannot be reached; serving 503 until it can", metadata: ["database": "\(settings.description)"])
            preparing = Task {
                try? await Task.sleep(for: .seconds(1))
                try? await store.prepareWhenReachable()
            }
        } catch {
            pool.cancel()
            throw error
        }
        logger.info("Storage: PostgreSQL", metadata: ["database": "\(settings.description)", "blobs": "\(config.blobs)"])
        return OpenedBackend(records: store, blobs: try FileBlobStore(directory: config.blobs, maxBlobBytes: config.maxBlobBytes),
                             close: {
                                 preparing?.cancel()
                                 pool.cancel()
                             })
    }
}
