public import AppConfig
import Bus
import Foundation
public import HTTPKit
import Hummingbird
public import PluginKit
import StorageAPI
import NotesAPI
import SyncAPI
import MediaAPI
import DrawingAPI
import MailAPI
import ShareLinkAPI
public import ServiceLifecycle

/// The `notes` plugin — Napkin Notes' domain: quick notes with a title, text and date, in the user's
/// own order, each with one photo (through media) and a drawing on its back (through drawing).
///
/// ```yaml
/// notes: { time_zone: Europe/Paris }
/// ```
public struct NotesPlugin: Plugin {
    public struct Config: Sendable {
        var timeZone: TimeZone
        var pageSize: Int
        var listCacheBytes: Int
        var search: Bool
        var categories: Bool
        var maxImportBytes: Int
        /// The text in photos, read by the photo-text plugin as a background job, searched with the note.
        var photoText: Bool
    }

    public static let descriptor = PluginDescriptor(
        id: "notes",
        summary: "Napkin Notes: notes with title, text and date in the user's own order, a photo each and a drawing on the back",
        dependencies: ["storage", "auth", "media", "drawing"],
        settings: [
            SettingDescription("time_zone", "IANA zone", default: "UTC", "Whose 'today' a new note gets as its date"),
            SettingDescription("page_size", "int 1...500", default: "100", "Notes per page when the client does not say"),
            SettingDescription("list_cache_bytes", "int 0...1073741824", default: "67108864",
                               "Rendered list pages kept in memory; 0 turns the cache off. Kept coherent across nodes by storage's change events"),
            SettingDescription("search", "bool", default: "false", "Search of titles and texts as you type (storage's search index)"),
            SettingDescription("categories", "bool", default: "false", "A category on each note, and lists of one category"),
            SettingDescription("photo_text", "bool", default: "false",
                               "The text in a note's photo read on the server (needs the photo-text plugin's section), shown under the photo and searched"),
            SettingDescription("max_import_bytes", "int 1...8589934592", default: "4294967296",
                               "Largest Evernote (.enex) or Google Keep (Takeout zip) file an import takes; it is streamed, never held in memory"),
        ],
        offers: [NoteSubject.self, SharedNote.self, SyncedNote.self])

    public static func configure(_ section: ConfigSection) -> Config {
        let zoneName = section.string("time_zone", default: "UTC") ?? "UTC"
        let zone = TimeZone(identifier: zoneName)
        if zone == nil { section.report("time_zone", "unknown time zone \"\(zoneName)\"; use an IANA name such as Europe/Paris") }
        return Config(timeZone: zone ?? .gmt, pageSize: section.int("page_size", default: 100, in: 1...500),
                      listCacheBytes: section.int("list_cache_bytes", default: 64 << 20, in: 0...(1 << 30)),
                      search: section.bool("search", default: false), categories: section.bool("categories", default: false),
                      maxImportBytes: section.int("max_import_bytes", default: 4 << 30, in: 1...(8 << 30)),
                      photoText: section.bool("photo_text", default: false))
    }

