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
