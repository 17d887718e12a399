import Dispatch
import GRDB
import StorageAPI
import Synchronization

/// The connection checkpoints run on, opened on first use, used on one serial queue: a checkpoint
/// writes and syncs the database file, which must hold neither the writer nor a cooperative thread.
final class Checkpointer: Sendable {
    /// Log frames past which a checkpoint also restarts the log (16 MB at 16 KiB pages).
    static let restartFrames = 1000
    let queue = DispatchQueue(label: "quire.storage.checkpoint")
    let connection = Mutex<DatabaseQueue?>(nil)

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
