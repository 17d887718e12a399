import Foundation
import GRDB
import Storage
import StorageSQLite
import StorageAPI
import Testing

@Suite("SQLite query plans")
struct SQLiteQueryPlanTests {
    struct Item: Codable { var position: String }

    @Test("a page ordered by a declared index is read in index order, without sorting the owner's records")
    func noSortForIndexedOrder() async throws {
        let queue = try DatabaseQueue()
        let store = try SQLiteRecordStore(writer: queue)
        try await store.declare(CollectionSchema(name: "plan.items", indexes: [IndexSpec(name: "position", fields: ["position"])]))
        for index in 0..<50 { _ = try await store.insert(Item(position: "p\(index % 7)"), into: "plan.items", owner: "alice") }
        let plan = try await queue.read { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT id FROM records WHERE collection = 'plan.items' AND owner = 'alice'
                ORDER BY json_extract(data, '$.position'), id LIMIT 11
                """).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX ix_plan_items__position") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    @Test("a spatial query reads the tree's nodes alone, or a small owner's points by index")
    func spatialPlans() async throws {
        let queue = try DatabaseQueue()
        let store = try SQLiteRecordStore(writer: queue)
        try await store.declare(CollectionSchema(name: "plan.places", spatial: SpatialIndexSpec()))
        try await store.declare(CollectionSchema(name: "plan.others", spatial: SpatialIndexSpec()))
        let (treePlan, ownerPlan, trees) = try await queue.read { db in
            let tree = try String.fetchOne(db, sql: "SELECT 'spatial_tree_' || number FROM spatial_trees WHERE collection = 'plan.places'")
                ?? "no tree"
            func plan(_ sql: String, _ arguments: StatementArguments) throws -> [String] {
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            }
            return (try plan(SQLiteSpatial.treeSQL(tree: tree), [1.0, 0.0, 1.0, 0.0]),
                    try plan(SQLiteSpatial.ownerSQL, ["plan.places", "alice", 0.0, 1.0, -1]),
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM spatial_trees") ?? 0)
        }
        #expect(trees == 2, "one tree per collection")
        #expect(treePlan.count == 1 && treePlan.first?.contains("VIRTUAL TABLE INDEX") == true, "\(treePlan)")
        #expect(ownerPlan.count == 1 && ownerPlan.first?.contains("COVERING INDEX spatial_points_by_owner") == true, "\(ownerPlan)")
    }

    struct Photo: Codable { var photo: String?; var job: String? }
    static func sha(_ number: Int) -> String { String(format: "%064x", number) }

    @Test("a blob field's index and a sparse index leave out records without the field; a lookup by value still uses them")
    func sparseIndexes() async throws {
        let queue = try DatabaseQueue()
        let store = try SQLiteRecordStore(writer: queue)
        // A blob index as stores declared it before (every record in it): replaced on the next declaration.
        try await queue.write { db in
            try db.execute(sql: """
                CREATE INDEX ix_plan_photos__blob_photo ON records(json_extract(data, '$.photo'), id) WHERE collection = 'plan.photos'
                """)
        }
        try await store.declare(CollectionSchema(name: "plan.photos", indexes: [IndexSpec(name: "job", fields: ["job"], sparse: true)],
                                                 blobFields: ["photo"]))
        for index in 0..<40 {
            _ = try await store.insert(Photo(photo: index % 10 == 0 ? Self.sha(index) : nil, job: index % 20 == 0 ? "j\(index)" : nil),
                                       into: "plan.photos", owner: "alice")
        }
        let (definitions, plans) = try await queue.read { db in
            let definitions = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('ix_plan_photos__blob_photo', 'ix_plan_photos__job') ORDER BY name")
            // INDEXED BY fails ("no query solution") when the index cannot answer the query.
            func plan(_ sql: String) throws -> [String] {
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
            }
            return (definitions, try plan("""
                SELECT 1 FROM records INDEXED BY ix_plan_photos__blob_photo WHERE collection = 'plan.photos' AND json_extract(data, '$.photo') = '\(Self.sha(10))' LIMIT 1
                """) + plan("""
                SELECT id FROM records INDEXED BY ix_plan_photos__job WHERE collection = 'plan.photos' AND owner = 'alice' AND json_extract(data, '$.job') = 'j20'
                """))
        }
        #expect(definitions.count == 2 && definitions.allSatisfy { $0.hasSuffix("IS NOT NULL") }, "\(definitions)")
        #expect(plans.count == 2 && plans.allSatisfy { $0.contains("USING INDEX") }, "\(plans)")
        #expect(try await store.heldBlobs(among: [Self.sha(10), Self.sha(11), Self.sha(30)]) == [Self.sha(10), Self.sha(30)])
        let page = try await store.query(RecordQuery(collection: "plan.photos", owner: "alice", filters: [Filter("job", .eq, .string("j20"))]))
        #expect(page.records.count == 1)
    }

    @Test("an index declared before sparse existed reads as not sparse; sparse is written only when set")
    func sparseCoding() throws {
        let old = try JSONDecoder().decode(IndexSpec.self, from: Data(#"{"name":"job","fields":["job"],"unique":false,"scope":"perOwner"}"#.utf8))
        #expect(old == IndexSpec(name: "job", fields: ["job"]))
        #expect(!String(decoding: try JSONEncoder().encode(old), as: UTF8.self).contains("sparse"))
        let sparse = IndexSpec(name: "job", fields: ["job"], sparse: true)
        #expect(try JSONDecoder().decode(IndexSpec.self, from: try JSONEncoder().encode(sparse)) == sparse)
    }

    @Test("a covering index answers a page in its order alone (no lookup per row by key), the same page; one declared before it covered is replaced")
    func coveringIndex() async throws {
        let queue = try DatabaseQueue()
        let store = try SQLiteRecordStore(writer: queue)
        // The position index as stores declared it before it was covering.
        try await queue.write { db in
            try db.execute(sql: """
                CREATE INDEX ix_plan_items__position ON records(owner, json_extract(data, '$.position'), id) WHERE collection = 'plan.items'
                """)
        }
        try await store.declare(CollectionSchema(name: "plan.items", indexes: [IndexSpec(name: "position", fields: ["position"], covering: true)]))
        for index in 0..<30 { _ = try await store.insert(Item(position: "p\(index % 7)"), into: "plan.items", owner: index % 3 == 0 ? "bob" : "alice") }
        let (sql, plan) = try await queue.read { db in
            (try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'ix_plan_items__position'"),
             try Row.fetchAll(db, sql: """
                EXPLAIN QUERY PLAN SELECT collection, id, owner, version, created_at, updated_at, data FROM records
                WHERE collection = 'plan.items' AND owner = 'alice' ORDER BY json_extract(data, '$.position'), id LIMIT 11
                """).map { $0["detail"] as String })
        }
        #expect(sql?.hasSuffix("id, version, created_at, updated_at, data) WHERE collection = 'plan.items'") == true, "\(sql ?? "none")")
        #expect(plan.contains { $0.contains("USING COVERING INDEX ix_plan_items__position") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        var cursor: String?
        var pages = 0
        repeat {
            let query = RecordQuery(collection: "plan.items", owner: "alice", order: [SortKey("position")], limit: 4, cursor: cursor)
            let page = try await store.query(query)
            #expect(try await store.queryJSON(query) == RecordJSON.page(page))
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 5, "20 of alice's items in pages of 4")
        // Coded only when set, as sparse: a declaration stored before reads as not covering.
        let plain = IndexSpec(name: "position", fields: ["position"])
        #expect(!String(decoding: try JSONEncoder().encode(plain), as: UTF8.self).contains("covering"))
        let covering = IndexSpec(name: "position", fields: ["position"], covering: true)
        #expect(try JSONDecoder().decode(IndexSpec.self, from: try JSONEncoder().encode(covering)) == covering)
    }

    @Test("re-declaring an index with a new definition replaces it")
    func redeclare() async throws {
        let queue = try DatabaseQueue()
        let store = try SQLiteRecordStore(writer: queue)
        try await queue.write { db in
            try db.execute(sql: "CREATE INDEX ix_plan_items__position ON records(owner) WHERE collection = 'plan.items'")
        }
        try await store.declare(CollectionSchema(name: "plan.items", indexes: [IndexSpec(name: "position", fields: ["position"])]))
        let sql = try await queue.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'ix_plan_items__position'")
        }
        #expect(sql?.contains("json_extract(data, '$.position'), id") == true, "\(sql ?? "none")")
    }
}
