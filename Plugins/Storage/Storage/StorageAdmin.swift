import Bus
import Foundation
import StorageAPI
import Synchronization

/// What the server's operator asks storage: erase one owner's records (``EraseOwner``) and how the
/// storage is (``GetStorageStatus``).
enum StorageAdmin {
    static func register(records: any RecordStore, declared: DeclaredCollections, on bus: any MessageBus) throws(BusError) {
        try bus.handle(EraseOwner.self) { request, _ in
            guard StorageNames.isValidID(request.owner) else { throw BusError.invalid("'\(request.owner.prefix(40))' is not an owner's id.", field: "owner") }
            var deleted: [String: Int] = [:]
            for collection in declared.names {
                while true {
                    let page = try await records.query(RecordQuery(collection: collection, owner: request.owner, limit: WriteBatch.maxOperations))
                    if page.records.isEmpty { break }
                    // Through the bus's write, so that released blobs, change events and caches follow as for any delete.
                    _ = try await bus.request(WriteRecords(batch: WriteBatch(page.records.map {
                        .delete(collection: collection, id: $0.id, owner: request.owner, expectedVersion: nil)
                    })), timeout: .seconds(60))
                    deleted[collection, default: 0] += page.records.count
                }
            }
            return .init(deleted: deleted)
        }
    }
}

/// The collections declared to this process's storage (what ``EraseOwner`` walks).
final class DeclaredCollections: Sendable {
    private let known = Mutex<Set<String>>([])
    func insert(_ name: String) { _ = known.withLock { $0.insert(name) } }
    var names: [String] { known.withLock { $0.sorted() } }
}

/// Measures ``GetStorageStatus``.
struct StorageStatus: Sendable {
    let records: any RecordStore
    let blobs: any BlobCollecting
    let backend: String
    let databaseFile: String?
    let blobFolder: String?

    func measure() async -> GetStorageStatus.Reply {
        let start = ContinuousClock.now
        var problem: String?
        do {
            _ = try await records.changes(ChangeQuery(owner: "quire-health", after: 0, limit: 1))
        } catch {
            problem = error.message
        }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var count = 0
        var bytes = 0
        if let all = try? await blobs.blobs(putBefore: .distantFuture) {
            for sha in all {
                if let size = try? await blobs.stat(sha)?.size {
                    count += 1
                    bytes += size
                }
            }
        }
        var databaseBytes: Int?
        if let databaseFile {
            databaseBytes = [databaseFile, databaseFile + "-wal"].reduce(0) { total, path in
                total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
            }
        }
        var free: Int?
        var total: Int?
        if let blobFolder {
            var fs = statvfs()
            if statvfs(blobFolder, &fs) == 0 {
                free = Int(fs.f_bavail) * Int(fs.f_frsize)
                total = Int(fs.f_blocks) * Int(fs.f_frsize)
            }
        }
        return .init(backend: backend, databaseOK: problem == nil, databaseProblem: problem, databaseMilliseconds: (milliseconds * 10).rounded() / 10,
                     databaseBytes: databaseBytes, blobCount: count, blobBytes: bytes, dataFolder: blobFolder, diskFreeBytes: free, diskTotalBytes: total)
    }
}
