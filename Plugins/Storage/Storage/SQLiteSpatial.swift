import Foundation
import GRDB
import StorageAPI

/// Spatial indexes in SQLite: an R*Tree over every indexed record's point, with a plain table that
/// maps it to the record. The R*Tree keeps 32-bit floats rounded outward, so it only finds
/// candidates; the exact position (in `spatial_points`) decides, through ``SpatialRules/select``.
public enum SQLiteSpatial {
    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE spatial_points (
                pk INTEGER PRIMARY KEY,
                collection TEXT NOT NULL,
                id TEXT NOT NULL,
                owner TEXT NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                UNIQUE (collection, id)
            );
            CREATE VIRTUAL TABLE spatial_rtree USING rtree(pk, south, north, west, east);
            """)
    }

    /// Indexes a collection's records afresh (a spatial index declared, or declared on other fields).
    static func rebuild(_ db: Database, collection: String, spec: SpatialIndexSpec?) throws {
        try db.execute(sql: "DELETE FROM spatial_rtree WHERE pk IN (SELECT pk FROM spatial_points WHERE collection = ?)", arguments: [collection])
        try db.execute(sql: "DELETE FROM spatial_points WHERE collection = ?", arguments: [collection])
        guard let spec else { return }
        let rows = try Row.fetchCursor(db, sql: "SELECT id, owner, data FROM records WHERE collection = ?", arguments: [collection])
        while let row = try rows.next() {
            let data = try JSONDocument(trustedBytes: row[2] as Data).parsed()
            if let point = SpatialRules.point(spec, data) { try insert(db, collection: collection, id: row[0], owner: row[1], point: point) }
        }
    }

    static func insert(_ db: Database, collection: String, id: String, owner: String, point: GeoPoint) throws {
        try db.cachedStatement(sql: "INSERT INTO spatial_points(collection, id, owner, latitude, longitude) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [collection, id, owner, point.latitude, point.longitude])
        try db.cachedStatement(sql: "INSERT INTO spatial_rtree(pk, south, north, west, east) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [db.lastInsertedRowID, point.latitude, point.latitude, point.longitude, point.longitude])
    }

    static func delete(_ db: Database, collection: String, id: String) throws {
        guard let pk = try Int64.fetchOne(db.cachedStatement(sql: "SELECT pk FROM spatial_points WHERE collection = ? AND id = ?"),
                                          arguments: [collection, id]) else { return }
        try db.cachedStatement(sql: "DELETE FROM spatial_rtree WHERE pk = ?").execute(arguments: [pk])
        try db.cachedStatement(sql: "DELETE FROM spatial_points WHERE pk = ?").execute(arguments: [pk])
    }

    /// Keeps the index in step with one operation of a batch, in its transaction.
    static func apply(_ db: Database, _ operation: WriteOperation, record: StorageAPI.Record?, point: GeoPoint?) throws {
        switch operation {
        case .insert: break
        case .replace, .delete: if let id = operation.id { try delete(db, collection: operation.collection, id: id) }
        }
        if let record, let point { try insert(db, collection: record.collection, id: record.id, owner: record.owner, point: point) }
    }

    /// The candidates in one box: the R*Tree first (CROSS JOIN fixes the order; left to itself the
    /// planner scanned the collection's points and probed the tree for each, 50 times slower).
    public static func candidatesSQL(owned: Bool) -> String {
        """
        SELECT p.id, p.latitude, p.longitude FROM spatial_rtree r CROSS JOIN spatial_points p ON p.pk = r.pk
        WHERE r.south <= ? AND r.north >= ? AND r.west <= ? AND r.east >= ? AND p.collection = ?\(owned ? " AND p.owner = ?" : "")
        """
    }

    static func query(_ db: Database, _ query: SpatialQuery, boxes: [GeoBox], from origin: GeoPoint,
                      radius: Double?) throws -> SpatialResult {
        let statement = try db.cachedStatement(sql: candidatesSQL(owned: query.owner != nil))
        var candidates: [(id: String, point: GeoPoint, item: String)] = []
        for box in boxes {
            var arguments: StatementArguments = [box.north, box.south, box.east, box.west, query.collection]
            if let owner = query.owner { arguments += [owner] }
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try rows.next() {
                let id: String = row[0]
                candidates.append((id, GeoPoint(latitude: row[1], longitude: row[2]), id))
            }
        }
        let chosen = SpatialRules.select(candidates, query: query, from: origin, radius: radius)
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
