import Bus
import StorageAPI

/// What a declared spatial index answers, whichever backend keeps it.
public enum SpatialContract {
    public typealias Store = any RecordStore & RecordSpatialIndexing

    struct Place: Codable {
        var name: String
        var lat: Double?
        var lon: Double?
    }

    static let places = "contract.places"

    static func declare(_ store: Store) async throws {
        try await store.declare(CollectionSchema(name: places, spatial: SpatialIndexSpec(latitude: "lat", longitude: "lon")))
    }

    static func add(_ store: Store, _ id: String, _ lat: Double?, _ lon: Double?, owner: String = "alice") async throws {
        _ = try await store.insert(Place(name: id, lat: lat, lon: lon), into: places, id: id, owner: owner)
    }

    static func near(_ store: Store, _ lat: Double, _ lon: Double, km: Double, owner: String? = "alice", limit: Int = 100) async throws -> [String] {
        try await store.spatialQuery(.within(km * 1000, of: GeoPoint(latitude: lat, longitude: lon), collection: places, owner: owner, limit: limit))
            .hits.map(\.record.id)
    }

    static func inside(_ store: Store, _ box: GeoBox, owner: String? = "alice") async throws -> [String] {
        try await store.spatialQuery(.inside(box, collection: places, owner: owner)).hits.map(\.record.id)
    }

    /// Vancouver downtown, and places around it at known distances.
    static func seed(_ store: Store) async throws {
        try await declare(store)
        try await add(store, "vancouver", 49.2827, -123.1207)
        try await add(store, "burnaby", 49.2488, -122.9805)      // 10.9 km east
        try await add(store, "richmond", 49.1666, -123.1336)     // 12.9 km south
        try await add(store, "victoria", 48.4284, -123.3656)     // 96 km
        try await add(store, "seattle", 47.6062, -122.3321)      // 193 km
        try await add(store, "bobs", 49.2830, -123.1210, owner: "bob")
    }

