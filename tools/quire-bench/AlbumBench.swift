import AlbumAPI
import ArgumentParser
import AuthAPI
import Bus
import Foundation
import Geo
import GeoAPI
import MediaAPI
import SeededRandom
import ToolKit

/// A reproducible random source: the same seed makes the same album.
extension SplitMix64 {
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A normal deviate (Box–Muller).
    mutating func gaussian() -> Double { (-2 * log(max(unit(), 1e-300))).squareRoot() * cos(2 * .pi * unit()) }
}

/// Draws ranks 0..<n with weights `weight(rank)`.
struct WeightedDraw {
    let cumulative: [Double]
    init(count: Int, weight: (Int) -> Double) {
        var total = 0.0
        cumulative = (0..<count).map { total += weight($0); return total }
    }
    func draw(_ random: inout SplitMix64) -> Int {
        let target = random.unit() * (cumulative.last ?? 0)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A point `sigma` metres (Gaussian) around a city.
func around(_ city: (name: String, latitude: Double, longitude: Double, population: Int), sigma: Double,
            _ random: inout SplitMix64) -> (Double, Double) {
    let north = random.gaussian() * sigma, east = random.gaussian() * sigma
    let latitude = max(-89.9, min(89.9, city.latitude + north / 111_320))
    var longitude = city.longitude + east / (111_320 * max(0.01, cos(city.latitude * .pi / 180)))
    if longitude > 180 { longitude -= 360 }
    if longitude < -180 { longitude += 360 }
    return (latitude, longitude)
}

/// `quire-bench album-seed`: an iRemember album of N photo records for one user, through the album
/// plugin's own import (the same counters, postings, places and geotags as uploads): ten years of
/// times, 1-4 tags each from 2,000 with a Zipf spread, GPS around 200 real cities (Zipf) for nine
/// photos in ten. All records share one image, ingested first: the benchmark is about metadata.
struct AlbumSeed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "album-seed", abstract: "Seed an iRemember album with N photo records.")

    @Option(help: "The app's YAML file.") var config: String
    @Option(help: "The album's owner (a user name made with quire-auth).") var user: String
    @Option(help: "A JPEG every record points at.") var image: String
    @Option(help: "How many photos.") var photos = 100_000
    @Option(help: "Distinct tags.") var tags = 2000
    @Option(help: "Random seed.") var seed: UInt64 = 5

    func run() async throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: image))
        let cities = try await Gazetteer.load(path: nil).largest(200)
        let (total, tagCount, seed) = (photos, tags, self.seed)
        let started = Date()
        try await AppSession(tool: "quire-bench", config: config).run(as: user) { bus, owner in
            let sha = try await bus.request(try await IngestImage.of(bytes, owner: owner, on: bus), timeout: IngestImage.timeout).sha256
            var random = SplitMix64(seed: seed)
            let tagDraw = WeightedDraw(count: tagCount) { 1 / Double($0 + 1) }
            let cityDraw = WeightedDraw(count: cities.count) { 1 / Double($0 + 1) }
            let first = 1_420_070_400.0, span = 10 * 365.25 * 86_400  // 2015-01-01, ten years
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
            var done = 0, lastReport = 0
            while done < total {
                var batch: [ImportPhotoRecords.Photo] = []
                for _ in 0..<min(ImportPhotoRecords.maxPhotos, total - done) {
                    let time = formatter.string(from: Date(timeIntervalSince1970: first + random.unit() * span))
                    let names = (0..<(1 + Int(random.next() % 4))).map { _ in String(format: "tag%04d", tagDraw.draw(&random)) }
                    var photo = ImportPhotoRecords.Photo(image: sha, takenAt: time, tags: names)
                    if random.unit() < 0.9 {
                        let (latitude, longitude) = around(cities[cityDraw.draw(&random)], sigma: 3000, &random)
                        (photo.latitude, photo.longitude) = (latitude, longitude)
                    }
                    batch.append(photo)
                }
                _ = try await bus.request(ImportPhotoRecords(owner: owner, photos: batch), timeout: .seconds(120))
                done += batch.count
                if done * 20 / total > lastReport {
                    lastReport = done * 20 / total
                    let rate = Double(done) / Date().timeIntervalSince(started)
                    FileHandle.standardError.write(Data("album-seed: \(done)/\(total) photos (\(Int(rate))/s)\n".utf8))
                }
            }
        }
        print(String(format: "{\"photos\": %d, \"seconds\": %.1f}", total, Date().timeIntervalSince(started)))
    }
}

