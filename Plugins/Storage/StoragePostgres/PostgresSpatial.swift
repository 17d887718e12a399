import Foundation
import Logging
import PostgresNIO
import StorageAPI

/// Spatial indexes on PostgreSQL: each point as earthdistance's `earth` (a `cube` in 3D, so the
/// ±180° meridian and the poles need no special case), one GiST index per collection. The index
/// finds candidates nearest first (`<->`, the chord, in the same order as the great circle); the
/// contract's distances, the radius check and the order of ties are then the same great-circle
/// arithmetic as every other backend's (``SpatialRules``).
enum PostgresSpatial {
    /// Candidates fetched past the limit, so that ties at the limit are ordered by id as elsewhere.
    static let extra = 64
    /// earthdistance's earth radius (its `earth()`), in which `earth_box` takes a radius.
    static let earthdistanceRadius = 6_378_168.0

    static func indexName(_ collection: String) -> String {
        PostgresSQL.indexName(collection: collection, index: "points")
    }

    /// Indexes every record of `collection` again for `spec` (or drops its points when nil).
    static func rebuild(_ connection: PostgresConnection, collection: String, spec: SpatialIndexSpec?, logger: Logger) async throws {
        try await connection.query("DELETE FROM points WHERE collection = \(collection)", logger: logger)
        guard let spec else { return }
        try await ensureIndexes(connection, collection: collection, logger: logger)
        let latitude = path(spec.latitude)
        let longitude = path(spec.longitude)
        var binds = PostgresBindings()
        binds.append(collection)
        try await connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO points (collection, id, owner, latitude, longitude, position)
            SELECT collection, id, owner, latitude, longitude, ll_to_earth(latitude, longitude) FROM (
                SELECT collection, id, owner, (data #> '\(latitude)')::float8 AS latitude, (data #> '\(longitude)')::float8 AS longitude
                FROM records WHERE collection = $1
                AND jsonb_typeof(data #> '\(latitude)') = 'number' AND jsonb_typeof(data #> '\(longitude)') = 'number'
            ) AS found WHERE latitude BETWEEN -90 AND 90 AND longitude BETWEEN -180 AND 180
            """, binds: binds), logger: logger)
    }

    /// A collection's two GiST indexes: everyone's points (pinned notebooks nearby), and each
    /// owner's (their photos near a place), owner first.
    static func ensureIndexes(_ connection: PostgresConnection, collection: String, logger: Logger) async throws {
        let only = "WHERE collection = \(PostgresSQL.literal(collection))"
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(indexName(collection)) ON points USING gist (position) \(only)"),
                                   logger: logger)
        let byOwner = PostgresSQL.indexName(collection: collection, index: "owner_points")
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(byOwner) ON points USING gist (owner, position) \(only)"),
                                   logger: logger)
    }

    /// A payload path as a `#>` path literal (from a validated field name).
    private static func path(_ field: String) -> String {
        "{" + field.split(separator: ".").joined(separator: ",") + "}"
    }

    /// Keeps a collection's points in step with one write, in its transaction.
    static func follow(_ connection: PostgresConnection, _ operation: WriteOperation, record: StorageAPI.Record?,
                       spec: SpatialIndexSpec, logger: Logger) async throws {
        let collection = operation.collection
        guard let record, let data = operation.data, let point = SpatialRules.point(spec, try data.parsed()) else {
            if let id = record?.id ?? operation.id {
                try await connection.query("DELETE FROM points WHERE collection = \(collection) AND id = \(id)", logger: logger)
            }
            return
        }
        try await insert(connection, [(record, point)], logger: logger)
    }

    /// Writes the points of records (new or replaced), in one statement.
    static func insert(_ connection: PostgresConnection, _ points: [(record: StorageAPI.Record, point: GeoPoint)], logger: Logger) async throws {
        guard !points.isEmpty else { return }
        var statement = Statement()
        let columns = [statement.bindArray(points.map(\.record.collection)), statement.bindArray(points.map(\.record.id)),
                       statement.bindArray(points.map(\.record.owner)), statement.bindArray(points.map(\.point.latitude)),
                       statement.bindArray(points.map(\.point.longitude))]
        statement.append("""
            INSERT INTO points (collection, id, owner, latitude, longitude, position)
            SELECT c, i, o, la, lo, ll_to_earth(la, lo) FROM unnest(\(columns.joined(separator: ", "))) AS u(c, i, o, la, lo)
            ON CONFLICT (collection, id) DO UPDATE SET owner = excluded.owner, latitude = excluded.latitude,
                longitude = excluded.longitude, position = excluded.position
            """)
        try await connection.query(statement.query, logger: logger)
    }

    /// Candidates nearest the area's centre first: within the radius's bounding cube, or inside the box.
    static func select(_ query: SpatialQuery, area: (boxes: [GeoBox], from: GeoPoint, radius: Double?)) -> Statement {
        var statement = Statement()
        let latitude = statement.bind(area.from.latitude)
        let longitude = statement.bind(area.from.longitude)
        let centre = "ll_to_earth(\(latitude)::float8, \(longitude)::float8)"
        var conditions = ["p.collection = \(PostgresSQL.literal(query.collection))"]
        if let owner = query.owner { conditions.append("p.owner = \(statement.bind(owner))") }
        if let radius = area.radius {
            // A little larger: the exact great-circle check follows.
            let reach = statement.bind(radius / SpatialRules.earthRadius * earthdistanceRadius * 1.001 + 1)
            conditions.append("earth_box(\(centre), \(reach)::float8) @> p.position")
        } else {
            let boxes = area.boxes.map { box in
                "(p.latitude BETWEEN \(statement.bind(box.south))::float8 AND \(statement.bind(box.north))::float8 "
                    + "AND p.longitude BETWEEN \(statement.bind(box.west))::float8 AND \(statement.bind(box.east))::float8)"
            }
            conditions.append("(" + boxes.joined(separator: " OR ") + ")")
        }
        let limit = statement.bind(Int64(query.limit + extra))
        // The nearest points are picked alone and only they are joined to their records: where an
        // owner has thousands of points inside the area, PostgreSQL may collect them all before
        // ordering, and joining each first was most of a query (17 ms of 18, a million geotags).
        statement.append("""
            SELECT r.collection, r.id, r.owner, r.version, r.created_at, r.updated_at, r.data::text, p.latitude, p.longitude
            FROM (
                SELECT p.collection, p.id, p.latitude, p.longitude FROM points p
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY p.position <-> \(centre) LIMIT \(limit)
            ) p JOIN records r ON r.collection = p.collection AND r.id = p.id
            """)
        return statement
    }

    /// The hits: great-circle distances, inside the radius, nearest first and ties by id, at most `limit`.
    static func answer(_ candidates: [(StorageAPI.Record, GeoPoint)], area: (boxes: [GeoBox], from: GeoPoint, radius: Double?),
                       limit: Int) -> SpatialResult {
        var hits: [SpatialHit] = []
        for (record, point) in candidates {
            let distance = SpatialRules.distance(area.from, point)
            if let radius = area.radius, distance > radius { continue }
            hits.append(SpatialHit(record: record, distanceMeters: distance))
        }
        hits.sort { (a: SpatialHit, b: SpatialHit) -> Bool in
            a.distanceMeters != b.distanceMeters ? a.distanceMeters < b.distanceMeters : a.record.id < b.record.id
        }
        return SpatialResult(hits: Array(hits.prefix(limit)))
    }
}
