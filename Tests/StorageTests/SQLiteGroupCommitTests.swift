import Bus
import Foundation
import GRDB
@testable import StorageSQLite
import StorageAPI
import Synchronization
import Testing

@Suite("SQLite group commit")
struct SQLiteGroupCommitTests {
    struct Note: Codable, Equatable { var title: String }

    /// Counts the transactions SQLite commits.
    final class Commits: TransactionObserver, @unchecked Sendable {
        let count = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    @Test("batches that wait for the writer commit together; one that fails in the group fails alone")
    func grouped() async throws {
        let queue = try DatabaseQueue()
        let store = try SQLiteRecordStore(writer: queue)
        try await store.declare(CollectionSchema(name: "notes"))
        _ = try await store.write(WriteBatch([.insert(collection: "notes", id: "taken", owner: "alice", data: try JSONDocument(encoding: Note(title: "first")))]))
        let commits = Commits()
        queue.add(transactionObserver: commits, extent: .databaseLifetime)
        // Hold the writer, as a long transaction would, while 20 batches arrive.
        let release = DispatchSemaphore(value: 0)
        queue.asyncWriteWithoutTransaction { _ in release.wait() }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<20 {
                group.addTask {
                    // Batch 7 takes an id already used: a conflict, in the middle of its group.
                    let id = index == 7 ? "taken" : "n\(index)"
                    let batch = WriteBatch([.insert(collection: "notes", id: id, owner: "alice",
                                                    data: try JSONDocument(encoding: Note(title: "n\(index)")))])
                    do {
                        _ = try await store.write(batch)
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            // The first leads (its transaction waits on the writer); the other 19 queue behind it.
            for _ in 0..<500 where store.writeGroups.waitingCount < 19 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(store.writeGroups.waitingCount == 19)
            release.signal()
            var outcomes: [Int: Bool] = [:]
            for try await (index, ok) in group { outcomes[index] = ok }
            return outcomes
        }
        #expect(outcomes.filter { !$0.value }.map { $0.key } == [7])
        // One transaction for the leader, one for the 19 that waited (20 without grouping).
        #expect(commits.count.withLock { $0 } == 2)
        let page = try await store.query(RecordQuery(collection: "notes", owner: "alice", limit: 100))
        #expect(page.records.count == 20)
        #expect(try page.records.first { $0.id == "taken" }?.decode(Note.self).title == "first")
        // The change log holds each committed insert once, in order.
        let changes = try await store.changes(owner: "alice", after: 0, limit: 100).changes
        #expect(changes.count == 20)
        #expect(changes.map(\.sequence) == changes.map(\.sequence).sorted())
    }

    @Test("a failed transaction fails every batch of its group: none was written")
    func transactionFails() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE TABLE t(x INTEGER PRIMARY KEY)") }
        let bodies: [SQLiteWriteGroups.Body] = [
            { db in try db.execute(sql: "INSERT INTO t VALUES (1)"); return WriteResult(records: [], replayed: false) },
            // Ends the transaction under the group (as SQLite does on a full disk): the first batch is gone too.
            { db in try db.execute(sql: "ROLLBACK"); throw StorageError.unavailable("The disk is full; free space and try again.") },
            { db in try db.execute(sql: "INSERT INTO t VALUES (3)"); return WriteResult(records: [], replayed: false) },
        ]
        let outcomes = queue.writeWithoutTransaction { db in SQLiteWriteGroups.transaction(bodies, db) }
        #expect(outcomes.count == 3)
        #expect(outcomes.allSatisfy { if case .failure = $0 { true } else { false } })
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 0)
    }
}
