import Bus
import Foundation
public import StorageAPI

/// The behaviour of every ``RecordStore``: SQLite, in-memory, over the bus — and later PostgreSQL.
public enum RecordStoreContract {
    struct Item: Codable, Equatable {
        var name: String
        var rank: Double?
        var tag: String?
        var done: Bool?
    }

    static let items = "contract.items"

    public static let cases: [ContractCase<any RecordStore>] = [
        ContractCase("insert then get returns the record, version 1, for its owner only") { store in
            let record = try await store.insert(Item(name: "a", rank: 1), into: items, owner: "alice")
            try expectEqual(record.version, 1, "version")
            try expect(StorageNames.isValidID(record.id), "generated id '\(record.id)' is valid")
            let fetched = try await store.get(collection: items, id: record.id, owner: "alice")
            try expectEqual(try fetched?.decode(Item.self), Item(name: "a", rank: 1), "payload")
            try expectEqual(fetched?.owner, "alice", "owner")
            try expect(try await store.get(collection: items, id: record.id, owner: "bob") == nil,
                       "another owner sees nothing")
            try expect(try await store.get(collection: items, id: "missing", owner: "alice") == nil, "missing id")
        },
        ContractCase("insert with an existing id is a conflict") { store in
            _ = try await store.insert(Item(name: "a"), into: items, id: "fixed", owner: "alice")
            try await expectError(.conflict, "duplicate id") {
                try await store.insert(Item(name: "b"), into: items, id: "fixed", owner: "bob")
            }
        },
        ContractCase("replace bumps the version and honours the expected version") { store in
            let record = try await store.insert(Item(name: "a"), into: items, owner: "alice")
            let replaced = try await store.replace(Item(name: "b"), in: items, id: record.id, owner: "alice", expectedVersion: 1)
            try expectEqual(replaced.version, 2, "version after replace")
            try expectEqual(replaced.createdAt, record.createdAt, "createdAt kept")
            try await expectError(.preconditionFailed, "stale version") {
                try await store.replace(Item(name: "c"), in: items, id: record.id, owner: "alice", expectedVersion: 1)
            }
            try await expectError(.notFound, "another owner's record") {
                try await store.replace(Item(name: "x"), in: items, id: record.id, owner: "bob")
            }
            let fetched = try await store.get(collection: items, id: record.id, owner: "alice")
            try expectEqual(try fetched?.decode(Item.self).name, "b", "payload after failed writes")
        },
        ContractCase("delete removes the record; another owner cannot") { store in
            let record = try await store.insert(Item(name: "a"), into: items, owner: "alice")
            try await expectError(.notFound, "delete by another owner") {
                try await store.delete(from: items, id: record.id, owner: "bob")
            }
            try await store.delete(from: items, id: record.id, owner: "alice")
            try expect(try await store.get(collection: items, id: record.id, owner: "alice") == nil, "gone")
            try await expectError(.notFound, "second delete") {
                try await store.delete(from: items, id: record.id, owner: "alice")
            }
        },
        ContractCase("a batch is atomic: one failing operation undoes the others") { store in
            _ = try await store.insert(Item(name: "taken"), into: items, id: "taken", owner: "alice")
            let before = try await store.changes(owner: "alice", after: 0, limit: 100).changes.count
            try await expectError(.conflict, "batch with a duplicate") {
                try await store.write(WriteBatch([
                    .insert(collection: items, id: "fresh", owner: "alice", data: try JSONDocument(encoding: Item(name: "x"))),
                    .insert(collection: items, id: "taken", owner: "alice", data: try JSONDocument(encoding: Item(name: "y"))),
                ]))
            }
            try expect(try await store.get(collection: items, id: "fresh", owner: "alice") == nil, "first insert undone")
            let after = try await store.changes(owner: "alice", after: 0, limit: 100).changes.count
            try expectEqual(after, before, "no change logged")
        },
        ContractCase("filters: eq, ne, ranges, in, prefix, nulls and meta fields") { store in
            let rows: [Item] = [
                Item(name: "apple", rank: 1, tag: "fruit", done: true),
                Item(name: "apricot", rank: 2, tag: "fruit", done: false),
                Item(name: "banana", rank: 3, tag: nil, done: nil),
                Item(name: "beet", rank: nil, tag: "veg", done: true),
            ]
            for row in rows { _ = try await store.insert(row, into: items, id: row.name, owner: "alice") }
            _ = try await store.insert(Item(name: "apple-bob", rank: 1, tag: "fruit"), into: items, owner: "bob")
            func names(_ filters: [Filter]) async throws -> [String] {
                try await store.query(RecordQuery(collection: items, owner: "alice", filters: filters,
                                                  order: [SortKey("name")]))
                    .records.map { try $0.decode(Item.self).name }
            }
            try expectEqual(try await names([Filter("tag", .eq, .string("fruit"))]), ["apple", "apricot"], "eq")
            try expectEqual(try await names([Filter("tag", .eq, .null)]), ["banana"], "eq null")
            try expectEqual(try await names([Filter("tag", .ne, .string("fruit"))]), ["banana", "beet"], "ne (null included)")
            try expectEqual(try await names([Filter("rank", .gt, .number(1))]), ["apricot", "banana"], "gt skips null")
            try expectEqual(try await names([Filter("rank", .lte, .number(2))]), ["apple", "apricot"], "lte")
            try expectEqual(try await names([Filter("rank", .lt, .number(2)), Filter("done", .eq, .bool(true))]), ["apple"], "and")
            try expectEqual(try await names([Filter("tag", .in, .array([.string("veg"), .string("nut")]))]), ["beet"], "in")
            try expectEqual(try await names([Filter("name", .prefix, .string("ap"))]), ["apple", "apricot"], "prefix")
            try expectEqual(try await names([Filter("done", .eq, .bool(false))]), ["apricot"], "bool")
            try expectEqual(try await names([Filter("@id", .eq, .string("beet"))]), ["beet"], "meta @id")
            try expectEqual(try await names([Filter("@version", .eq, .number(1))]).count, 4, "meta @version")
        },
        ContractCase("contains: an array field holding a value") { store in
            struct Tagged: Codable { var tags: [String]?; var tag: String? }
            _ = try await store.insert(Tagged(tags: ["a", "b"]), into: items, id: "ab", owner: "alice")
            _ = try await store.insert(Tagged(tags: ["b"]), into: items, id: "b", owner: "alice")
            _ = try await store.insert(Tagged(tags: nil, tag: "a"), into: items, id: "scalar", owner: "alice")
            _ = try await store.insert(Tagged(tags: ["a"]), into: items, id: "bobs", owner: "bob")
            func ids(_ value: String) async throws -> [String] {
                try await store.query(RecordQuery(collection: items, owner: "alice", filters: [Filter("tags", .contains, .string(value))]))
                    .records.map(\.id)
            }
            try expectEqual(try await ids("a"), ["ab"], "a")
            try expectEqual(try await ids("b"), ["ab", "b"], "b")
            try expectEqual(try await ids("c"), [], "c")
        },
        ContractCase("order and cursor pages cover every record once, ties broken by id") { store in
            // 23 records, ranks with ties and nulls.
            for index in 0..<23 {
                let rank: Double? = index % 5 == 0 ? nil : Double(index % 4)
                _ = try await store.insert(Item(name: "n\(index)", rank: rank), into: items,
                                           id: String(format: "id%02d", index), owner: "alice")
            }
            for descending in [false, true] {
                let order = [SortKey("rank", descending: descending)]
                let all = try await store.query(RecordQuery(collection: items, owner: "alice", order: order, limit: 100)).records
                try expectEqual(all.count, 23, "one page holds all")
                var paged: [String] = []
                var cursor: String?
                var pages = 0
                repeat {
                    let page = try await store.query(RecordQuery(collection: items, owner: "alice", order: order, limit: 7, cursor: cursor))
                    paged += page.records.map(\.id)
                    cursor = page.nextCursor
                    pages += 1
                } while cursor != nil && pages < 10
                try expectEqual(pages, 4, "pages of 7 for 23 records")
                try expectEqual(paged, all.map(\.id), "pages match the single query (descending: \(descending))")
                let ranks = try all.map { try $0.decode(Item.self).rank }
                let nulls = ranks.filter { $0 == nil }.count
                try expectEqual(nulls, 5, "null ranks")
                if descending {
                    try expect(ranks.suffix(5).allSatisfy { $0 == nil }, "nulls last when descending")
                    try expect(ranks.prefix(18).map { $0 ?? 0 } == ranks.prefix(18).map { $0 ?? 0 }.sorted(by: >), "descending")
                } else {
                    try expect(ranks.prefix(5).allSatisfy { $0 == nil }, "nulls first when ascending")
                    try expect(ranks.suffix(18).map { $0 ?? 0 } == ranks.suffix(18).map { $0 ?? 0 }.sorted(), "ascending")
                }
                // Ties in rank come out in id order.
                for (a, b) in zip(all, all.dropFirst()) where try a.decode(Item.self).rank == b.decode(Item.self).rank {
                    try expect(a.id < b.id, "tie broken by id: \(a.id) before \(b.id)")
                }
            }
        },
        ContractCase("queries see only the owner's records; a nil owner sees all") { store in
            _ = try await store.insert(Item(name: "a"), into: items, owner: "alice")
            _ = try await store.insert(Item(name: "b"), into: items, owner: "bob")
            let alice = try await store.query(RecordQuery(collection: items, owner: "alice"))
            try expectEqual(alice.records.map(\.owner), ["alice"], "alice's")
            let all = try await store.query(RecordQuery(collection: items, owner: nil))
            try expectEqual(all.records.count, 2, "all owners")
        },
        ContractCase("unique indexes: global across owners, per owner within one") { store in
            try await store.declare(CollectionSchema(name: "contract.users", indexes: [
                IndexSpec(name: "username", fields: ["name"], unique: true, scope: .global),
                IndexSpec(name: "tag", fields: ["tag"], unique: true, scope: .perOwner),
            ]))
            try await store.declare(CollectionSchema(name: "contract.users", indexes: [
                IndexSpec(name: "username", fields: ["name"], unique: true, scope: .global),
            ]))  // declaring again is harmless
            _ = try await store.insert(Item(name: "ann", tag: "t"), into: "contract.users", owner: "alice")
            try await expectError(.conflict, "same name, other owner", details: ["index": "username"]) {
                try await store.insert(Item(name: "ann"), into: "contract.users", owner: "bob")
            }
            _ = try await store.insert(Item(name: "bea", tag: "t"), into: "contract.users", owner: "bob")
            try await expectError(.conflict, "same tag, same owner", details: ["index": "tag"]) {
                try await store.insert(Item(name: "cid", tag: "t"), into: "contract.users", owner: "alice")
            }
            _ = try await store.insert(Item(name: "dan"), into: "contract.users", owner: "alice")
            _ = try await store.insert(Item(name: "eve"), into: "contract.users", owner: "alice")  // null tags never clash
            let users = try await store.query(RecordQuery(collection: "contract.users", owner: nil)).records
            try expectEqual(users.count, 4, "users stored")
            try await expectError(.conflict, "unique index over existing duplicates") {
                try await store.declare(CollectionSchema(name: "contract.items2", indexes: []))
                _ = try await store.insert(Item(name: "same"), into: "contract.items2", owner: "alice")
                _ = try await store.insert(Item(name: "same"), into: "contract.items2", owner: "alice")
                try await store.declare(CollectionSchema(name: "contract.items2", indexes: [
                    IndexSpec(name: "name", fields: ["name"], unique: true),
                ]))
            }
        },
        ContractCase("an idempotent batch runs once; the key cannot be reused for another request") { store in
            let claim = IdempotencyClaim(owner: "alice", scope: "contract.create", key: "k1", fingerprint: "f1")
            let batch = WriteBatch([.insert(collection: items, id: nil, owner: "alice",
                                            data: try JSONDocument(encoding: Item(name: "once")))], idempotency: claim)
            let first = try await store.write(batch)
            let second = try await store.write(batch)
            try expect(!first.replayed && second.replayed, "second run is a replay")
            try expectEqual(second.records.first??.id, first.records.first??.id, "same record returned")
            let stored = try await store.query(RecordQuery(collection: items, owner: "alice")).records
            try expectEqual(stored.count, 1, "one record written")
            var other = claim
            other.fingerprint = "f2"
            try await expectError(.conflict, "key reused with another request") {
                try await store.write(WriteBatch(batch.operations, idempotency: other))
            }
            var bobs = claim
            bobs.owner = "bob"
            let bob = try await store.write(WriteBatch([.insert(collection: items, id: nil, owner: "bob",
                                                                data: try JSONDocument(encoding: Item(name: "b")))], idempotency: bobs))
            try expect(!bob.replayed, "keys are per owner")
        },
        ContractCase("every write appends to the owner's change log in sequence") { store in
            let a = try await store.insert(Item(name: "a"), into: items, owner: "alice")
            _ = try await store.insert(Item(name: "b"), into: items, owner: "bob")
            _ = try await store.replace(Item(name: "a2"), in: items, id: a.id, owner: "alice")
            try await store.delete(from: items, id: a.id, owner: "alice")
            let page = try await store.changes(owner: "alice", after: 0, limit: 100)
            try expectEqual(page.changes.map(\.kind), [.insert, .replace, .delete], "kinds")
            try expectEqual(page.changes.map(\.version), [1, 2, 3], "versions")
            try expect(zip(page.changes, page.changes.dropFirst()).allSatisfy { $0.sequence < $1.sequence }, "increasing")
            try expect(page.changes.allSatisfy { $0.recordID == a.id }, "only alice's record")
            let rest = try await store.changes(owner: "alice", after: page.changes[0].sequence, limit: 1)
            try expectEqual(rest.changes.map(\.kind), [.replace], "after a sequence, limited")
            try expect(rest.hasMore, "more follow")
        },
        ContractCase("bad input is refused with 'invalid'") { store in
            try await expectError(.invalid, "bad collection") {
                try await store.query(RecordQuery(collection: "Bad Name", owner: "alice"))
            }
            try await expectError(.invalid, "limit 0") {
                try await store.query(RecordQuery(collection: items, owner: "alice", limit: 0))
            }
            try await expectError(.invalid, "field with a quote") {
                try await store.query(RecordQuery(collection: items, owner: "alice", filters: [Filter("a'b", .eq, .null)]))
            }
            try await expectError(.invalid, "cursor not from this query") {
                try await store.query(RecordQuery(collection: items, owner: "alice", cursor: "garbage"))
            }
            try await expectError(.invalid, "payload not an object") {
                try await store.insert([1, 2], into: items, owner: "alice")
            }
            try await expectError(.invalid, "bad id") {
                try await store.insert(Item(name: "x"), into: items, id: "has space", owner: "alice")
            }
        },
    ]
}

