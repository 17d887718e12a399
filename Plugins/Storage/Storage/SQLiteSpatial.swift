import Foundation
import GRDB
import StorageAPI

/// Spatial indexes in SQLite: an R*Tree per collection (`spatial_tree_N`), which holds each point's
/// owner, id and exact position as auxiliary columns, so a query reads the tree alone; and one plain
/// table that finds a record's entry for a replace or delete. The tree's box coordinates are 32-bit
/// floats rounded outward, so it only finds candidates: the exact position decides, through
/// ``SpatialRules/select``.
public enum SQLiteSpatial {
    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE spatial_points (
                pk INTEGER PRIMARY KEY,
                collection TEXT NOT NULL,
                id TEXT NOT NULL,
                UNIQUE (collection, id)
            );
            CREATE TABLE spatial_trees (collection TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE) WITHOUT ROWID;
            """)
    }

    /// Each collection's tree, by name.
    static func trees(_ db: Database) throws -> [String: String] {
        var trees: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT collection, number FROM spatial_trees") {
            trees[row[0]] = table(row[1])
        }
        return trees
    }

    static func table(_ number: Int64) -> String { "spatial_tree_\(number)" }

    /// The collection's tree, made if it has none.
    static func tree(_ db: Database, collection: String) throws -> String {
        if let number = try Int64.fetchOne(db, sql: "SELECT number FROM spatial_trees WHERE collection = ?", arguments: [collection]) {
            return table(number)
        }
        let number = (try Int64.fetchOne(db, sql: "SELECT max(number) FROM spatial_trees") ?? 0) + 1
        try db.execute(sql: "INSERT INTO spatial_trees(collection, number) VALUES (?, ?)", arguments: [collection, number])
        try db.execute(sql: "CREATE VIRTUAL TABLE \(table(number)) USING rtree(pk, south, north, west, east, +owner TEXT, +id TEXT, +latitude REAL, +longitude REAL)")
        return table(number)
    }

    /// Indexes a collection's records afresh (a spatial index declared, or declared on other fields).
    static func rebuild(_ db: Database, collection: String, spec: SpatialIndexSpec?) throws -> String? {
        if let number = try Int64.fetchOne(db, sql: "SELECT number FROM spatial_trees WHERE collection = ?", arguments: [collection]) {
            try db.execute(sql: "DELETE FROM \(table(number))")
        }
        try db.execute(sql: "DELETE FROM spatial_points WHERE collection = ?", arguments: [collection])
        guard let spec else { return nil }
        let tree = try tree(db, collection: collection)
        let rows = try Row.fetchCursor(db, sql: "SELECT id, owner, data FROM records WHERE collection = ?", arguments: [collection])
        while let row = try rows.next() {
            let data = try JSONDocument(trustedBytes: row[2] as Data).parsed()
            if let point = SpatialRules.point(spec, data) {
                try insert(db, tree: tree, collection: collection, id: row[0], owner: row[1], point: point)
            }
        }
        return tree
    }

    static func insert(_ db: Database, tree: String, collection: String, id: String, owner: String, point: GeoPoint) throws {
        try db.cachedStatement(sql: "INSERT INTO spatial_points(collection, id) VALUES (?, ?)").execute(arguments: [collection, id])
        try db.cachedStatement(sql: "INSERT INTO \(tree)(pk, south, north, west, east, owner, id, latitude, longitude) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .execute(arguments: [db.lastInsertedRowID, point.latitude, point.latitude, point.longitude, point.longitude, owner, id,
                                 point.latitude, point.longitude])
    }

    static func delete(_ db: Database, tree: String, collection: String, id: String) throws {
        guard let pk = try Int64.fetchOne(db.cachedStatement(sql: "SELECT pk FROM spatial_points WHERE collection = ? AND id = ?"),
                                          arguments: [collection, id]) else { return }
        try db.cachedStatement(sql: "DELETE FROM \(tree) WHERE pk = ?").execute(arguments: [pk])
        try db.cachedStatement(sql: "DELETE FROM spatial_points WHERE pk = ?").execute(arguments: [pk])
    }

    /// Keeps the index in step with one operation of a batch, in its transaction.
    static func apply(_ db: Database, tree: String, _ operation: WriteOperation, record: StorageAPI.Record?, point: GeoPoint?) throws {
        switch operation {
        case .insert: break
        case .replace, .delete: if let id = operation.id { try delete(db, tree: tree, collection: operation.collection, id: id) }
        }
        if let record, let point { try insert(db, tree: tree, collection: record.collection, id: record.id, owner: record.owner, point: point) }
    }

    /// The candidates in one box, from the tree alone.
    public static func candidatesSQL(tree: String, owned: Bool) -> String {
        "SELECT id, latitude, longitude FROM \(tree) WHERE south <= ? AND north >= ? AND west <= ? AND east >= ?\(owned ? " AND owner = ?" : "")"
    }

    /// A circle is searched in steps — a sixteenth of its radius, a quarter, all of it — and a step
    /// that finds `limit` points inside its own circle ends the search: they are the nearest. Where
    /// points are dense (a city, a million geotags) the first step reads a few hundred candidates
    /// instead of the whole radius' thousands.
    static func query(_ db: Database, tree: String, _ query: SpatialQuery, boxes: [GeoBox], from origin: GeoPoint,
                      radius: Double?) throws -> SpatialResult {
        let statement = try db.cachedStatement(sql: candidatesSQL(tree: tree, owned: query.owner != nil))
        func candidates(_ boxes: [GeoBox]) throws -> [(id: String, point: GeoPoint, item: String)] {
            var found: [(id: String, point: GeoPoint, item: String)] = []
            for box in boxes {
                var arguments: StatementArguments = [box.north, box.south, box.east, box.west]
                if let owner = query.owner { arguments += [owner] }
                let rows = try Row.fetchCursor(statement, arguments: arguments)
                while let row = try rows.next() {
                    let id: String = row[0]
                    found.append((id, GeoPoint(latitude: row[1], longitude: row[2]), id))
                }
            }
            return found
        }
        var chosen: [(item: String, distance: Double)] = []
        if let radius {
            for step in [radius / 16, radius / 4, radius] where step == radius || step >= 100 {
                let stepBoxes = step == radius ? boxes : SpatialRules.boxes(around: origin, radiusMeters: step)
                chosen = SpatialRules.select(try candidates(stepBoxes), query: query, from: origin, radius: step)
                if chosen.count >= query.limit { break }
            }
        } else {
            chosen = SpatialRules.select(try candidates(boxes), query: query, from: origin, radius: nil)
        }
        guard !chosen.isEmpty else { return SpatialResult(hits: []) }
        let ids = JSONValue.array(chosen.map { .string($0.item) }).canonicalJSONText
        var records: [String: StorageAPI.Record] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT \(SQLQueryBuilder.recordColumns) FROM records WHERE collection = ? AND id IN (SELECT value FROM json_each(?))
            """), arguments: [query.collection, ids])
        while let row = try rows.next() {
            let record = SQLiteRecordStore.record(row)
            records[record.id] = record
        }
        return SpatialResult(hits: chosen.compactMap { choice in
            records[choice.item].map { SpatialHit(record: $0, distanceMeters: choice.distance) }
        })
    }
}
