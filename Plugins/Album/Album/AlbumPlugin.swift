public import AppConfig
import AlbumAPI
public import Bus
import DrawingAPI
import Foundation
public import HTTPKit
import HTTPTypes
import Hummingbird
import Logging
import MediaAPI
import NIOCore
public import PluginKit
import SafeFetch
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// The `album` plugin — iRemember's domain: photos added by upload (camera, phone library) or by
/// URL, each with its time taken, notes, tags, a mark-up drawing and a place; browsed in time
/// order, by recent days, by tag (+/−) and time range, in month and place folders, as a slideshow;
/// shared through share-link.
///
/// ```yaml
/// album: { time_zone: America/Vancouver, import_timeout_seconds: 20 }
/// ```
public struct AlbumPlugin: Plugin {
    public struct Config: Sendable {
        var timeZone: TimeZone
        var pageSize: Int
        var importTimeout: Int
        var importMaxBytes: Int?
        var importAllowNetworks: [IPNetwork]
        var onThisDay: Bool
        /// Family members help with the album (AlbumCaregiving.swift).
        var caregivers: Bool = false
        var people: Bool = false
        var map: Bool = false
    }

    public static let descriptor = PluginDescriptor(
        id: "album",
        summary: "iRemember: photos with time taken, notes, tags, mark-up and place; tag/time search, month and place folders, slideshow",
        dependencies: ["storage", "auth", "media", "drawing", "geo", "share-link"],
        settings: [
            SettingDescription("time_zone", "IANA zone", default: "UTC", "Whose clock an upload without EXIF or client time is dated by"),
            SettingDescription("page_size", "int 1...500", default: "60", "Thumbnails per page when the client does not say"),
            SettingDescription("import_timeout_seconds", "int 1...300", default: "20", "Longest a URL import may take, redirects included"),
            SettingDescription("import_max_bytes", "int 1...1073741824", default: "media's max_upload_bytes", "Largest picture a URL import downloads"),
            SettingDescription("import_allow_networks", "list of CIDR blocks", default: "[]",
                               "TESTS ONLY: private blocks a URL import may reach (e.g. 127.0.0.2/32 for a local test server)"),
            SettingDescription("on_this_day", "bool", default: "false", "The home screen shows photos taken on this day in earlier years (the client's copy, offline too)"),
            SettingDescription("caregivers", "bool", default: "false", "The user invites family members (a link or QR code) who add photos and captions to this album, and can restore the user's access on a new phone"),
            SettingDescription("people", "bool", default: "false", "Name the people in photos (a box on the face, a name, who they are to the user) and a page for each person"),
            SettingDescription("map", "bool", default: "false", "A map of the photos that have a place (web's map_tiles; the client's copy, offline too); tap a place for its photos"),
        ],
        offers: [SharedPhoto.self, SharedPhotoSearch.self, PhotoSubject.self, SyncedPhoto.self, SyncedPerson.self, SyncedFace.self])

    public static func configure(_ section: ConfigSection) -> Config {
        var config = configureAlbum(section)
        config.caregivers = section.bool("caregivers", default: false)
        return config
    }

    static func configureAlbum(_ section: ConfigSection) -> Config {
        let zoneName = section.string("time_zone", default: "UTC") ?? "UTC"
        let zone = TimeZone(identifier: zoneName)
        if zone == nil { section.report("time_zone", "unknown time zone \"\(zoneName)\"; use an IANA name such as Europe/Paris") }
        var networks: [IPNetwork] = []
        for text in section.stringList("import_allow_networks", default: []) {
            if let network = IPNetwork(text) { networks.append(network) } else { section.report("import_allow_networks", "'\(text)' is not a CIDR block") }
        }
        return Config(timeZone: zone ?? .gmt, pageSize: section.int("page_size", default: 60, in: 1...500),
                      importTimeout: section.int("import_timeout_seconds", default: 20, in: 1...300),
                      importMaxBytes: section.contains("import_max_bytes") ? section.int("import_max_bytes", default: 10 << 20, in: 1...(1 << 30)) : nil,
                      importAllowNetworks: networks, onThisDay: section.bool("on_this_day", default: false), people: section.bool("people", default: false),
                      map: section.bool("map", default: false))
    }