/// The behaviour of every ``BlobStore``.
public enum BlobStoreContract {
    public static let cases: [ContractCase<any BlobStore>] = [
        ContractCase("put returns the SHA-256 address; get returns the bytes") { store in
            let reference = try await store.put(Data("abc".utf8))
            try expectEqual(reference.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 of abc")
            try expectEqual(reference.size, 3, "size")
            try expectEqual(try await store.get(reference.sha256), Data("abc".utf8), "bytes")
            try expectEqual(try await store.stat(reference.sha256), reference, "stat")
        },
        ContractCase("the same bytes stored twice give one blob") { store in
            let first = try await store.put(Data(repeating: 7, count: 1000))
            let second = try await store.put(Data(repeating: 7, count: 1000))
            try expectEqual(first, second, "same reference")
        },
        ContractCase("missing blobs: get fails with not_found, stat is nil, delete says false") { store in
            let missing = String(repeating: "0", count: 64)
            try await expectError(.notFound, "get missing") { try await store.get(missing) }
            try expect(try await store.stat(missing) == nil, "stat missing")
            try expect(try await store.delete(missing) == false, "delete missing")
        },
        ContractCase("delete removes a blob") { store in
            let reference = try await store.put(Data("gone".utf8))
            try expect(try await store.delete(reference.sha256), "delete existing")
            try await expectError(.notFound, "get deleted") { try await store.get(reference.sha256) }
        },
    ]
}

/// Blob fields: which blobs records hold, and which a write lets go of. Runs on every record store,
/// the bus included (``WriteResult/releasedBlobs`` crosses it).
public enum BlobFieldContract {
    struct Photo: Codable {
        var title: String
        var photo: String?
        var back: String?
    }

