import Foundation
public import GeoAPI
import StorageAPI

/// Place names offline: GeoNames' populated places of 1,000 people or more (170,000), their
/// first-level divisions and countries, from `Resources/gazetteer.tsv` (built by
/// `tools/gazetteer/convert.py`; GeoNames data, CC BY 4.0). Held in memory on a 1° grid, so a
/// look-up reads the few cells around the point. Never touches the network.
public final class Gazetteer: Sendable {
    struct Entry: Sendable {
        var geonameID: Int
        var latitude: Double
        var longitude: Double
        var name: String
        var countryCode: String
        var region: String?
        var population: Int
    }

    private let entries: [Entry]
    private let countries: [String: String]
    /// Entry indexes by 1° cell.
    private let cells: [Int: [Int32]]

    public var count: Int { entries.count }

    /// A place inside this distance of the point may stand for it even when a smaller one is nearer.
    static let cityReach = 5_000.0

    public enum LoadError: Error, CustomStringConvertible {
        case missing(String)
        case malformed(line: Int)
        public var description: String {
            switch self {
            case .missing(let path): "The gazetteer '\(path)' cannot be read; it ships with the geo plugin (Plugins/Geo/Geo/Resources)."
            case .malformed(let line): "The gazetteer is damaged at line \(line); restore it from git or rebuild it with tools/gazetteer/convert.py."
            }
        }
    }

    /// The gazetteer shipped with the plugin, read once per process (it is immutable).
    public static func bundled() throws -> Gazetteer {
        try shared.get()
    }

    /// Reads a gazetteer (the bundled one for nil) on a thread of its own: parsing 170,000 places
    /// takes a second of CPU, which must hold neither one of Swift's few cooperative threads nor a
    /// worker of dispatch's shared pool.
    public static func load(path: String?) async throws -> Gazetteer {
        let result: Result<Gazetteer, any Error> = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Result { try path.map { try Gazetteer(contentsOf: URL(fileURLWithPath: $0)) } ?? bundled() })
            }.start()
        }
        return try result.get()
    }

    private static let shared: Result<Gazetteer, any Error> = Result {
        guard let url = Bundle.module.url(forResource: "gazetteer", withExtension: "tsv") else {
            throw LoadError.missing("gazetteer.tsv")
        }
        return try Gazetteer(contentsOf: url)
    }

    public convenience init(contentsOf url: URL) throws {
        guard let data = try? Data(contentsOf: url) else { throw LoadError.missing(url.path) }
        try self.init(tsv: data)
    }

    init(tsv data: Data) throws {
        var countries: [String: String] = [:]
        var regions: [String: String] = [:]
        var entries: [Entry] = []
        entries.reserveCapacity(180_000)
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            lineNumber += 1
            guard let kind = line.first, kind != UInt8(ascii: "#") else { continue }
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            switch (kind, fields.count) {
            case (UInt8(ascii: "C"), 3): countries[fields[1]] = fields[2]
            case (UInt8(ascii: "R"), 3): regions[fields[1]] = fields[2]
            case (UInt8(ascii: "P"), 8):
                guard let id = Int(fields[1]), let latitude = Double(fields[2]), let longitude = Double(fields[3]),
                      let population = Int(fields[7]) else { throw LoadError.malformed(line: lineNumber) }
                entries.append(Entry(geonameID: id, latitude: latitude, longitude: longitude, name: fields[4], countryCode: fields[5],
                                     region: regions[fields[5] + "." + fields[6]], population: population))
            default: throw LoadError.malformed(line: lineNumber)
            }
        }
        var cells: [Int: [Int32]] = [:]
        for (index, entry) in entries.enumerated() {
            cells[Self.cell(latitude: entry.latitude, longitude: entry.longitude), default: []].append(Int32(index))
        }
        self.entries = entries
        self.countries = countries
        self.cells = cells
    }

    /// The `count` most populous places: real cities for benchmarks and demos.
    public func largest(_ count: Int) -> [(name: String, latitude: Double, longitude: Double, population: Int)] {
        entries.sorted { $0.population != $1.population ? $0.population > $1.population : $0.geonameID < $1.geonameID }
            .prefix(count).map { ($0.name, $0.latitude, $0.longitude, $0.population) }
    }

    static func cell(latitude: Double, longitude: Double) -> Int {
        let row = min(179, max(0, Int((latitude + 90).rounded(.down))))
        let column = min(359, max(0, Int((longitude + 180).rounded(.down))))
        return row * 360 + column
    }

    /// Entries within `radius` metres of `point`, with their distances.
    private func entries(within radius: Double, of point: GeoPoint) -> [(index: Int, distance: Double)] {
        var found: [(Int, Double)] = []
        for box in SpatialRules.boxes(around: point, radiusMeters: radius) {
            let south = Int((box.south + 90).rounded(.down)), north = min(179, Int((box.north + 90).rounded(.down)))
            let west = Int((box.west + 180).rounded(.down)), east = min(359, Int((box.east + 180).rounded(.down)))
            for row in max(0, south)...max(0, north) {
                for column in max(0, west)...max(0, east) {
                    for index in cells[row * 360 + column] ?? [] {
                        let entry = entries[Int(index)]
                        let distance = SpatialRules.distance(point, GeoPoint(latitude: entry.latitude, longitude: entry.longitude))
                        if distance <= radius { found.append((Int(index), distance)) }
                    }
                }
            }
        }
        return found
    }

    /// How far a place of `population` stands for the points around it: 5 km, more for a big city
    /// (2.5 m × √population: 7.4 km for New York's 8.8 million, so Times Square is New York, not
    /// Manhattan, while Newark, 14 km out, stays Newark).
    static func reach(_ population: Int) -> Double {
        max(cityReach, 2.5 * Double(max(0, population)).squareRoot())
    }

    /// The largest reach any place has.
    static let maxReach = 15_000.0

    /// The place of a point: the nearest populated place, and as its city the most populous place
    /// that reaches the point (see ``reach(_:)``; out in the country, anything within 1.5 × the
    /// nearest's distance). Nil only for an empty gazetteer.
    public func place(at point: GeoPoint) -> Place? {
        var radius = 10_000.0
        var around = entries(within: radius, of: point)
        while around.isEmpty, radius < SpatialRules.halfCircumference {
            radius *= 4
            around = entries(within: min(radius, SpatialRules.halfCircumference), of: point)
        }
        guard let nearest = around.min(by: { $0.distance != $1.distance ? $0.distance < $1.distance : $0.index < $1.index }) else { return nil }
        let countryside = nearest.distance * 1.5
        let wide = max(Self.maxReach, countryside)
        let candidates = (wide > radius ? entries(within: wide, of: point) : around).filter {
            $0.distance <= max(countryside, Self.reach(entries[$0.index].population))
        }
        let city = candidates.max { a, b in
            let (x, y) = (entries[a.index].population, entries[b.index].population)
            return x != y ? x < y : a.distance > b.distance
        } ?? nearest
        let entry = entries[city.index]
        return Place(city: entry.name, geonameID: entry.geonameID, region: entry.region, countryCode: entry.countryCode,
                     country: countries[entry.countryCode] ?? entry.countryCode, locality: entries[nearest.index].name,
                     distanceMeters: city.distance)
    }
}