    let service: AlbumService
    let pageSize: Int
    let limits: (photo: Int, drawing: Int)
    let onThisDay: Bool
    /// Caregivers (AlbumCaregivingRoutes.swift); nil when `caregivers` is off.
    let caregiving: CaregivingService?
    /// People named in photos (AlbumPeople.swift); its routes answer 404 `people_off` unless `people` is on.
    let people: AlbumPeople
    let peopleOn: Bool
    let map: Bool

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        for schema in AlbumService.schemas { try await store.declare(schema) }
        let photoLimit = try await context.bus.request(GetMediaLimits()).maxBytes
        limits = (photo: photoLimit, drawing: try await context.bus.request(GetDrawingLimits()).maxBytes)
        let fetcher = SafeFetcher(policy: SafeFetcher.Policy(maxBytes: config.importMaxBytes ?? photoLimit, timeout: .seconds(config.importTimeout),
                                                             allowedNetworks: config.importAllowNetworks))
        service = AlbumService(store: store, bus: context.bus, clock: context.clock, ids: context.ids, timeZone: config.timeZone, fetcher: fetcher, logger: context.logger)
        let moved = try await service.migrateCounterIDs()
        if moved > 0 { context.logger.notice("album: tag and folder counters moved to per-owner ids", metadata: ["moved": "\(moved)"]) }
        pageSize = config.pageSize
        onThisDay = config.onThisDay
        if config.caregivers {
            for schema in CaregivingService.schemas { try await store.declare(schema) }
            caregiving = CaregivingService(store: store, bus: context.bus, clock: context.clock)
        } else {
            caregiving = nil
        }
        for schema in AlbumPeople.schemas { try await store.declare(schema) }
        people = AlbumPeople(album: service)
        peopleOn = config.people
        map = config.map
        if !config.importAllowNetworks.isEmpty {
            context.logger.warning("album: URL imports may reach private networks (import_allow_networks; tests only)",
                                   metadata: ["networks": "\(config.importAllowNetworks.map(\.description).joined(separator: ", "))"])
        }
    }

    public var features: [String] { ["photos", "url-import", "tags", "folders", "slideshow", "markup", "share"] + (onThisDay ? ["on-this-day"] : []) + (caregiving != nil ? ["caregivers"] : []) + (peopleOn ? ["people"] : []) + (map ? ["photo-map"] : []) }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        // The daily "On this day" push asks which photos the day has (push's own job).
        try bus.handle(FindOnThisDay.self) { request, _ in try await service.onThisDay(owner: request.owner, date: request.date) }
        try Self.registerPeople(on: bus, people)
        let peopleOn = self.peopleOn
        try bus.handle(ImportPhotoRecords.self) { request, _ in .init(ids: try await service.importRecords(owner: request.owner, request.photos)) }
        // Sync's feed shows a photo as GET /photos/{id} does.
        try bus.handle(ShowSynced<SyncedPhoto>.self) { request, _ in
            .init(shown: request.records.map { record in
                guard record.owner == request.viewer, let photo = try? record.decode(PhotoData.self) else { return nil }
                return try? JSONDocument(encoding: PhotoJSON(record, photo))
            })
        }
        // Other plugins ask before they attach something to a photo (a reminder): the owner's own photo only.
        try bus.handle(CheckSubject<PhotoSubject>.self) { request, _ in
            guard StorageNames.isValidID(request.id),
                  try await service.store.get(collection: AlbumService.photos, id: request.id, owner: request.caller) != nil else { return .none }
            return .write
        }
        try bus.handle(ShowShared<SharedPhoto>.self) { request, _ in try await service.sharedPhoto(owner: request.owner, resource: request.resource, people: peopleOn) }
        try bus.handle(ShowShared<SharedPhotoSearch>.self) { request, _ in
            try await service.sharedSearch(owner: request.owner, resource: request.resource)
        }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let service = self.service
        if let caregiving { try caregivingRoutes(routes, caregiving) }
        let limits = self.limits
        let pageSize = self.pageSize
        let people = self.people
        try Self.peopleRoutes(routes, people, on: peopleOn)
        try AlbumVoiceRoutes.add(to: routes, service: service)
        try routes.add(.post, "photos", query: ["source", "takenAt", "lat", "lon", "accuracy", "tags", "notes"], summary: "Add a photo: the image bytes as the body; ?source=camera|library, takenAt, lat, lon, accuracy, "
                       + "tags, notes. Answers what the mark-up screen needs; honours Idempotency-Key") { request, _, identity in
            var request = request
            let source = try request.query("source") ?? "library"
            guard ["camera", "library"].contains(source) else { throw Problem.badRequest("'source' is camera or library.", field: "source") }
            let capture = AlbumService.Capture(
                takenAt: try request.query("takenAt"), latitude: try request.queryNumber("lat"), longitude: try request.queryNumber("lon"),
                accuracy: try request.queryNumber("accuracy"), tags: try request.query("tags").map { [$0] } ?? [], notes: try request.query("notes"),
                source: source)
            let idempotencyKey = try request.idempotencyKey()
            // Under the server's memory budget: the body streamed to a file beside the blobs (its
            // first bytes checked before the rest is read), decoded by libvips from that file.
            let record = try await request.withBudgetedUpload(ImageUpload.intake(what: "a photo", reservation: "this photo", on: service.bus),
                                                              limit: limits.photo) { upload in
                try await service.add(owner: identity.accountID, upload: upload, capture: capture, idempotencyKey: idempotencyKey)
            }
            return try await Self.markupScreen(service, owner: identity.accountID, record)
        }
        try routes.add(.post, "photos/import", summary: "Import a picture from the web: {url, takenAt?, latitude?, longitude?, tags?, notes?}; "
                       + "refuses private and local addresses") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(ImportInput.self, context: context)
            let capture = AlbumService.Capture(takenAt: input.takenAt, latitude: input.latitude, longitude: input.longitude, accuracy: input.accuracy,
                                               tags: input.tags?.values ?? [], notes: input.notes, source: "url")
            let record = try await service.importURL(owner: identity.accountID, url: input.url, capture: capture)
            return try await Self.markupScreen(service, owner: identity.accountID, record)
        }
        try routes.add(.get, "photos", query: ["tags", "match", "from", "to", "place", "order", "limit", "cursor"], summary: "Thumbnails in time order: ?tags=beach -work, match=any|all, from, to (to the minute), place, "
                       + "order=asc|desc, limit, cursor") { request, _, identity in
            let filter = try Self.filter(request)
            return try await Self.page(service, request, owner: identity.accountID, filter: filter, pageSize: pageSize)
        }
        try routes.add(.get, "photos/{id}", summary: "One photo with its notes, tags, time taken and place") { _, context, identity in
            try PhotoJSON.response(try await service.photo(owner: identity.accountID, id: try Self.id(context)))
        }
        try routes.add(.patch, "photos/{id}", summary: "Change notes, tags, takenAt or location ({latitude, longitude} or null); If-Match; honours Idempotency-Key") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(EditInput.self, context: context)
            var location: PhotoData.Location??
            if input.locationGiven {
                location = .some(try AlbumService.location(input.location?.latitude, input.location?.longitude, input.location?.accuracy, source: "user"))
            }
            let edit = AlbumService.Edit(notes: input.notes, tags: input.tags, takenAt: input.takenAt, location: location)
            let edited = try await service.edit(owner: identity.accountID, id: try Self.id(context), edit,
                                                expectedVersion: try request.ifMatchVersion(), idempotencyKey: try request.idempotencyKey())
            return try PhotoJSON.response(edited.record, replaced: edited.replaced, replacedBy: edited.replacedBy, replayed: edited.replayed)
        }
        try routes.add(.delete, "photos/{id}", summary: "Delete a photo (its image goes when nothing else holds it)") { request, context, identity in
            let id = try Self.id(context)
            try await service.delete(owner: identity.accountID, id: id, expectedVersion: try request.ifMatchVersion())
            // What other plugins keep about the photo (a reminder) goes with it.
            await service.bus.publish(SubjectDeleted(owner: identity.accountID, subject: "\(PhotoSubject.kind)/\(id)"))
            // The people named in it are not named there any more (they stay people).
            try? await people.photoDeleted(owner: identity.accountID, photo: id)
            return .noContent
        }
        try routes.add(.get, "photos/{id}/image", summary: "The original as uploaded") { request, context, identity in
            try await Self.image(service, request, owner: identity.accountID, id: try Self.id(context), rendition: RenderImage.original)
        }
        try routes.add(.get, "photos/{id}/image/{rendition}", summary: "A rendition declared in the app's YAML (thumb, display, share)") {
            request, context, identity in
            guard let rendition = context.parameters.get("rendition") else { throw Problem.badRequest("The rendition is missing from the path.") }
            return try await Self.image(service, request, owner: identity.accountID, id: try Self.id(context), rendition: rendition)
        }
        try routes.add(.post, "photos/{id}/edit", summary: "Straighten (-45…45°), rotate (90, 180, 270) and/or crop ({x, y, width, height} in fractions) "
                       + "the picture as it looks now, in that order, as a new version; the uploaded picture is kept (revert). If-Match") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(ImageEditInput.self, context: context)
            let edit = ImageEdit(rotate: input.rotate ?? 0, straighten: input.straighten, cropFractions: input.crop)
            let edited = try await service.editImage(owner: identity.accountID, id: try Self.id(context), edit,
                                                     expectedVersion: try request.ifMatchVersion())
            guard let record = edited.record else { throw Problem.notFound("The photo is gone.") }
            return try PhotoJSON.response(record, replaced: edited.replaced)
        }
        try routes.add(.post, "photos/{id}/revert", summary: "Back to the picture as it was added (409 not_edited when it was never edited). If-Match") {
            request, context, identity in
            let reverted = try await service.revert(owner: identity.accountID, id: try Self.id(context), expectedVersion: try request.ifMatchVersion())
            guard let record = reverted.record else { throw Problem.notFound("The photo is gone.") }
            return try PhotoJSON.response(record, replaced: reverted.replaced)
        }
        try routes.add(.get, "photos/{id}/markup", summary: "The mark-up drawing (JSON; empty when none)") { _, context, identity in
            let photo = try await service.photo(owner: identity.accountID, id: try Self.id(context)).decode(PhotoData.self)
            guard let markup = photo.markup else { return try .json(Drawing.empty) }
            return try .json(try await LoadDrawing.drawing(markup, on: service.bus))
        }
        try routes.add(.put, "photos/{id}/markup", summary: "Save the mark-up: strokes and texts over the photo ({} clears it); the original is kept") {
            request, context, identity in
            var request = request
            var context = context
            context.maxUploadSize = limits.drawing
            let drawing = try await request.decodeJSON(Drawing.self, context: context)
            let id = try Self.id(context)
            _ = try await service.photo(owner: identity.accountID, id: id)
            let saved = drawing == .empty ? nil : try await service.bus.request(try await SaveDrawing.of(drawing, on: service.bus)).sha256
            return try PhotoJSON.response(try await service.setMarkup(owner: identity.accountID, id: id, sha256: saved,
                                                                      expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.delete, "photos/{id}/markup", summary: "Remove the mark-up") { request, context, identity in
            try PhotoJSON.response(try await service.setMarkup(owner: identity.accountID, id: try Self.id(context), sha256: nil,
                                                               expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.get, "photos/{id}/marked", summary: "The photo with its mark-up drawn on it (PNG, display size)") { request, context, identity in
            let photo = try await service.photo(owner: identity.accountID, id: try Self.id(context)).decode(PhotoData.self)
            let rendered = try await service.bus.request(RenderDrawing(sha256: photo.markup, format: .png,
                                                                       over: .init(sha256: photo.image, rendition: "display")),
                                                          timeout: .seconds(30))
            return .bytes(try await rendered.bytes(on: service.bus), type: "image/png", tag: nil, request: request)
        }
        try routes.add(.get, "tags", query: ["limit", "cursor"], summary: "My tags with how many photos carry each, most used first") { request, _, identity in
            let counters = try await service.counters(owner: identity.accountID, kind: .tag, limit: try request.limit(default: 200, max: 1000),
                                                      cursor: try request.query("cursor"))
            return try .json(ListPage(items: counters.items.map { CountJSON(key: $0.key, label: $0.label, count: $0.count) }, nextCursor: counters.next))
        }
        try routes.add(.get, "recent", query: ["days"], summary: "The most recent days with photos, newest first (?days=N, default 7)") { request, _, identity in
            let days = try request.queryInteger("days", in: 1...366) ?? 7
            let counters = try await service.counters(owner: identity.accountID, kind: .day, limit: days)
            // The N most recent days are the whole answer: ?days is this list's limit.
            return try .json(ListPage(items: counters.items.map { CountJSON(key: $0.key, label: AlbumService.readableDay($0.key), count: $0.count) },
                                      nextCursor: nil))
        }
        try routes.add(.get, "folders/months", query: ["limit", "cursor"], summary: "Month folders, newest first, with their photo counts") { request, _, identity in
            let counters = try await service.counters(owner: identity.accountID, kind: .month, limit: try request.limit(default: 1000, max: 1000),
                                                      cursor: try request.query("cursor"))
            return try .json(ListPage(items: counters.items.map { CountJSON(key: $0.key, label: AlbumService.readableMonth($0.key), count: $0.count) },
                                      nextCursor: counters.next))
        }
        try routes.add(.get, "folders/months/{month}", query: ["tags", "match", "from", "to", "place", "order", "limit", "cursor"], summary: "The photos of one month (YYYY-MM), in time order") { request, context, identity in
            let month = context.parameters.get("month") ?? ""
            guard month.count == 7, TakenTime.wallClock(month + "-01") != nil else {
                throw Problem.badRequest("A month folder is YYYY-MM, e.g. 2024-05.", field: "month")
            }
            var filter = try Self.filter(request)
            filter.from = month + "-01T00:00:00"
            filter.to = month + "-31T23:59:59|~"
            return try await Self.page(service, request, owner: identity.accountID, filter: filter, pageSize: pageSize)
        }
        try routes.add(.get, "folders/places", query: ["limit", "cursor"], summary: "Place folders (city, region, country), most photos first") { request, _, identity in
            let counters = try await service.counters(owner: identity.accountID, kind: .place, limit: try request.limit(default: 1000, max: 1000),
                                                      cursor: try request.query("cursor"))
            return try .json(ListPage(items: counters.items.map { CountJSON(key: $0.key, label: $0.label, count: $0.count) }, nextCursor: counters.next))
        }
        try routes.add(.get, "folders/places/{key}", query: ["tags", "match", "from", "to", "place", "order", "limit", "cursor"], summary: "The photos of one place folder, in time order") { request, context, identity in
            var filter = try Self.filter(request)
            filter.placeKey = context.parameters.get("key")
            return try await Self.page(service, request, owner: identity.accountID, filter: filter, pageSize: pageSize)
        }
        try routes.add(.get, "slideshow", query: ["tags", "match", "from", "to", "place", "limit", "cursor"], summary: "Every photo of the album or of a search (same parameters as photos) once, in random order") {
            request, _, identity in
            // The cursor carries the shuffle's seed, so every page comes from one order.
            let (seed, offset) = try SlideshowCursor.decode(try request.query("cursor"))
            let ids = try await service.slideshow(owner: identity.accountID, filter: try Self.filter(request), seed: seed)
            let limit = try request.limit(default: 500, max: 1000)
            let end = min(ids.count, offset + limit)
            return try .json(ListPage(items: offset < end ? Array(ids[offset..<end]) : [],
                                      nextCursor: end < ids.count ? SlideshowCursor.encode(seed: seed, offset: end) : nil))
        }
        try routes.add(.post, "photos/{id}/share", summary: "Share one photo read-only: {expiresInSeconds?, password?, title?, markup?: true to show it marked up, "
                       + "notes?: true to show its notes (left out unless asked: the page shows the picture, its time and tags), "
                       + "people?: false to leave out the names of the people in it}") {
            request, context, identity in
            var request = request
            let input = try await request.decodeOptionalJSON(ShareInput.self, context: context) ?? ShareInput()
            let id = try Self.id(context)
            var resource = ["photo": id]
            if input.markup == true {
                guard try await service.photo(owner: identity.accountID, id: id).decode(PhotoData.self).markup != nil else {
                    throw Problem.invalid("This photo has no mark-up to share; draw on it first, or share it without 'markup'.", field: "markup")
                }
                resource["markup"] = "true"
            }
            if input.notes == true { resource["notes"] = "true" }
            if input.people == false { resource["people"] = "false" }
            return try await Self.share(service, owner: identity.accountID, kind: SharedPhoto.id, resource: resource, input)
        }
        try routes.add(.post, "searches/share", summary: "Share a search read-only: {tags, from, to, match, expiresInSeconds?, password?, title?}") {
            request, context, identity in
            var request = request
            let input = try await request.decodeOptionalJSON(ShareInput.self, context: context) ?? ShareInput()
            if input.markup != nil { throw Problem.invalid("'markup' is for sharing one photo; a search is shared as its photos are.", field: "markup") }
            if input.notes != nil { throw Problem.invalid("'notes' is for sharing one photo; a shared search shows no notes.", field: "notes") }
            if input.people != nil { throw Problem.invalid("'people' is for sharing one photo; a shared search names nobody.", field: "people") }
            var resource: [String: String] = [:]
            for (key, value) in [("tags", input.tags), ("from", input.from), ("to", input.to), ("match", input.match)] {
                if let value, !value.isEmpty { resource[key] = value }
            }
            _ = try AlbumService.filter(tags: resource["tags"], from: resource["from"], to: resource["to"], match: resource["match"], place: nil)
            return try await Self.share(service, owner: identity.accountID, kind: SharedPhotoSearch.id, resource: resource, input)
        }
    }

    static func id(_ context: QuireContext) throws -> String {
        guard let id = context.parameters.get("id") else { throw Problem.badRequest("The photo id is missing from the path.") }
        return id
    }

    static func filter(_ request: Request) throws -> PhotoFilter {
        try AlbumService.filter(tags: try request.query("tags"), from: try request.query("from"), to: try request.query("to"),
                                match: try request.query("match"), place: try request.query("place"))
    }

    static func page(_ service: AlbumService, _ request: Request, owner: String, filter: PhotoFilter, pageSize: Int) async throws -> Response {
        let order = try request.query("order") ?? "asc"
        guard order == "asc" || order == "desc" else { throw Problem.badRequest("'order' is asc (oldest first) or desc.", field: "order") }
        let page = try await service.list(owner: owner, filter: filter, descending: order == "desc", limit: try request.limit(default: pageSize, max: 500),
                                          cursor: try request.query("cursor"))
        return try .json(ListPage(items: page.items.map(ThumbnailJSON.init), nextCursor: page.next))
    }

    static func image(_ service: AlbumService, _ request: Request, owner: String, id: String, rendition: String) async throws -> Response {
        let photo = try await service.photo(owner: owner, id: id).decode(PhotoData.self)
        let image = try await service.bus.request(RenderImage(sha256: photo.image, rendition: rendition), timeout: .seconds(30))
        return .bytes(try await image.bytes(on: service.bus), type: image.format.mimeType, tag: image.sha256, request: request)
    }

    /// What the mark-up screen opens with after an upload or import.
    static func markupScreen(_ service: AlbumService, owner: String, _ record: Record) async throws -> Response {
        let photo = try record.decode(PhotoData.self)
        let suggestions = try await service.counters(owner: owner, kind: .tag, limit: 12).items.map(\.label)
        let screen = MarkupScreen(photo: PhotoJSON(record, photo), markup: .init(drawing: Drawing.empty, width: photo.width, height: photo.height,
                                                                                  image: "/api/v1/album/photos/\(record.id)/image/display"),
                                  suggestedTags: suggestions)
        return try .json(screen, status: .created, headers: [.location: "/api/v1/album/photos/\(record.id)", .eTag: "\"\(record.version)\""])
    }

    struct ShareInput: Decodable {
        var expiresInSeconds: Int?
        var password: String?
        var title: String?
        /// A photo share: show the photo with its mark-up drawn on it.
        var markup: Bool?
        /// A photo share: show the photo's notes (the page's title is then their first line).
        var notes: Bool?
        /// A photo share: false leaves out the names of the people in it (shown by default, with `people: true` in the album).
        var people: Bool?
        var tags: String?
        var from: String?
        var to: String?
        var match: String?
    }

    static func share(_ service: AlbumService, owner: String, kind: String, resource: [String: String], _ input: ShareInput) async throws -> Response {
        if let seconds = input.expiresInSeconds, seconds < 1 { throw Problem.invalid("expiresInSeconds is at least 1.", field: "expiresInSeconds") }
        let created = try await service.bus.request(CreateShareLink(owner: owner, kind: kind, resource: resource, title: input.title,
                                                                    expiresAt: input.expiresInSeconds.map { service.clock.now().addingTimeInterval(TimeInterval($0)) },
                                                                    password: input.password))
        return try .json(created, status: .created, headers: [.location: created.path])
    }
}

extension AlbumService {
    static func readableDay(_ day: String) -> String { String(readable(day + "T00:00:00").split(separator: " at ").first ?? Substring(day)) }

    static func readableMonth(_ month: String) -> String {
        let parts = readableDay(month + "-01").split(separator: " ")
        return parts.count == 3 ? "\(parts[0]) \(parts[2])" : month
    }
}

/// A slideshow page's position: the seed of its order and how far it has got.
enum SlideshowCursor {
    static func encode(seed: UInt64, offset: Int) -> String { OpaqueCursor.encode("s:\(seed):\(offset)") }

    /// A new random seed at offset 0 without a cursor.
    static func decode(_ text: String?) throws -> (seed: UInt64, offset: Int) {
        guard let text else { return (UInt64.random(in: .min ... .max), 0) }
        let parts = OpaqueCursor.decode(text, maxLength: 80)?.split(separator: ":") ?? []
        guard parts.count == 3, parts[0] == "s", let seed = UInt64(parts[1]), let offset = Int(parts[2]), offset >= 0 else {
            throw Problem.badRequest("The cursor is not one this slideshow gave; start again without it.", field: "cursor")
        }
        return (seed, offset)
    }
}
