public import AppConfig
public import Bus
import Foundation
import GeoAPI
public import HTTPKit
import Hummingbird
import Logging
import MediaAPI
public import PluginKit
public import ServiceLifecycle
import StorageAPI

/// The `geo` plugin: geotags on any record (one spatial index per subject kind, an R*Tree in SQLite),
/// radius, box and nearest-N queries with exact great-circle distances, and place names from an
/// offline GeoNames gazetteer. A photo with EXIF GPS is geotagged (`media.image/<sha256>`) as soon as
/// media ingests it.
///
/// ```yaml
/// geo: {}            # or { gazetteer: /path/to/gazetteer.tsv }
/// ```
public struct GeoPlugin: Plugin {
    public struct Config: Sendable {
        var gazetteerPath: String?
    }

    public static let descriptor = PluginDescriptor(
        id: "geo",
        summary: "Geotags on any record, radius/box/nearest queries on a spatial index, offline place names (GeoNames)",
        dependencies: ["storage", "auth"],
        settings: [
            SettingDescription("gazetteer", "path", default: "the bundled GeoNames file",
                               "A gazetteer file in the format tools/gazetteer/convert.py writes"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        Config(gazetteerPath: section.string("gazetteer").flatMap { $0.isEmpty ? nil : $0 })
    }

    let service: GeoService
    let ingested: EventSubscription<ImageIngested>
    let blobsDeleted: EventSubscription<BlobDeleted>
    let kindsAdded: EventSubscription<GeoKindAdded>
    let subjectsDeleted: EventSubscription<SubjectDeleted>
    /// The subject kinds the app's plugins offer: a user's geotag is of one of theirs, checked first.
    let subjects: SubjectRules

    public init(config: Config, context: PluginContext) async throws {
        let gazetteer: Gazetteer
        do {
            gazetteer = try await Gazetteer.load(path: config.gazetteerPath)
        } catch {
            throw PluginSetupError("geo: \(error)")
        }
        service = GeoService(store: BusRecordStore(bus: context.bus), bus: context.bus, gazetteer: gazetteer)
        do {
            try await service.loadKinds()
        } catch {
            // The database may be down while the server starts: the server starts anyway (and answers
            // 503 until storage is back); the kinds are loaded when it answers.
            context.logger.warning("Geo: kinds not loaded at start; loading them when storage answers", metadata: ["code": "\(error.code.rawValue)"])
        }
        ingested = context.bus.subscribe(to: ImageIngested.self)
        blobsDeleted = context.bus.subscribe(to: BlobDeleted.self)
        kindsAdded = context.bus.subscribe(to: GeoKindAdded.self)
        subjectsDeleted = context.bus.subscribe(to: SubjectDeleted.self)
        subjects = SubjectRules(offers: context.offers)
        context.logger.info("Geo: gazetteer loaded", metadata: ["places": "\(gazetteer.count)"])
    }

    public var features: [String] { ["geotags", "places"] }

    public var services: [any Service] {
        [ExifGeotagger(service: service, ingested: ingested), ImageForgetter(service: service, deleted: blobsDeleted),
         KindLearner(service: service, added: kindsAdded), SubjectForgetter(service: service, deleted: subjectsDeleted),
         KindLoader(service: service)]
    }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(SetGeotag.self) { request, _ in try await service.set(owner: request.owner, request.geotag) }
        try bus.handle(SetGeotags.self) { request, _ in .init(set: try await service.set(owner: request.owner, many: request.geotags)) }
        try bus.handle(GetGeotag.self) { request, _ in .init(geotag: try await service.get(owner: request.owner, subject: request.subject)) }
        try bus.handle(RemoveGeotag.self) { request, _ in .init(removed: try await service.remove(owner: request.owner, subject: request.subject)) }
        try bus.handle(FindGeotags.self) { request, _ in .init(hits: try await service.find(request)) }
        try bus.handle(LookUpPlace.self) { request, _ in try service.place(latitude: request.latitude, longitude: request.longitude) }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let service = self.service
        let subjects = self.subjects
        let bus = service.bus
        try routes.add(.put, "tags", summary: "Geotag a subject of mine (kind/id, e.g. notes/n_…): latitude, longitude, optional accuracy and altitude; "
                       + "404 for a subject that does not exist or is not mine") {
            request, context, identity in
            var request = request
            let geotag = try await request.decodeJSON(Geotag.self, context: context)
            try geotag.validate()
            // The subject's own plugin says whether it exists and is the caller's to write.
            try await subjects.requireWritable(geotag.subject, caller: identity.accountID, on: bus)
            return try .json(try await service.set(owner: identity.accountID, geotag))
        }
        try routes.add(.get, "tags", query: ["subject"], summary: "The geotag of ?subject=kind/id") { request, _, identity in
            let subject = try request.query("subject", required: true) ?? ""
            guard let geotag = try await service.get(owner: identity.accountID, subject: subject) else {
                throw Problem.notFound("'\(subject)' has no geotag.")
            }
            return try .json(geotag)
        }
        try routes.add(.delete, "tags", query: ["subject"], summary: "Remove the geotag of ?subject=kind/id") { request, _, identity in
            let subject = try request.query("subject", required: true) ?? ""
            guard try await service.remove(owner: identity.accountID, subject: subject) else {
                throw Problem.notFound("'\(subject)' has no geotag.")
            }
            return .noContent
        }
        try routes.add(.get, "near", query: ["lat", "lon", "radiusKm", "kind", "limit", "cursor"], summary: "My geotags within ?radiusKm of ?lat,lon, nearest first (?kind, ?limit)") {
            request, _, identity in
            let area = FindGeotags.Area.within(latitude: try request.queryNumber("lat", required: true) ?? 0,
                                               longitude: try request.queryNumber("lon", required: true) ?? 0,
                                               radiusMeters: (try request.queryNumber("radiusKm", required: true) ?? 0) * 1000)
            return try await Self.find(service, request, area, owner: identity.accountID)
        }
        try routes.add(.get, "box", query: ["south", "west", "north", "east", "kind", "limit", "cursor"], summary: "My geotags in ?south,west,north,east (west > east crosses 180°), nearest the centre first") {
            request, _, identity in
            let area = FindGeotags.Area.box(south: try request.queryNumber("south", required: true) ?? 0,
                                            west: try request.queryNumber("west", required: true) ?? 0,
                                            north: try request.queryNumber("north", required: true) ?? 0,
                                            east: try request.queryNumber("east", required: true) ?? 0)
            return try await Self.find(service, request, area, owner: identity.accountID)
        }
        try routes.add(.get, "nearest", query: ["lat", "lon", "kind", "limit", "cursor"], summary: "My ?limit geotags nearest ?lat,lon") { request, _, identity in
            let area = FindGeotags.Area.nearest(latitude: try request.queryNumber("lat", required: true) ?? 0,
                                                longitude: try request.queryNumber("lon", required: true) ?? 0)
            return try await Self.find(service, request, area, owner: identity.accountID)
        }
        try routes.add(.get, "place", query: ["lat", "lon"], summary: "The place (city, region, country) of ?lat,lon, from the offline gazetteer") { request, _, _ in
            try .json(try service.place(latitude: try request.queryNumber("lat", required: true) ?? 0,
                                        longitude: try request.queryNumber("lon", required: true) ?? 0))
        }
    }

    static func find(_ service: GeoService, _ request: Request, _ area: FindGeotags.Area, owner: String) async throws -> Response {
        // Nearest first: a page is the next stretch of the same ordering, found by asking for one
        // more than it needs (at most the spatial index's largest answer).
        let limit = try request.limit(default: 100, max: SpatialQuery.maxLimit)
        let offset = try OffsetCursor.decode(try request.query("cursor"))
        let wanted = min(SpatialQuery.maxLimit, offset + limit + 1)
        let hits = offset < SpatialQuery.maxLimit
            ? try await service.find(FindGeotags(owner: owner, area: area, kind: try request.query("kind"), limit: wanted)) : []
        let end = min(hits.count, offset + limit)
        let page = offset < end ? Array(hits[offset..<end]) : []
        return try .json(ListPage(items: page.map { HitJSON(geotag: $0.geotag, distanceMeters: $0.distanceMeters) },
                                  nextCursor: hits.count > end ? OffsetCursor.encode(end) : nil))
    }

    struct Items: Encodable {
        var items: [HitJSON]
    }

    struct HitJSON: Encodable {
        var geotag: Geotag
        var distanceMeters: Double
    }
}

/// When storage deletes an image's bytes (nothing holds them any more), its EXIF geotags go too:
/// where a photo was taken is not kept after the photo.
/// Declares here the kinds other nodes of a cluster use for the first time, so that a search of
/// every kind finds their geotags too.
struct KindLearner: Service {
    let service: GeoService
    let added: EventSubscription<GeoKindAdded>

