public import Bus
import Foundation

/// A collection's spatial index, declared with it (``CollectionSchema/spatial``): two number fields
/// holding a WGS 84 latitude and longitude in degrees. A record without both, or with a value out of
/// range, is simply not in the index. The SQLite backend keeps an R*Tree; every backend answers a
/// ``SpatialQuery`` with the same exact great-circle filter and order (``SpatialRules``).
public struct SpatialIndexSpec: Codable, Sendable, Hashable {
    public var latitude: String
    public var longitude: String

    public init(latitude: String = "latitude", longitude: String = "longitude") {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A point on the WGS 84 ellipsoid, in degrees.
public struct GeoPoint: Codable, Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether the point exists: latitude in −90…90, longitude in −180…180, both finite.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

/// A latitude/longitude rectangle. `west > east` means the box crosses the ±180° meridian (west of
/// Fiji 177° to east of it −178°).
public struct GeoBox: Codable, Sendable, Hashable {
    public var south: Double
    public var west: Double
    public var north: Double
    public var east: Double

    public init(south: Double, west: Double, north: Double, east: Double) {
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    public var crossesAntimeridian: Bool { west > east }

    public func contains(_ point: GeoPoint) -> Bool {
        guard (south...north).contains(point.latitude) else { return false }
        return crossesAntimeridian ? point.longitude >= west || point.longitude <= east : (west...east).contains(point.longitude)
    }

    /// The box as one or two boxes that do not cross the meridian.
    public var unwrapped: [GeoBox] {
        crossesAntimeridian
            ? [GeoBox(south: south, west: west, north: north, east: 180), GeoBox(south: south, west: -180, north: north, east: east)]
            : [self]
    }

    /// The middle of the box (across the meridian when it crosses it).
    public var center: GeoPoint {
        var longitude = crossesAntimeridian ? (west + east + 360) / 2 : (west + east) / 2
        if longitude > 180 { longitude -= 360 }
        return GeoPoint(latitude: (south + north) / 2, longitude: longitude)
    }
}

/// Records of a collection in an area: within a distance of a point (nearest first), or in a box
/// (nearest its centre first).
public struct SpatialQuery: Codable, Sendable, Hashable {
    public var collection: String
    /// Whose records; `nil` for every owner (plugins that answer across users, e.g. pinned notebooks).
    public var owner: String?
    /// A circle: centre and radius in metres …
    public var center: GeoPoint?
    public var radiusMeters: Double?
    /// … or a box.
    public var box: GeoBox?
    /// 1...1000.
    public var limit: Int

    public static func within(_ radiusMeters: Double, of center: GeoPoint, collection: String, owner: String?, limit: Int = 100) -> SpatialQuery {
        SpatialQuery(collection: collection, owner: owner, center: center, radiusMeters: radiusMeters, box: nil, limit: limit)
    }

    public static func inside(_ box: GeoBox, collection: String, owner: String?, limit: Int = 100) -> SpatialQuery {
        SpatialQuery(collection: collection, owner: owner, center: nil, radiusMeters: nil, box: box, limit: limit)
    }

    public init(collection: String, owner: String?, center: GeoPoint?, radiusMeters: Double?, box: GeoBox?, limit: Int) {
        self.collection = collection
        self.owner = owner
        self.center = center
        self.radiusMeters = radiusMeters
        self.box = box
        self.limit = limit
    }

    public static let maxLimit = 1000

    /// Checks the query; answers the area's boxes that do not cross the meridian, the point distances
    /// are measured from, and the radius (nil for a box).
    public func validatedArea() throws(StorageError) -> (boxes: [GeoBox], from: GeoPoint, radius: Double?) {
        guard StorageNames.isValidCollection(collection) else {
            throw StorageError.invalid("'\(collection)' is not a valid collection name.", field: "collection")
        }
        guard (1...Self.maxLimit).contains(limit) else {
            throw StorageError.invalid("limit must be between 1 and \(Self.maxLimit), not \(limit).", field: "limit")
        }
        switch (center, radiusMeters, box) {
        case (let center?, let radius?, nil):
            guard center.isValid else {
                throw StorageError.invalid("A latitude is −90…90 and a longitude −180…180 degrees.", field: "center")
            }
            guard radius.isFinite, radius >= 0, radius <= SpatialRules.halfCircumference else {
                throw StorageError.invalid("A radius is 0 to 20,015 km.", field: "radius")
            }
            return (SpatialRules.boxes(around: center, radiusMeters: radius), center, radius)
        case (nil, nil, let box?):
            guard GeoPoint(latitude: box.south, longitude: box.west).isValid, GeoPoint(latitude: box.north, longitude: box.east).isValid,
                  box.south <= box.north else {
                throw StorageError.invalid("A box has south ≤ north within −90…90 and west, east within −180…180 (west > east crosses 180°).",
                                           field: "box")
            }
            return (box.unwrapped, box.center, nil)
        default:
            throw StorageError.invalid("A spatial query takes either a centre and a radius, or a box.", field: "area")
        }
    }
}

public struct SpatialHit: Codable, Sendable, Hashable {
    public var record: Record
    /// Great-circle distance from the circle's centre (or the box's), in metres.
    public var distanceMeters: Double

    public init(record: Record, distanceMeters: Double) {
        self.record = record
        self.distanceMeters = distanceMeters
    }
}

public struct SpatialResult: Codable, Sendable, Hashable {
    public var hits: [SpatialHit]
    public init(hits: [SpatialHit]) { self.hits = hits }
}

/// A store that keeps declared spatial indexes.
public protocol RecordSpatialIndexing: Sendable {
    /// The `limit` nearest records in the area, nearest first (ties by id).
    func spatialQuery(_ query: SpatialQuery) async throws(StorageError) -> SpatialResult
}

/// What every backend does the same way: reading a record's point, the distance, the bounding boxes.
public enum SpatialRules {
    /// The mean Earth radius (IUGG), in metres.
    public static let earthRadius = 6_371_008.8
    public static let halfCircumference = Double.pi * earthRadius

    /// The point a record holds in its spatial index's fields, if both are valid numbers.
    public static func point(_ spec: SpatialIndexSpec, _ data: JSONValue) -> GeoPoint? {
        guard case .number(let latitude) = data.value(at: spec.latitude.split(separator: ".")),
              case .number(let longitude) = data.value(at: spec.longitude.split(separator: ".")) else { return nil }
        let point = GeoPoint(latitude: latitude, longitude: longitude)
        return point.isValid ? point : nil
    }

    /// Great-circle distance in metres (haversine on the mean sphere: within 0.5 % of the ellipsoid).
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians
        let dLon = (b.longitude - a.longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// Boxes (none crossing the meridian) that hold every point within `radiusMeters` of `center`
    /// (J. Matuschek, "Finding points within a distance of a latitude/longitude"), a little larger
    /// so that rounding never loses a point on the edge.
    public static func boxes(around center: GeoPoint, radiusMeters: Double) -> [GeoBox] {
        let angular = radiusMeters / earthRadius * 1.000001 + 1e-9
        let latitude = center.latitude * .pi / 180
        let south = (latitude - angular) * 180 / .pi
        let north = (latitude + angular) * 180 / .pi
        if south <= -90 || north >= 90 {
            // A pole is inside: every longitude.
            return [GeoBox(south: max(south, -90), west: -180, north: min(north, 90), east: 180)]
        }
        let deltaLongitude = asin(min(1, sin(angular) / cos(latitude))) * 180 / .pi
        let west = center.longitude - deltaLongitude
        let east = center.longitude + deltaLongitude
        if deltaLongitude >= 180 { return [GeoBox(south: south, west: -180, north: north, east: 180)] }
        if west < -180 { return GeoBox(south: south, west: west + 360, north: north, east: east).unwrapped }
        if east > 180 { return GeoBox(south: south, west: west, north: north, east: east - 360).unwrapped }
        return [GeoBox(south: south, west: west, north: north, east: east)]
    }

    /// The final filter and order every backend applies to its candidates: inside the area, nearest
    /// first, ties by id, at most `limit`.
    public static func select<T>(_ candidates: [(id: String, point: GeoPoint, item: T)], query: SpatialQuery, from origin: GeoPoint,
                                 radius: Double?) -> [(item: T, distance: Double)] {
        var kept: [(id: String, item: T, distance: Double)] = []
        for candidate in candidates {
            if let box = query.box, !box.contains(candidate.point) { continue }
            let distance = Self.distance(origin, candidate.point)
            if let radius, distance > radius { continue }
            kept.append((candidate.id, candidate.item, distance))
        }
        kept.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        return kept.prefix(query.limit).map { ($0.item, $0.distance) }
    }
}