/// `quire-bench geo`: N geotags around real cities through geo's batch API, then radius queries
/// in-process (through the bus, on the app's SQLite), per radius: everyone's (`owner: nil`, as
/// nearby pinned notebooks are), a user with a thousandth of them, and a user with a tenth.
/// Prints one JSON object.
struct GeoBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "geo", abstract: "Radius queries over N geotags, in-process (p50/p99/max).")

    @Option(help: "The app's YAML file (use an empty data directory).") var config: String
    @Option(help: "Geotags to seed (0: use what is there).") var geotags = 1_000_000
    @Option(help: "Owners they are spread over.") var owners = 1000
    @Option(help: "Queries per radius.") var queries = 2000
    @Option(help: "Radii in km, comma-separated.") var radii = "1,5,25"
    @Option(help: "Largest number of hits a query answers.") var limit = 100
    @Option(help: "Random seed.") var seed: UInt64 = 7

    func run() async throws {
        let cities = try await Gazetteer.load(path: nil).largest(2000)
        let (total, owners, queries, limit, seed) = (geotags, self.owners, self.queries, self.limit, self.seed)
        let radii = self.radii.split(separator: ",").compactMap { Double($0) }
        // Cities weighted by √population: big cities hold more photos, not all of them.
        let cityDraw = WeightedDraw(count: cities.count) { Double(cities[$0].population).squareRoot() }
        let result = try await AppSession(tool: "quire-bench", config: config).run { bus -> [String: Double] in
            var random = SplitMix64(seed: seed)
            var report: [String: Double] = [:]
            let clock = ContinuousClock()
            let seeding = clock.now
            var done = 0
            while done < total {
                // The first tenth is one user's; the rest is spread over `owners` users.
                let owner = done < total / 10 ? "bench-big" : "bench-\(done / max(1, total / owners))"
                var batch: [Geotag] = []
                for index in 0..<min(500, total - done) {
                    let (latitude, longitude) = around(cities[cityDraw.draw(&random)], sigma: 5000, &random)
                    batch.append(Geotag(subject: "bench.points/\(done + index)", latitude: latitude, longitude: longitude, source: "bench"))
                }
                _ = try await bus.request(SetGeotags(owner: owner, geotags: batch), timeout: .seconds(120))
                done += batch.count
                if done % 100_000 == 0 { FileHandle.standardError.write(Data("geo: \(done)/\(total) geotags\n".utf8)) }
            }
            if total > 0 { report["seed_seconds"] = (clock.now - seeding).milliseconds / 1000 }
            for radius in radii {
                let small = "bench-\(owners / 2)"
                for (label, owner) in [("everyone", nil as String?), ("small_user", small), ("big_user", "bench-big")] {
                    var samples: [Double] = []
                    var hits = 0
                    for round in 0..<(queries + queries / 10) {
                        let (latitude, longitude) = around(cities[cityDraw.draw(&random)], sigma: 2000, &random)
                        let start = clock.now
                        let found = try await bus.request(FindGeotags(owner: owner, area: .within(latitude: latitude, longitude: longitude,
                                                                                                radiusMeters: radius * 1000),
                                                                      kind: "bench.points", limit: limit))
                        let elapsed = (clock.now - start).milliseconds
                        if round >= queries / 10 {
                            samples.append(elapsed)  // the first tenth warms up
                            hits += found.hits.count
                        }
                    }
                    samples.sort()
                    let key = "r\(Int(radius))km_\(label)"
                    report[key + "_p50_ms"] = samples[samples.count / 2]
                    report[key + "_p99_ms"] = samples[min(samples.count - 1, samples.count * 99 / 100)]
                    report[key + "_max_ms"] = samples.last ?? 0
                    report[key + "_mean_hits"] = Double(hits) / Double(samples.count)
                }
            }
            return report
        }
        let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .prettyPrinted])
        print(String(decoding: data, as: UTF8.self))
    }
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