    func run() async throws {
        for await event in added.cancelOnGracefulShutdown() {
            try? await service.learn(event.kind)
        }
    }
}

/// Kinds not loaded at start (storage did not answer) are loaded as soon as it does: tried every two
/// seconds until then. (A database down while the server starts must not stop it; postgres.py.)
struct KindLoader: Service {
    let service: GeoService

    func run() async throws {
        while !service.kinds.isLoaded && !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await service.loadKinds()
            } catch {
                do {
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(2)) }
                } catch {
                    return
                }
            }
        }
        // A service that returns ends the app's service group: this one waits for the shutdown.
        try? await gracefulShutdown()
    }
}

/// A subject deleted by its plugin (a note) takes its owner's geotag with it.
struct SubjectForgetter: Service {
    let service: GeoService
    let deleted: EventSubscription<SubjectDeleted>

    func run() async throws {
        for await event in deleted.cancelOnGracefulShutdown() {
            _ = try? await service.remove(owner: event.owner, subject: event.subject)
        }
    }
}

struct ImageForgetter: Service {
    let service: GeoService
    let deleted: EventSubscription<BlobDeleted>

    func run() async throws {
        for await event in deleted.cancelOnGracefulShutdown() {
            _ = try? await service.removeEverywhere(subject: "media.image/\(event.sha256)")
        }
    }
}

/// Geotags every ingested image that carries EXIF GPS, as `media.image/<sha256>` of its owner,
/// unless the caller geotags what it makes of the image itself (album photos).
struct ExifGeotagger: Service {
    let service: GeoService
    let ingested: EventSubscription<ImageIngested>

    func run() async throws {
        for await event in ingested.cancelOnGracefulShutdown() {
            guard !event.geotagsItself, let gps = event.image.info.gps else { continue }
            let geotag = Geotag(subject: "media.image/\(event.image.sha256)", latitude: gps.latitude, longitude: gps.longitude,
                                altitude: gps.altitude.flatMap { (-11_000...50_000).contains($0) ? $0 : nil }, source: "exif")
            // A camera that wrote impossible coordinates simply leaves the image without a geotag.
            _ = try? await service.set(owner: event.owner, geotag)
        }
    }
}
