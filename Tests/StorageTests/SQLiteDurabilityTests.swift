import Bus
import Foundation
import Storage
import StorageSQLite
import StorageAPI
import Testing

@Suite("SQLite and file blobs: what survives")
struct SQLiteDurabilityTests {
    struct Note: Codable, Equatable { var title: String }

    @Test("records, order and the change log survive closing and reopening the file")
    func reopen() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        var ids: [String] = []
        do {
            let store = try SQLiteRecordStore(path: path)
            for index in 0..<5 {
                ids.append(try await store.insert(Note(title: "n\(index)"), into: "notes", owner: "alice").id)
            }
            try store.close()
        }
        let reopened = try SQLiteRecordStore(path: path)
        let page = try await reopened.query(RecordQuery(collection: "notes", owner: "alice", order: [SortKey("title")]))
        #expect(try page.records.map { try $0.decode(Note.self).title } == ["n0", "n1", "n2", "n3", "n4"])
        #expect(try await reopened.changes(owner: "alice", after: 0, limit: 100).changes.count == 5)
        try reopened.close()
    }

    @Test("commits wait for no checkpoint: the log grows until checkpoint() copies it into the file, from its own connection")
    func checkpointOffTheWritePath() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let store = try SQLiteRecordStore(path: path)
        // Past SQLite's default autocheckpoint (1,000 pages), which would have checkpointed on a commit.
        for index in 0..<300 {
            _ = try await store.insert(Note(title: String(repeating: "x", count: 40_000) + "\(index)"), into: "notes", owner: "alice")
        }
        let walBytes = { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0 }
        let fileBytes = { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        #expect(walBytes() > 12_000_000)
        let before = fileBytes()
        #expect(try await store.checkpoint() > 1000)
        #expect(fileBytes() > before + 10_000_000)
        try store.close()
        let reopened = try SQLiteRecordStore(path: path)
        #expect(try await reopened.query(RecordQuery(collection: "notes", owner: "alice", limit: 1000)).records.count == 300)
        try reopened.close()
    }

    @Test("a closed store refuses work with 'unavailable'")
    func closed() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteRecordStore(path: directory.path("app.sqlite"))
        try store.close()
        await #expect(throws: BusError.self) {
            try await store.insert(Note(title: "late"), into: "notes", owner: "alice")
        }
    }

    @Test("a database path that cannot be opened is a clear 'unavailable' error")
    func unopenable() throws {
        let directory = try TemporaryDirectory()
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: directory.path("junk.sqlite")))
        #expect {
            _ = try SQLiteRecordStore(path: directory.path("junk.sqlite"))
        } throws: { error in
            (error as? BusError)?.code == .unavailable
        }
    }

    @Test("file blobs leave no temp files, and leftovers from a crash are removed at start")
    func blobTempFiles() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.path("blobs")
        let store = try FileBlobStore(directory: root)
        _ = try await store.put(Data(repeating: 1, count: 100_000))
        let temp = root + "/.tmp"
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp).isEmpty)
        // A half-written file, as a crash would leave it:
        try Data(repeating: 2, count: 10).write(to: URL(fileURLWithPath: temp + "/partial"))
        _ = try FileBlobStore(directory: root)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp).isEmpty)
    }

    @Test("a blob over the limit is refused before anything is written")
    func blobLimit() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileBlobStore(directory: directory.path("blobs"), maxBlobBytes: 10)
        await #expect(throws: BusError.self) { try await store.put(Data(repeating: 0, count: 11)) }
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path("blobs"))
        #expect(entries == [".tmp"])
    }
}
