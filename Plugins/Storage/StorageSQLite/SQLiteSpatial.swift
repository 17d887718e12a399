import Foundation
import GRDB
import StorageAPI

/// Spatial indexes in SQLite. Each indexed record has a row in `spatial_points` (owner, exact
/// position; an index by collection, owner and latitude) and an entry in its collection's R*Tree
/// (`spatial_tree_N`, the point's box only). A circle or box is answered one of two ways:
///
/// - an owner's query from the points table: that owner's rows in the area's latitude band, by
///   index — always for an owner with few points in the collection
///   (`SQLiteSearchTuning.spatialSmallOwner`), and for a bigger one when the band holds at most
///   `SQLiteSearchTuning.spatialOwnerBandCap` of theirs (not a big owner's band around a city they
///   photographed a hundred thousand times);
/// - everyone, or an owner crowding the band, from the tree: candidates with their box
///   coordinates only (stored in the tree's nodes, no row lookup), ordered by an approximate
///   distance (the tree's 32-bit floats are within 2 m of the point), then looked up exactly in
///   that order until the nearest `limit` are certain.
///
/// Either way the exact positions decide, through ``SpatialRules/select``.
public enum SQLiteSpatial {
    /// Farther than the tree's rounding can move a point, in metres.
    static let margin = 5.0

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
            CREATE INDEX spatial_points_by_owner ON spatial_points(collection, owner, latitude, longitude, id);
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
        try db.execute(sql: "CREATE VIRTUAL TABLE \(table(number)) USING rtree(pk, south, north, west, east)")
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
        try db.cachedStatement(sql: "INSERT INTO spatial_points(collection, id, owner, latitude, longitude) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [collection, id, owner, point.latitude, point.longitude])
        try db.cachedStatement(sql: "INSERT INTO \(tree)(pk, south, north, west, east) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [db.lastInsertedRowID, point.latitude, point.latitude, point.longitude, point.longitude])
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

    /// A box's candidates from the tree alone: their point boxes, no row lookups.
    public static func treeSQL(tree: String) -> String {
        "SELECT pk, south, north, west, east FROM \(tree) WHERE south <= ? AND north >= ? AND west <= ? AND east >= ?"
    }

    /// An owner's points in a latitude band, by index (longitudes are checked as the rows come).
    public static let ownerSQL = """
        SELECT id, latitude, longitude FROM spatial_points
        WHERE collection = ? AND owner = ? AND latitude BETWEEN ? AND ? LIMIT ?
        """

    typealias Candidate = (id: String, point: GeoPoint, item: String)

    static func query(_ db: Database, tree: String, _ query: SpatialQuery, boxes: [GeoBox], from origin: GeoPoint,
                      radius: Double?, smallOwner: Int, ownerBandCap: Int) throws -> SpatialResult {
        let small = try query.owner.map { owner in
            try pointCount(db, collection: query.collection, owner: owner, upTo: smallOwner + 1) <= smallOwner
        } ?? false
        func nearest(_ boxes: [GeoBox], _ radius: Double?) throws -> [(item: String, distance: Double)] {
            if let owner = query.owner {
                // An owner's own points by index: all of a small owner's; a big owner's unless their band is crowded.
                if let band = try ownerCandidates(db, query.collection, owner, boxes, cap: small ? nil : ownerBandCap) {
                    return SpatialRules.select(band, query: query, from: origin, radius: radius)
                }
            }
            return try nearestFromTree(db, tree: tree, query, boxes: boxes, from: origin, radius: radius)
        }
        var chosen: [(item: String, distance: Double)]
        if let radius {
            // In steps — a sixteenth of the radius, a quarter, all of it — stopping at the first step
            // whose own circle holds `limit` points: they are the nearest, and a dense city's
            // thousands of candidates a full radius would read are never touched.
            chosen = []
            for step in [radius / 16, radius / 4, radius] where step == radius || step >= 100 {
                chosen = try nearest(step == radius ? boxes : SpatialRules.boxes(around: origin, radiusMeters: step), step)
                if chosen.count >= query.limit { break }
            }
        } else {
            chosen = try nearest(boxes, nil)
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

    /// How many points `owner` has in the collection, counting no further than `limit`.
    static func pointCount(_ db: Database, collection: String, owner: String, upTo limit: Int) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM (SELECT 1 FROM spatial_points WHERE collection = ? AND owner = ? LIMIT ?)
            """), arguments: [collection, owner, limit]) ?? 0
    }

    /// The owner's points in the boxes, by index; nil when a box's latitude band holds more than
    /// `cap` of theirs. Each band's entries are read once: the longitude is checked here, and the
    /// read stops one entry past the cap.
    static func ownerCandidates(_ db: Database, _ collection: String, _ owner: String, _ boxes: [GeoBox], cap: Int?) throws -> [Candidate]? {
        let statement = try db.cachedStatement(sql: ownerSQL)
        var found: [Candidate] = []
        for box in boxes {
            let rows = try Row.fetchCursor(statement, arguments: [collection, owner, box.south, box.north, cap.map { $0 + 1 } ?? -1])
            var read = 0
            while let row = try rows.next() {
                read += 1
                if let cap, read > cap { return nil }
                let longitude: Double = row[2]
                guard longitude >= box.west, longitude <= box.east else { continue }
                let id: String = row[0]
                found.append((id, GeoPoint(latitude: row[1], longitude: longitude), id))
            }
        }
        return found
    }

    /// The nearest `limit` in the area from the tree: approximate distances for every candidate,
    /// then exact rows in that order until no unread candidate can be nearer than the last kept.
    static func nearestFromTree(_ db: Database, tree: String, _ query: SpatialQuery, boxes: [GeoBox], from origin: GeoPoint,
                                radius: Double?) throws -> [(item: String, distance: Double)] {
        let statement = try db.cachedStatement(sql: treeSQL(tree: tree))
        var approximate: [(pk: Int64, distance: Double)] = []
        for box in boxes {
            let rows = try Row.fetchCursor(statement, arguments: [box.north, box.south, box.east, box.west])
            while let row = try rows.next() {
                let point = GeoPoint(latitude: ((row[1] as Double) + (row[2] as Double)) / 2, longitude: ((row[3] as Double) + (row[4] as Double)) / 2)
                if let box = query.box, !box.contains(point) {
                    // Within the rounding of the box's edge: kept for the exact check.
                    let widened = GeoBox(south: box.south - 1e-4, west: box.west - 1e-4, north: box.north + 1e-4, east: box.east + 1e-4)
                    guard widened.contains(point) else { continue }
                }
                let distance = SpatialRules.distance(origin, point)
                if let radius, distance > radius + margin { continue }
                approximate.append((row[0], distance))
            }
        }
        approximate.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.pk < $1.pk }
        let lookup = try db.cachedStatement(sql: """
            SELECT id, owner, latitude, longitude FROM spatial_points WHERE pk IN (SELECT value FROM json_each(?))
            """)
        var exact: [Candidate] = []
        var start = 0
        var chunk = max(32, query.limit * 2)
        while start < approximate.count {
            let slice = approximate[start..<min(approximate.count, start + chunk)]
            let pks = JSONValue.array(slice.map { .number(Double($0.pk)) }).canonicalJSONText
            let rows = try Row.fetchCursor(lookup, arguments: [pks])
            while let row = try rows.next() {
                if let owner = query.owner, owner != (row[1] as String) { continue }
                let id: String = row[0]
                exact.append((id, GeoPoint(latitude: row[2], longitude: row[3]), id))
            }
            start = slice.endIndex
            chunk = min(chunk * 4, 4096)
            // Enough, once the `limit`-th exact distance is nearer than any unread candidate can be.
            if exact.count >= query.limit, start < approximate.count {
                let kept = SpatialRules.select(exact, query: query, from: origin, radius: radius)
                if let last = kept.last, kept.count >= query.limit, last.distance + margin < approximate[start].distance { break }
            }
        }
        return SpatialRules.select(exact, query: query, from: origin, radius: radius)
    }
}
