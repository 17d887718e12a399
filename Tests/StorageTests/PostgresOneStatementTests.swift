import Bus
import Foundation
import Logging
import PostgresNIO
import StorageAPI
@testable import StoragePostgres
import Testing

/// A create on PostgreSQL is one statement, its own transaction (issue 42): one round trip instead
/// of BEGIN, the tombstone probe, the insert, the change log and COMMIT. Seen from the server: a
/// create held up on the change log's counter (another session holds its row) is waiting in the
/// statement that also writes the record (and the idempotency claim): the whole write. Before, the
/// waiting statement wrote the changes alone, its transaction begun three round trips earlier.
@Suite("PostgreSQL: a create in one statement", .enabled(if: TestPostgres.available, "no PostgreSQL server: run tools/test, or tools/postgres start"))
struct PostgresOneStatementTests {
    struct Note: Codable, Equatable {
        var title: String
    }

    static let logger = Logger(label: "quire.test.postgres")

    /// What the writer held up by `connection` (it holds the counter's row) is running; other tests' sessions are not it.
    static func blockedWriter(_ connection: PostgresConnection) async throws -> (query: String, microsecondsIntoTransaction: Double)? {
        for _ in 0..<200 {
            // The activity view is read once per transaction unless cleared: this one stays open.
            try await connection.query("SELECT pg_stat_clear_snapshot()", logger: Self.logger)
            let rows = try await connection.query("""
                SELECT coalesce(query, ''), coalesce(extract(epoch FROM query_start - xact_start) * 1e6, -1)::float8 FROM pg_stat_activity
                WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid)) AND query LIKE '%log_meta%'
                """, logger: Self.logger).collect()
            if let row = rows.first { return try row.decode((String, Double).self) }
            try await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }

    @Test("a create waiting on the change log's counter is one statement, its own transaction (with and without an idempotency key)",
          arguments: [false, true])
    func createIsOneStatement(_ idempotent: Bool) async throws {
        try await TestPostgres.withStores(2) { stores in
            let holder = stores[0], writer = stores[1]
            let collection = "one.notes"
            try await writer.declare(CollectionSchema(name: collection))
            let batch = WriteBatch([.insert(collection: collection, id: "n1", owner: "alice", data: try JSONDocument(encoding: Note(title: "first")))],
                                   idempotency: idempotent ? IdempotencyClaim(owner: "alice", scope: "notes.create", key: "k1", fingerprint: "f1") : nil)
            let seen = try await holder.leasing { connection in
                try await connection.query("BEGIN", logger: Self.logger)
                try await connection.query("SELECT value FROM log_meta WHERE key = 'sequence' FOR UPDATE", logger: Self.logger)
                let write = Task { try await writer.write(batch) }
                let seen = try await Self.blockedWriter(connection)
                try await connection.query("COMMIT", logger: Self.logger)
                let result = try await write.value
                return (seen, result)
            }
            let (blocked, result) = seen
            let waiting = try #require(blocked, "the write never waited on the counter's row")
            let whole = ["INSERT INTO records", "INSERT INTO changes"] + (idempotent ? ["INSERT INTO idempotency"] : [])
            #expect(whole.allSatisfy { waiting.query.contains($0) },
                    "the statement waiting on the counter is not the whole write (\(waiting.microsecondsIntoTransaction) µs into its transaction): \(waiting.query.prefix(80))")
            #expect(result.records.first??.version == 1)
            #expect(result.moved.count == 1)
            let stored = try #require(try await writer.get(collection: collection, id: "n1", owner: "alice"))
            #expect(try stored.data.decode(Note.self) == Note(title: "first"))
            let log = try await writer.changes(ChangeQuery(owner: "alice", after: 0, limit: 10))
            #expect(log.changes.map(\.recordID) == ["n1"])
            #expect(log.changes.first?.sequence == result.moved.first?.sequence)
            if idempotent {
                let again = try await writer.write(batch)
                #expect(again.replayed)
                #expect(again.records.first??.id == "n1")
            }
        }
    }

    @Test("what one statement assumes, checked: a tombstone, a taken id, a used key")
    func fallsBack() async throws {
        try await TestPostgres.withStore { store in
            let collection = "one.checked"
            try await store.declare(CollectionSchema(name: collection))
            let note = try JSONDocument(encoding: Note(title: "a"))
            _ = try await store.write(WriteBatch([.insert(collection: collection, id: "x", owner: "alice", data: note)]))
            _ = try await store.write(WriteBatch([.delete(collection: collection, id: "x", owner: "alice", expectedVersion: nil)]))
            let again = try await store.write(WriteBatch([.insert(collection: collection, id: "x", owner: "alice", data: note)]))
            #expect(again.records.first??.version == 3, "goes on from the tombstone's version 2")
            await #expect(throws: StorageError.self) {
                _ = try await store.write(WriteBatch([.insert(collection: collection, id: "x", owner: "alice", data: note)]))
            }
            let claim = IdempotencyClaim(owner: "alice", scope: "s", key: "k", fingerprint: "f")
            let first = try await store.write(WriteBatch([.insert(collection: collection, id: nil, owner: "alice", data: note)], idempotency: claim))
            let replay = try await store.write(WriteBatch([.insert(collection: collection, id: nil, owner: "alice", data: note)], idempotency: claim))
            #expect(replay.replayed)
            #expect(replay.records.first??.id == first.records.first??.id)
            let log = try await store.changes(ChangeQuery(owner: "alice", after: 0, limit: 10))
            #expect(log.changes.map(\.version) == [1, 2, 3, 1], "a failed or replayed write logs nothing")
        }
    }
}
