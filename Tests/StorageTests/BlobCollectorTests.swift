import Bus
import BusInProcess
import Foundation
import Logging
import Storage
import StorageSQLite
import StorageAPI
import Testing

/// Garbage collection through the storage plugin: what a write releases is deleted before the
/// write is answered; the grace period protects a blob being uploaded again; the sweep finds blobs
/// no write ever held; survivors of a restart are found by the sweep too.
@Suite("Blob collector")
struct BlobCollectorTests {
    struct Photo: Codable {
        var photo: String?
    }

    static let collection = "test.photos"

    /// Storage on a bus over SQLite and files, as the app runs it.
    struct Rig {
        let directory: TemporaryDirectory
        let records: SQLiteRecordStore
        let blobs: FileBlobStore
        let bus: InProcessBus
        let collector: BlobCollector
        let deleted: EventSubscription<BlobDeleted>

        init(grace: TimeInterval) async throws {
            directory = try TemporaryDirectory()
            records = try SQLiteRecordStore(path: directory.path("db.sqlite"))
            blobs = try FileBlobStore(directory: directory.path("blobs"))
            bus = InProcessBus()
            collector = BlobCollector(holds: records, blobs: blobs, bus: bus, grace: grace, logger: Logger(label: "test"))
            deleted = bus.subscribe(to: BlobDeleted.self)
            try StoragePlugin.register(records: records, blobs: blobs, collector: collector, on: bus)
            try await BusRecordStore(bus: bus).declare(CollectionSchema(name: BlobCollectorTests.collection, blobFields: ["photo"]))
        }

        var store: BusRecordStore { BusRecordStore(bus: bus) }
        var blobStore: BusBlobStore { BusBlobStore(bus: bus) }
    }

    @Test("replacing the only record holding a blob deletes the blob before the write returns, and says so on the bus")
    func releasedAtOnce() async throws {
        let rig = try await Rig(grace: 0)
        let old = try await rig.blobStore.put(Data("old photo".utf8))
        let new = try await rig.blobStore.put(Data("new photo".utf8))
        _ = try await rig.store.insert(Photo(photo: old.sha256), into: Self.collection, id: "n1", owner: "alice")
        let result = try await rig.store.write(WriteBatch([
            .replace(collection: Self.collection, id: "n1", owner: "alice", data: try JSONDocument(encoding: Photo(photo: new.sha256)),
                     expectedVersion: nil),
        ]))
        #expect(result.releasedBlobs == [old.sha256])
        #expect(try await rig.blobs.stat(old.sha256) == nil)
        #expect(try await rig.blobs.stat(new.sha256) != nil)
        var events = rig.deleted.makeAsyncIterator()
        #expect(await events.next()?.sha256 == old.sha256)
    }

    @Test("within the grace period a released blob stays (it may be on its way in again); the sweep deletes it later")
    func graceThenSweep() async throws {
        let rig = try await Rig(grace: 300)
        let photo = try await rig.blobStore.put(Data("photo".utf8))
        _ = try await rig.store.insert(Photo(photo: photo.sha256), into: Self.collection, id: "n1", owner: "alice")
        try await rig.store.delete(from: Self.collection, id: "n1", owner: "alice")
        #expect(try await rig.blobs.stat(photo.sha256) != nil, "kept during the grace period")
        #expect(await rig.collector.sweep() == [], "a sweep now keeps it too")
        #expect(await rig.collector.sweep(now: Date().addingTimeInterval(301)) == [photo.sha256])
        #expect(try await rig.blobs.stat(photo.sha256) == nil)
    }

    @Test("the sweep deletes blobs no record ever held, and keeps held ones")
    func sweepOrphans() async throws {
        let rig = try await Rig(grace: 60)
        let orphan = try await rig.blobStore.put(Data("upload whose note write failed".utf8))
        let kept = try await rig.blobStore.put(Data("a note's photo".utf8))
        _ = try await rig.store.insert(Photo(photo: kept.sha256), into: Self.collection, owner: "alice")
        #expect(await rig.collector.sweep(now: Date().addingTimeInterval(61)) == [orphan.sha256])
        #expect(try await rig.blobs.stat(kept.sha256) != nil)
    }

    @Test("the held-blob index survives reopening the database")
    func afterRestart() async throws {
        let directory = try TemporaryDirectory()
        let sha = String(repeating: "d", count: 64)
        do {
            let store = try SQLiteRecordStore(path: directory.path("db.sqlite"))
            try await store.declare(CollectionSchema(name: Self.collection, blobFields: ["photo"]))
            _ = try await store.insert(Photo(photo: sha), into: Self.collection, id: "n1", owner: "alice")
            try store.close()
        }
        let reopened = try SQLiteRecordStore(path: directory.path("db.sqlite"))
        #expect(try await reopened.heldBlobs(among: [sha]) == [sha])
        let result = try await reopened.write(WriteBatch([.delete(collection: Self.collection, id: "n1", owner: "alice", expectedVersion: nil)]))
        #expect(result.releasedBlobs == [sha], "known without declaring again")
        try reopened.close()
    }
}

@Suite("Blob parts")
struct BlobPartsTests {
    @Test("bytes appended in odd pieces come out as full parts and a rest, and read back whole and in order")
    func partsRoundTrip() async throws {
        let blobs = InMemoryBlobStore()
        var writer = BlobParts.Writer(blobs: blobs)
        var sent = Data()
        for piece in 0..<9 {
            let bytes = Data(repeating: UInt8(piece + 1), count: 1_000_003 + piece * 7)
            sent.append(bytes)
            try await writer.append(bytes)
        }
        let parts = try await writer.finish()
        #expect(parts.size == sent.count)
        #expect(parts.parts.dropLast().allSatisfy { $0.size == BlobParts.partSize })
        #expect(parts.parts.count == (sent.count + BlobParts.partSize - 1) / BlobParts.partSize)
        var received = Data()
        try await parts.forEach(from: blobs) { received.append($0) }
        #expect(received == sent)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("quire-parts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try await parts.write(to: file, from: blobs)
        #expect(try Data(contentsOf: file) == sent)
        #expect(try await BlobParts.put(file: file, in: blobs) == parts, "the same bytes from a file: the same parts")

        _ = try await blobs.delete(parts.parts[1].sha256)
        let error = await #expect(throws: BusError.self) { try await parts.forEach(from: blobs) { _ in } }
        #expect(error?.code == .notFound && error?.message.contains("Part 2 of") == true)
    }
}
