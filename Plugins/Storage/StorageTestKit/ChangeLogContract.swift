import Bus
import Foundation
public import StorageAPI

/// The change log as sync reads it: versions that never go back, earlier versions kept, scopes
/// shared with another account, and compaction. Every backend passes it.
public enum ChangeLogContract {
    public typealias Store = any RecordStore & ChangeLogCompacting

    struct Doc: Codable, Equatable {
        var title: String
        var book: String?
    }

    static let docs = "contract.docs"
    static let kept = CollectionSchema(name: "contract.kept", history: true)
    static let pages = CollectionSchema(name: "contract.pages", scope: "book")
    static let books = CollectionSchema(name: "contract.books", scope: "@id")

    public static let cases: [ContractCase<any RecordStore>] = [
        ContractCase("an id inserted again after a delete goes on from the tombstone's version") { store in
            _ = try await store.insert(Doc(title: "a"), into: docs, id: "d1", owner: "alice")
            _ = try await store.replace(Doc(title: "b"), in: docs, id: "d1", owner: "alice")
            try await store.delete(from: docs, id: "d1", owner: "alice")
            let again = try await store.insert(Doc(title: "c"), into: docs, id: "d1", owner: "alice")
            try expectEqual(again.version, 4, "version after insert, replace, delete (3), insert")
            let log = try await store.changes(owner: "alice", after: 0, limit: 100).changes
            try expectEqual(log.map(\.version), [1, 2, 3, 4], "versions in the log")
            try expectEqual(log.map(\.owner), ["alice", "alice", "alice", "alice"], "owner on each change")
            let batch = try await store.write(WriteBatch([
                .delete(collection: docs, id: "d1", owner: "alice", expectedVersion: 4),
                .insert(collection: docs, id: "d1", owner: "alice", data: try JSONDocument(encoding: Doc(title: "d"))),
            ]))
            try expectEqual(batch.records.last??.version, 6, "a delete and insert in one batch")
        },
        ContractCase("a collection with history keeps each earlier version, newest first, for its owner only") { store in
            try await store.declare(kept)
            let first = try await store.insert(Doc(title: "v1"), into: kept.name, owner: "alice")
            _ = try await store.replace(Doc(title: "v2"), in: kept.name, id: first.id, owner: "alice")
            _ = try await store.replace(Doc(title: "v3"), in: kept.name, id: first.id, owner: "alice")
            let history = try await store.history(collection: kept.name, id: first.id, owner: "alice")
            try expectEqual(history.map(\.version), [2, 1], "versions")
            try expectEqual(try history.map { try $0.decode(Doc.self).title }, ["v2", "v1"], "payloads")
            try expectEqual(try await store.version(1, collection: kept.name, id: first.id, owner: "alice")?.decode(Doc.self).title, "v1",
                            "one version")
            try expect(try await store.history(collection: kept.name, id: first.id, owner: "bob").isEmpty, "bob sees none")
            let plain = try await store.insert(Doc(title: "x"), into: docs, owner: "alice")
            _ = try await store.replace(Doc(title: "y"), in: docs, id: plain.id, owner: "alice")
            try expect(try await store.history(collection: docs, id: plain.id, owner: "alice").isEmpty, "no history unless declared")
            try await store.delete(from: kept.name, id: first.id, owner: "alice")
            try expectEqual(try await store.history(collection: kept.name, id: first.id, owner: "alice").map(\.version), [3, 2, 1],
                            "a delete keeps the last version")
        },
        ContractCase("a collection that forgets on delete drops every earlier version with the record") { store in
            let private_ = CollectionSchema(name: "contract.private", history: true, forgetsOnDelete: true)
            try await store.declare(private_)
            let photo = try await store.insert(Doc(title: "at home"), into: private_.name, owner: "alice")
            _ = try await store.replace(Doc(title: "in the park"), in: private_.name, id: photo.id, owner: "alice")
            try expectEqual(try await store.history(collection: private_.name, id: photo.id, owner: "alice").map(\.version), [1],
                            "history while it lives")
            try await store.delete(from: private_.name, id: photo.id, owner: "alice")
            try expect(try await store.history(collection: private_.name, id: photo.id, owner: "alice").isEmpty, "nothing kept after the delete")
            try expect(try await store.version(1, collection: private_.name, id: photo.id, owner: "alice") == nil, "not even by version")
            let feed = try await store.changes(owner: "alice", after: 0, limit: 10).changes
            try expectEqual(feed.last?.kind, .delete, "the feed still says it went")
        },
        ContractCase("a shared scope takes in exactly that scope of another owner's log") { store in
            try await store.declare(books)
            try await store.declare(pages)
            _ = try await store.insert(Doc(title: "shared"), into: books.name, id: "b1", owner: "alice")
            _ = try await store.insert(Doc(title: "private"), into: books.name, id: "b2", owner: "alice")
            let page = try await store.insert(Doc(title: "p1", book: "b1"), into: pages.name, owner: "alice")
            _ = try await store.insert(Doc(title: "p2", book: "b2"), into: pages.name, owner: "alice")
            _ = try await store.insert(Doc(title: "bob's"), into: docs, owner: "bob")
            try await store.delete(from: pages.name, id: page.id, owner: "alice")
            let feed = try await store.changes(ChangeQuery(owner: "bob", after: 0, limit: 100,
                                                           shared: [SharedScope(owner: "alice", scope: "b1")]))
            try expectEqual(feed.changes.map(\.scope), ["b1", "b1", nil, "b1"], "bob's feed: b1, its page, his doc, the page's delete")
            try expectEqual(feed.changes.map(\.kind), [.insert, .insert, .insert, .delete], "kinds")
            try expect(zip(feed.changes, feed.changes.dropFirst()).allSatisfy { $0.sequence < $1.sequence }, "one order")
            let alone = try await store.changes(owner: "bob", after: 0, limit: 100)
            try expectEqual(alone.changes.count, 1, "without the share, only his own")
            let wrong = try await store.changes(ChangeQuery(owner: "bob", after: 0, limit: 100,
                                                            shared: [SharedScope(owner: "carol", scope: "b1")]))
            try expectEqual(wrong.changes.count, 1, "a scope names its owner")
        },
        ContractCase("a write reports how far it moved each owner's log") { store in
            try await store.declare(pages)
            let result = try await store.write(WriteBatch([
                .insert(collection: pages.name, id: nil, owner: "alice", data: try JSONDocument(encoding: Doc(title: "a", book: "b9"))),
                .insert(collection: docs, id: nil, owner: "bob", data: try JSONDocument(encoding: Doc(title: "b"))),
                .insert(collection: docs, id: nil, owner: "alice", data: try JSONDocument(encoding: Doc(title: "c"))),
            ]))
            let log = try await store.changes(owner: "alice", after: 0, limit: 100).changes
            try expectEqual(result.moved.map(\.owner), ["alice", "bob"], "owners")
            try expectEqual(result.moved.first?.sequence, log.last?.sequence, "alice's last sequence")
            try expectEqual(result.moved.first?.scopes, ["b9"], "scopes touched")
        },
        ContractCase("concurrent writers: the log has no gaps, and a reader never sees a sequence before an earlier one commits") { store in
            // Eight writers, 25 batches each, while a reader follows the log: each page it reads
            // must go on exactly from the last sequence it saw. A later change visible before an
            // earlier one commits would show as a gap, and the earlier change would be skipped for good.
            let writers = 8
            let batches = 25
            let reader = Task { () -> (seen: Int, gaps: [String]) in
                var last: Int64 = 0
                var seen = 0
                var gaps: [String] = []
                while seen < writers * batches * 2 && !Task.isCancelled {
                    let page = try await store.changes(owner: "alice", after: last, limit: 1000)
                    for change in page.changes {
                        if change.sequence != last + 1 { gaps.append("\(last) → \(change.sequence)") }
                        last = change.sequence
                        seen += 1
                    }
                    if page.changes.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
                }
                return (seen, gaps)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for batch in 0..<batches {
                            _ = try await store.write(WriteBatch([
                                .insert(collection: docs, id: "w\(writer)-\(batch)-a", owner: "alice", data: try JSONDocument(encoding: Doc(title: "a"))),
                                .insert(collection: docs, id: "w\(writer)-\(batch)-b", owner: "alice", data: try JSONDocument(encoding: Doc(title: "b"))),
                            ]))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let timeout = Task {
                try await Task.sleep(for: .seconds(30))
                reader.cancel()
            }
            let (seen, gaps) = try await reader.value
            timeout.cancel()
            try expectEqual(seen, writers * batches * 2, "changes the reader saw")
            try expectEqual(gaps, [], "gaps the reader met")
            let all = try await store.changes(owner: "alice", after: 0, limit: 1000).changes
            try expectEqual(all.map(\.sequence), Array(1...Int64(writers * batches * 2)), "the log, read again afterwards")
        },
    ]

    public static let compaction: [ContractCase<Store>] = [
        ContractCase("compaction drops superseded changes, old tombstones and old versions, and moves the horizon") { store in
            try await store.declare(kept)
            let a = try await store.insert(Doc(title: "a"), into: kept.name, owner: "alice")
            _ = try await store.replace(Doc(title: "a2"), in: kept.name, id: a.id, owner: "alice")
            let b = try await store.insert(Doc(title: "b"), into: kept.name, owner: "alice")
            try await store.delete(from: kept.name, id: b.id, owner: "alice")
            let before = try await store.changes(owner: "alice", after: 0, limit: 100)
            try expectEqual(before.horizon, 0, "no horizon yet")
            let kept1 = try await store.compact(before: Date(timeIntervalSinceNow: -3600))
            try expectEqual(kept1.supersededChanges, 2, "a's insert and b's insert are superseded")
            try expectEqual(kept1.tombstones, 0, "a recent tombstone stays")
            try expectEqual(kept1.horizon, 0, "no horizon while tombstones stay")
            let middle = try await store.changes(owner: "alice", after: 0, limit: 100).changes
            try expectEqual(middle.map(\.kind), [.replace, .delete], "the latest change of each record")
            try expectEqual(try await store.history(collection: kept.name, id: a.id, owner: "alice").count, 1, "history kept")
            let all = try await store.compact(before: Date(timeIntervalSinceNow: 3600))
            try expectEqual(all.tombstones, 1, "the tombstone goes")
            try expectEqual(all.versions, 2, "a's and b's earlier versions go")
            try expectEqual(all.horizon, middle[1].sequence, "the horizon is the dropped tombstone's sequence")
            let after = try await store.changes(owner: "alice", after: 0, limit: 100)
            try expectEqual(after.changes.map(\.kind), [.replace], "a's latest change only")
            try expectEqual(after.horizon, middle[1].sequence, "reported with every page")
        },
    ]
}