    static let photos = "contract.photos"
    static let a = String(repeating: "a", count: 64)
    static let b = String(repeating: "b", count: 64)
    static let c = String(repeating: "c", count: 64)

    static func declare(_ store: any RecordStore) async throws {
        try await store.declare(CollectionSchema(name: photos, blobFields: ["photo", "back"]))
    }

    static func release(_ store: any RecordStore, _ operation: WriteOperation) async throws -> [String] {
        try await store.write(WriteBatch([operation])).releasedBlobs
    }

    static func replace(_ id: String, _ value: Photo) throws -> WriteOperation {
        .replace(collection: photos, id: id, owner: "alice", data: try JSONDocument(encoding: value), expectedVersion: nil)
    }

    public static let cases: [ContractCase<any RecordStore>] = [
        ContractCase("replacing a record's blob releases the old one; a blob another record holds is kept") { store in
            try await declare(store)
            _ = try await store.insert(Photo(title: "one", photo: a, back: b), into: photos, id: "one", owner: "alice")
            _ = try await store.insert(Photo(title: "two", photo: b), into: photos, id: "two", owner: "bob")
            try expectEqual(try await release(store, replace("one", Photo(title: "one", photo: c, back: b))), [a], "a let go")
            try expectEqual(try await release(store, replace("one", Photo(title: "one", photo: c))), [], "b still held by two")
            try expectEqual(try await store.write(WriteBatch([.delete(collection: photos, id: "two", owner: "bob", expectedVersion: nil)]))
                .releasedBlobs, [b], "b let go with the last record holding it")
        },
        ContractCase("deleting a record releases every blob it held; a failed batch releases nothing") { store in
            try await declare(store)
            _ = try await store.insert(Photo(title: "x", photo: a, back: b), into: photos, id: "x", owner: "alice")
            try await expectError(.notFound, "a batch that fails") {
                try await store.write(WriteBatch([
                    .delete(collection: photos, id: "x", owner: "alice", expectedVersion: nil),
                    .delete(collection: photos, id: "missing", owner: "alice", expectedVersion: nil),
                ]))
            }
            try expectEqual(try await store.write(WriteBatch([.delete(collection: photos, id: "x", owner: "alice", expectedVersion: nil)]))
                .releasedBlobs, [a, b], "both released")
        },
        ContractCase("a blob moved from one record to another in one batch is not released") { store in
            try await declare(store)
            _ = try await store.insert(Photo(title: "from", photo: a), into: photos, id: "from", owner: "alice")
            let result = try await store.write(WriteBatch([
                .delete(collection: photos, id: "from", owner: "alice", expectedVersion: nil),
                .insert(collection: photos, id: "to", owner: "alice", data: try JSONDocument(encoding: Photo(title: "to", photo: a))),
            ]))
            try expectEqual(result.releasedBlobs, [], "still held")
        },
        ContractCase("a blob field holds a SHA-256 or null, nothing else") { store in
            try await declare(store)
            try await expectError(.invalid, "not a hash", details: ["field": "photo"]) {
                try await store.insert(Photo(title: "x", photo: "cat.jpg"), into: photos, owner: "alice")
            }
            _ = try await store.insert(Photo(title: "no photo"), into: photos, owner: "alice")
        },
        ContractCase("collections without blob fields release nothing") { store in
            try await store.declare(CollectionSchema(name: "contract.plain"))
            let record = try await store.insert(Photo(title: "x", photo: a), into: "contract.plain", owner: "alice")
            try expectEqual(try await store.write(WriteBatch([
                .delete(collection: "contract.plain", id: record.id, owner: "alice", expectedVersion: nil),
            ])).releasedBlobs, [], "not a blob field")
        },
    ]

