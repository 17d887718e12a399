import ArgumentParser
import Bus
import Foundation
import Geo
import GeoAPI
import StorageAPI
import ToolKit

/// `quire-geo`: geotags near a point and place names, from the shell. `place` needs no app: the
/// gazetteer ships with the geo plugin and never touches the network.
@main
struct QuireGeo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-geo",
        abstract: "Find geotags near a point; name the place of a point (offline GeoNames gazetteer).",
        subcommands: [Near.self, PlaceCommand.self])

    /// LAT LON from the command line.
    static func point(_ words: [String]) throws -> (Double, Double) {
        guard words.count == 2, let latitude = Double(words[0]), let longitude = Double(words[1]) else {
            throw ValidationError("Give a point as two numbers, LAT LON (e.g. 49.2827 -123.1207), not '\(words.joined(separator: " "))'.")
        }
        return (latitude, longitude)
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    FileHandle.standardOutput.write(try encoder.encode(value))
    print()
}

struct Near: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Geotags within a radius of a point, nearest first.")

    @Argument(parsing: .allUnrecognized, help: "LAT LON in degrees (a negative number is read as one, not as an option).")
    var coordinates: [String] = []
    @Option(name: .customLong("radius-km"), help: "The radius in kilometres.") var radiusKm: Double
    @Option(help: "The app's YAML file.") var config: String
    @Option(help: "Only this user's geotags (a user name or an account id acc_…); default everyone's.") var user: String?
    @Option(help: "Only subjects of this kind (album.photos, media.image, …).") var kind: String?
    @Option(help: "At most this many (1-1000).") var limit = 100
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (latitude, longitude) = try QuireGeo.point(coordinates)
        let session = AppSession(tool: "quire-geo", config: config)
        let area = FindGeotags.Area.within(latitude: latitude, longitude: longitude, radiusMeters: radiusKm * 1000)
        let (kind, limit) = (self.kind, self.limit)
        let hits: [GeotagHit]
        if let user {
            hits = try await session.run(as: user) { bus, owner in
                try await bus.request(FindGeotags(owner: owner, area: area, kind: kind, limit: limit), timeout: .seconds(30)).hits
            }
        } else {
            hits = try await session.run { bus in
                try await bus.request(FindGeotags(owner: nil, area: area, kind: kind, limit: limit), timeout: .seconds(30)).hits
            }
        }
        if json { return try printJSON(hits) }
        for hit in hits {
            print(String(format: "%9.3f km\t%.5f,%.5f\t%@\t%@", hit.distanceMeters / 1000, hit.geotag.latitude, hit.geotag.longitude,
                         hit.geotag.subject, hit.owner))
        }
        if hits.isEmpty { FileHandle.standardError.write(Data("no geotags within \(radiusKm) km\n".utf8)) }
    }
}

struct PlaceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "place", abstract: "The city, region and country of a point.")

    @Argument(parsing: .allUnrecognized, help: "LAT LON in degrees (a negative number is read as one, not as an option).")
    var coordinates: [String] = []
    @Option(help: "Another gazetteer file (default: the one geo ships).") var gazetteer: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (latitude, longitude) = try QuireGeo.point(coordinates)
        let point = GeoPoint(latitude: latitude, longitude: longitude)
        guard point.isValid else {
            FileHandle.standardError.write(Data("quire-geo: a latitude is −90…90 and a longitude −180…180 degrees.\n".utf8))
            throw ExitCode(1)
        }
        let places: Gazetteer
        do {
            places = try await Gazetteer.load(path: gazetteer)
        } catch {
            FileHandle.standardError.write(Data("quire-geo: \(error)\n".utf8))
            throw ExitCode(1)
        }
        guard let place = places.place(at: point) else {
            FileHandle.standardError.write(Data("quire-geo: the gazetteer is empty.\n".utf8))
            throw ExitCode(3)
        }
        if json { return try printJSON(place) }
        print("\(place.label)\t(\(place.locality), \(String(format: "%.1f", place.distanceMeters / 1000)) km from \(place.city)'s centre; GeoNames \(place.geonameID))")
    }
}