    let service: NotesService
    let bus: any MessageBus
    let pageSize: Int
    let uploadLimits: (photo: Int, drawing: Int)
    /// Keep the list cache (when on) and the last positions coherent with other nodes' writes.
    let invalidations: [HandlerRegistration]
    /// Evernote and Keep imports, as jobs of the host's ServiceGroup.
    let imports: NoteImports
    let background = BackgroundWork(plugin: "notes")
    let maxImportBytes: Int

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        try await store.declare(NotesService.schema(search: config.search, categories: config.categories, photoText: config.photoText))
        try await store.declare(NoteImports.jobsSchema)
        try await store.declare(NotesService.orderSchema)
        self.bus = context.bus
        service = NotesService(store: store, bus: context.bus, clock: context.clock, ids: context.ids, timeZone: config.timeZone, searchOn: config.search, categoriesOn: config.categories,
                               lists: NoteListCache(capacity: config.listCacheBytes),
                               respacer: NoteRespacer(background: background, logger: context.logger), positions: NoteLastPositions())
        extraFeatures = (config.search ? ["search"] : []) + (config.categories ? ["categories"] : []) + (config.photoText ? ["photo-text"] : [])
        pageSize = config.pageSize
        invalidations = (config.listCacheBytes > 0 ? NoteListInvalidator.observe(service.lists, on: context.bus) : [])
            + NotePositionInvalidator.observe(service.positions, on: context.bus)
        uploadLimits = (photo: try await context.bus.request(GetMediaLimits()).maxBytes,
                        drawing: try await context.bus.request(GetDrawingLimits()).maxBytes)
        imports = NoteImports(service: service, blobs: BusBlobStore(bus: context.bus, timeout: .seconds(60)), logger: context.logger,
                              maxPhotoBytes: uploadLimits.photo, background: background, queue: context.jobs)
        maxImportBytes = config.maxImportBytes
        if config.photoText { try await store.declare(NotePhotoText.jobsSchema) }
        photoText = config.photoText ? NotePhotoText(service: service, logger: context.logger, background: background, queue: context.jobs) : nil
    }

    /// Reads the text in photos (`photo_text: true`).
    let photoText: NotePhotoText?

    let extraFeatures: [String]

    public var features: [String] { ["notes", "reorder", "photo", "drawing", "history", "import:enex", "import:keep"] + extraFeatures }

    public var services: [any Service] { [background, NoteImportJanitor(imports: imports, photoText: photoText)] }

    public func register(on bus: any MessageBus) async throws {
        let imports = self.imports
        try bus.handle(StartNoteImport.self) { request, _ in try await imports.start(request) }
        try bus.handle(GetNoteImportJob.self) { request, _ in try await imports.job(owner: request.owner, id: request.id) }
        try bus.handle(ListNoteImportJobs.self) { request, _ in
            .init(jobs: try await imports.records.list(state: request.state.rawValue).map { .init(owner: $0.owner, job: $0.job) })
        }
        // Other plugins ask before they attach something to a note (a geotag, a reminder).
        let service = self.service
        try bus.handle(CheckSubject<NoteSubject>.self) { request, _ in try await service.access(caller: request.caller, id: request.id) }
        // A link to a note (share-link): what it shows now.
        try bus.handle(ShowShared<SharedNote>.self) { request, _ in try await service.sharedView(owner: request.owner, resource: request.resource) }
        // Sync's feed shows a note as GET /notes/{id} does.
        try bus.handle(ShowSynced<SyncedNote>.self) { request, _ in
            .init(shown: request.records.map { $0.owner == request.viewer ? NoteJSON.document($0) : nil })
        }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let service = self.service
        let pageSize = self.pageSize
        try routes.add(.get, "", query: ["limit", "cursor", "category"],
                       summary: "The signed-in user's notes, in their order (cursor pages); ?category= one category's (with categories on)") {
            request, _, identity in
            let limit = try request.limit(default: pageSize, max: 500)
            let cursor = request.uri.queryParameters["cursor"].map(String.init)
            if let category = request.uri.queryParameters["category"] {
                return NoteJSON.listResponse(NoteJSON.listBytes(try await service.notes(owner: identity.accountID, category: String(category),
                                                                                        limit: limit, cursor: cursor)))
            }
            return NoteJSON.listResponse(try await service.listPage(owner: identity.accountID, limit: limit, cursor: cursor))
        }
        try routes.add(.get, "search", query: ["q", "category", "limit"],
                       summary: "Search titles and texts as you type (with search on): every word, the last as a prefix; title matches first") {
            request, _, identity in
            let limit = try request.limit(default: 20, max: SearchQuery.maxLimit)
            let result = try await service.search(owner: identity.accountID, text: request.uri.queryParameters["q"].map(String.init) ?? "",
                                                  category: request.uri.queryParameters["category"].map(String.init), limit: limit)
            return NoteJSON.searchResponse(result)
        }
        let (imports, maxImport) = (self.imports, maxImportBytes)
        try routes.add(.post, "imports", query: ["format"],
                       summary: "Import notes from Evernote (.enex) or Google Keep (a Takeout zip), the file as the body; ?format=enex|keep; 202 with the job") {
            request, _, identity in
            let format = try Self.importFormat(request)
            // A place in the job queue first: a full queue is refused before the body is read. The
            // body goes straight to a file of the job's, a piece at a time, never whole in memory.
            let scratch = imports.scratch()
            let job = try await imports.runner.admit(owner: identity.accountID, scratch: scratch, bringIn: { scratch in
                try await request.spoolUpload(limit: maxImport, what: "an export file", into: scratch) { _ in }.file
            }) { file, ticket in try await imports.start(file: file, scratch: scratch, owner: identity.accountID, format: format, ticket: ticket) }
            return try .json(job, status: .accepted, headers: [.location: "/api/v1/notes/imports/\(job.id)"])
        }
        try routes.add(.get, "imports/{id}", summary: "An import's state: running, succeeded or failed; progress; each note it could not bring in") {
            _, context, identity in
            try .json(try await imports.job(owner: identity.accountID, id: try Self.id(context)))
        }
        try routes.add(.get, "categories", summary: "My categories, by name, with how many notes each has (with categories on)") { _, _, identity in
            let categories = try await service.categories(owner: identity.accountID)
            return try .json(ListPage(items: categories.map { CategoryJSON(name: $0.name, count: $0.count) }, nextCursor: nil))
        }
        try routes.add(.post, "", summary: "Create a note (title defaults to \"Title\", date to today); honours Idempotency-Key") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NoteInput.self, context: context, fast: NoteFastJSON.input)
            let (note, replayed) = try await service.create(owner: identity.accountID, input: input,
                                                            idempotencyKey: try request.idempotencyKey())
            var headers: HTTPFields = [.location: "/api/v1/notes/\(note.id)"]
            if replayed { headers[.idempotentReplayed] = "true" }
            return NoteJSON.response(note, status: .created, headers: headers)
        }
        try routes.add(.post, "{id}/email", summary: "Send the note by email (apps with the mail plugin): {\"to\"}; its title, date and text, its photo attached") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(EmailInput.self, context: context)
            let sent = try await service.email(owner: identity.accountID, id: try Self.id(context), to: input.to ?? "")
            return try .json(EmailReply(to: input.to ?? "", messageID: sent.messageID))
        }
        try routes.add(.post, "{id}/share", summary: "Share the note read-only (apps with share-link): {title?, expiresInSeconds?, password?}; 201 with the link's path") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NoteShareInput.self, context: context)
            let created = try await service.share(owner: identity.accountID, id: try Self.id(context), input: input)
            return try .json(created, status: .created, headers: [.location: created.path])
        }
        try routes.add(.get, "{id}", summary: "One note") { _, context, identity in
            let id = try Self.id(context)
            let record = try await service.note(owner: identity.accountID, id: id)
            return NoteJSON.response(record)
        }
        try routes.add(.patch, "{id}", summary: "Edit title, text or date; If-Match guards against lost updates; honours Idempotency-Key (the same edit sent again is answered with the note as it is, not made again)") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NoteInput.self, context: context, fast: NoteFastJSON.input)
            let (id, expected) = (try Self.id(context), try request.ifMatchVersion())
            let edited = try await service.edit(owner: identity.accountID, id: id, input: input, expectedVersion: expected,
                                                idempotencyKey: try request.idempotencyKey())
            return NoteJSON.response(edited.record, replaced: edited.replaced, headers: edited.replayed ? [.idempotentReplayed: "true"] : [:])
        }
        try routes.add(.get, "{id}/history", query: ["limit", "cursor"],
                       summary: "The note's earlier versions, newest first (kept for the storage retention window)") { request, context, identity in
            let id = try Self.id(context)
            let versions = try await service.history(owner: identity.accountID, id: id)
            var documents: [JSONDocument] = []
            for version in versions { documents.append(NoteJSON.document(version)) }
            return try .json(try ListPage.slice(documents, request: request, pageSize: 50, max: 500))
        }
        try routes.add(.post, "{id}/history/{version}/restore",
                       summary: "Bring back an earlier version's title, text and date, as a new version") { _, context, identity in
            let (id, version) = (try Self.id(context), try Self.version(context))
            let restored = try await service.restore(owner: identity.accountID, id: id, version: version)
            return NoteJSON.response(restored.record)
        }
        try routes.add(.delete, "{id}", summary: "Delete a note") { request, context, identity in
            try await service.delete(owner: identity.accountID, id: try Self.id(context),
                                     expectedVersion: try request.ifMatchVersion())
            return .noContent
        }
        try routes.add(.post, "{id}/move", summary: "Move a note just before or after another: {\"before\": id} or {\"after\": id}") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(MoveInput.self, context: context)
            return NoteJSON.response(try await service.move(owner: identity.accountID, id: try Self.id(context), input: input))
        }
        try NoteAttachmentRoutes.add(to: routes, service: service, limits: uploadLimits, photoText: photoText)
        try NotePhotoTextRoutes.add(to: routes, photoText: photoText)
        try NoteVoiceRoutes.add(to: routes, service: service)
    }

    /// The import's format: `?format=`, else from the Content-Type.
    static func importFormat(_ request: Request) throws -> NoteImportFormat {
        if let raw = request.uri.queryParameters["format"] {
            guard let format = NoteImportFormat(rawValue: String(raw)) else {
                throw Problem.badRequest("'format' is enex (Evernote) or keep (a Google Takeout zip), not '\(raw)'.", field: "format")
            }
            return format
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("application/enex") || type.hasPrefix("application/xml") || type.hasPrefix("text/xml") { return .enex }
        if type.hasPrefix("application/zip") { return .keep }
        throw Problem.badRequest("Say what the file is: ?format=enex (Evernote) or ?format=keep (Google Takeout zip).", field: "format")
    }

    static func version(_ context: QuireContext) throws -> Int64 {
        guard let text = context.parameters.get("version"), text.utf8.allSatisfy({ (48...57).contains($0) }), let version = Int64(text), version > 0 else {
            throw Problem.badRequest("The version in the path must be a whole number from 1.", field: "version")
        }
        return version
    }

    static func id(_ context: QuireContext) throws -> String {
        guard let id = context.parameters.get("id") else { throw Problem.badRequest("The note id is missing from the path.") }
        return id
    }
}

/// Rolls back imports a stopped server left running, soon after they fall silent.
struct NoteImportJanitor: Service {
    let imports: NoteImports
    /// And readings of photos' text a stopped server left (their notes then say `failed`).
    var photoText: NotePhotoText?

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await imports.recover()
            await photoText?.recover()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(5)) }
            } catch {
                return
            }
        }
    }
}