    /// Backends answer which blobs are held (what garbage collection asks).
    public static let holdsCases: [ContractCase<any RecordStore & BlobHolds>] = [
        ContractCase("heldBlobs names the blobs some record's blob field holds") { store in
            try await declare(store)
            _ = try await store.insert(Photo(title: "x", photo: a, back: b), into: photos, id: "x", owner: "alice")
            try expectEqual(try await store.heldBlobs(among: [a, b, c]), [a, b], "held")
            _ = try await store.replace(Photo(title: "x", photo: nil, back: b), in: photos, id: "x", owner: "alice")
            try expectEqual(try await store.heldBlobs(among: [a, b, c]), [b], "after replace")
            try expectEqual(try await store.heldBlobs(among: []), [], "none asked")
        },
    ]
}

/// Garbage collection's side of a blob store: a blob put since the cut-off is never collected.
public enum BlobCollectingContract {
    public static let cases: [ContractCase<any BlobCollecting>] = [
        ContractCase("collect deletes a blob not put since the cut-off, and keeps one that was") { store in
            let old = try await store.put(Data("old".utf8))
            let later = Date().addingTimeInterval(60)
            try expect(try await store.collect(old.sha256, unlessPutSince: Date().addingTimeInterval(-60)) == false, "put after the cut-off: kept")
            try expectEqual(try await store.blobs(putBefore: later), [old.sha256], "listed as put before")
            try expect(try await store.collect(old.sha256, unlessPutSince: later), "collected")
            try await expectError(.notFound, "gone") { try await store.get(old.sha256) }
            try expect(try await store.collect(old.sha256, unlessPutSince: later) == false, "already gone")
        },
        ContractCase("putting the same bytes again renews the put time") { store in
            let first = try await store.put(Data("again".utf8))
            let between = Date()
            try await Task.sleep(for: .milliseconds(20))
            _ = try await store.put(Data("again".utf8))
            try expect(try await store.collect(first.sha256, unlessPutSince: between) == false, "renewed: kept")
            try expectEqual(try await store.blobs(putBefore: between), [], "not listed as old")
        },
    ]
}