    public static let cases: [ContractCase<Store>] = [
        ContractCase("within a radius: nearest first, exact distance, one owner's") { store in
            try await seed(store)
            try expectEqual(try await near(store, 49.2827, -123.1207, km: 15), ["vancouver", "burnaby", "richmond"], "15 km")
            try expectEqual(try await near(store, 49.2827, -123.1207, km: 11), ["vancouver", "burnaby"], "11 km")
            try expectEqual(try await near(store, 49.2827, -123.1207, km: 200), ["vancouver", "burnaby", "richmond", "victoria", "seattle"],
                            "200 km")
            try expectEqual(try await near(store, 49.2827, -123.1207, km: 1, owner: nil), ["vancouver", "bobs"], "every owner")
            try expectEqual(try await near(store, 49.2827, -123.1207, km: 200, limit: 2), ["vancouver", "burnaby"], "limit")
            let hits = try await store.spatialQuery(.within(15_000, of: GeoPoint(latitude: 49.2827, longitude: -123.1207),
                                                            collection: places, owner: "alice")).hits
            try expect(abs(hits[1].distanceMeters - 10_900) < 200, "Burnaby is about 10.9 km away, not \(hits[1].distanceMeters)")
        },
        ContractCase("the box's corner is not in the circle") { store in
            try await declare(store)
            // 0.1° north and 0.1° east of the centre: inside the bounding box of a 12 km circle, but 13.3 km away.
            try await add(store, "corner", 49.3827, -122.9707)
            try await add(store, "north", 49.3827, -123.1207)
            try expectEqual(try await near(store, 49.2827, -123.1207, km: 12), ["north"], "12 km")
        },
        ContractCase("across the ±180° meridian, by radius and by box") { store in
            try await declare(store)
            try await add(store, "east-of-line", -17.0, 179.95)
            try await add(store, "west-of-line", -17.0, -179.95)
            try await add(store, "far", -17.0, 170.0)
            try expectEqual(try await near(store, -17.0, 179.99, km: 20), ["east-of-line", "west-of-line"], "radius over the line")
            try expectEqual(try await inside(store, GeoBox(south: -18, west: 178, north: -16, east: -179)), ["east-of-line", "west-of-line"],
                            "box over the line")
            try expectEqual(try await inside(store, GeoBox(south: -18, west: 169, north: -16, east: 179.9)), ["far"], "box short of the line")
        },
        ContractCase("near a pole every longitude counts") { store in
            try await declare(store)
            try await add(store, "a", 89.9, 0)
            try await add(store, "b", 89.9, 180)
            try await add(store, "c", 89.0, 90)
            try expectEqual(try await near(store, 90, 0, km: 20), ["a", "b"], "around the north pole")
        },
        ContractCase("replace moves a point, delete removes it, records without one are not indexed") { store in
            try await seed(store)
            try await add(store, "nowhere", nil, nil)
            try await add(store, "impossible", 91, 0)
            _ = try await store.replace(Place(name: "v", lat: 47.6, lon: -122.33), in: places, id: "vancouver", owner: "alice")
            try expectEqual(try await near(store, 49.2827, -123.1207, km: 11), ["burnaby"], "moved away")
            try expectEqual(try await near(store, 47.6062, -122.3321, km: 1), ["seattle", "vancouver"], "moved here")
            try await store.delete(from: places, id: "seattle", owner: "alice")
            _ = try await store.replace(Place(name: "b", lat: nil, lon: nil), in: places, id: "burnaby", owner: "alice")
            try expectEqual(try await near(store, 49.0, -123.0, km: 20_000), ["richmond", "victoria", "vancouver"], "whole earth")
        },
        ContractCase("an index declared after the records indexes them") { store in
            try await store.declare(CollectionSchema(name: places))
            try await add(store, "here", 10, 10)
            try await declare(store)
            try expectEqual(try await near(store, 10, 10, km: 1), ["here"], "existing record")
        },
        ContractCase("the nearest N of a dense crowd, whatever the radius") { store in
            try await declare(store)
            // 40 points 10 m apart going north, and one far away: the 5 nearest are the first five.
            for index in 0..<40 { try await add(store, "p" + (index < 10 ? "0" : "") + String(index), 10 + Double(index) * 0.00009, 10) }
            try await add(store, "far", 10.3, 10)
            try expectEqual(try await near(store, 10, 10, km: 50, limit: 5), ["p00", "p01", "p02", "p03", "p04"], "limit 5 of 41")
            try expectEqual(try await near(store, 10, 10, km: 50, limit: 41).last, "far", "the far one last")
        },
        ContractCase("equal distances come in id order") { store in
            try await declare(store)
            try await add(store, "b", 0, 1)
            try await add(store, "a", 0, -1)
            try await add(store, "c", 1, 0)
            try expectEqual(try await near(store, 0, 0, km: 200), ["a", "b", "c"], "ties")
        },
        ContractCase("bad queries are refused") { store in
            try await seed(store)
            try await expectError(.invalid, "latitude 91") { try await near(store, 91, 0, km: 1) }
            try await expectError(.invalid, "negative radius") { try await near(store, 0, 0, km: -1) }
            try await expectError(.invalid, "south above north") { try await inside(store, GeoBox(south: 10, west: 0, north: 0, east: 1)) }
            try await expectError(.invalid, "circle and box") {
                try await store.spatialQuery(SpatialQuery(collection: places, owner: "alice", center: GeoPoint(latitude: 0, longitude: 0),
                                                          radiusMeters: 1, box: GeoBox(south: 0, west: 0, north: 1, east: 1), limit: 1))
            }
            try await expectError(.invalid, "limit 0") { try await near(store, 0, 0, km: 1, limit: 0) }
            try await store.declare(CollectionSchema(name: "contract.plain"))
            try await expectError(.invalid, "no spatial index") {
                try await store.spatialQuery(.within(1, of: GeoPoint(latitude: 0, longitude: 0), collection: "contract.plain", owner: "alice"))
            }
        },
    ]
}
