import Bus
public import Foundation
import GRDB
public import Logging
public import ServiceLifecycle
import StorageAPI

/// The SQLite backend as the storage plugin opens it: the store, the services it needs while the
/// app runs (its checkpoints, its clean close) and its flush (`storage.flush.v1`). Checkpoints are
/// SQLite's own business and stay here.
public struct SQLiteBackend: Sendable {
    public let store: SQLiteRecordStore
    private let checkpoints: SQLiteCheckpoints

    public init(path: String, durability: SQLiteRecordStore.Durability, logger: Logger) throws(StorageError) {
        store = try SQLiteRecordStore(path: path, durability: durability)
        if let snapshot = store.upgradeSnapshot {
            logger.notice("storage: the database's schema was upgraded; the database as it was before is kept at \(snapshot) (restore it with quire restore if this version is rolled back)",
                          metadata: ["path": "\(path)"])
        }
        checkpoints = SQLiteCheckpoints(store: store, logger: logger)
    }

    /// Checkpoints every second while there is work.
    public var services: [any Service] { [checkpoints] }

    /// Writes what the log holds into the database file now (a device entering low battery).
    public func flush() async { await checkpoints.checkpoint() }

    public func close() throws { try store.close() }

    // MARK: Backup and restore

    /// Copies the database at `path` into a new file at `destination` with SQLite's online backup
    /// API: a consistent snapshot, taken beside a running server (readers never block its writer).
    public static func backup(path: String, to destination: URL) throws {
        var readOnly = Configuration()
        readOnly.readonly = true
        let source = try DatabasePool(path: path, configuration: readOnly)
        let copy = try DatabaseQueue(path: destination.path)
        try source.backup(to: copy)
        try copy.close()
        try source.close()
    }

    /// Puts the backup file `file` in place of the database at `path` (run with the server stopped).
    /// What was there is kept beside it as `<path>.before-restore`, a clean copy with its WAL folded in.
    public static func restore(_ file: URL, into path: String) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            let kept = path + ".before-restore"
            try? manager.removeItem(atPath: kept)
            let current = try DatabaseQueue(path: path)
            let copy = try DatabaseQueue(path: kept)
            try current.backup(to: copy)
            try copy.close()
            try current.close()
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try manager.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        var readOnly = Configuration()
        readOnly.readonly = true
        let source = try DatabaseQueue(path: file.path, configuration: readOnly)
        let destination = try DatabaseQueue(path: path)
        try source.backup(to: destination)
        try destination.close()
        try source.close()
    }
}

/// Checkpoints the SQLite write-ahead log off the write path, every second while there is work;
/// ``SQLiteBackend/flush()`` asks for one at once.
struct SQLiteCheckpoints: Service {
    let store: SQLiteRecordStore
    let logger: Logger
    static let interval: Duration = .seconds(1)

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
            } catch {
                return
            }
            await checkpoint()
        }
    }

    func checkpoint() async {
        do {
            try await store.checkpoint()
        } catch {
            logger.warning("storage: a problem with the database file", metadata: ["error": "\(error.message)"])
        }
    }
}
