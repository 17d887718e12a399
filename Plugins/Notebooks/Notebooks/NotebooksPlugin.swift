public import AppConfig
public import Bus
import Foundation
public import HTTPKit
import HTTPTypes
import Hummingbird
import MediaAPI
import NotebooksAPI
public import PluginKit
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// The `notebooks` plugin — AR Notebook's domain: notebooks with cover styles, pages (blank or from
/// a one- or two-slot template, on a palette colour), keyboard, clipboard and gallery inserts placed
/// in slots or centred, frames the server keeps inside the page, single-step undo, confirmed
/// deletes, read-only sharing and GPS pins. The 3D rendering is the client's.
///
/// ```yaml
/// notebooks: { nearby_radius_meters: 100, presence_minutes: 15 }
/// ```
public struct NotebooksPlugin: Plugin {
    public struct Config: Sendable {
        var layout: NotebookLayout
        var limits: NotebookStore.Limits
    }

    public static let descriptor = PluginDescriptor(
        id: "notebooks",
        summary: "AR Notebook: notebooks, pages and templates, text/clipboard/image inserts, undo, confirmed deletes, read-only sharing, GPS pins",
        dependencies: ["storage", "auth", "media", "geo", "share-link"],
        settings: [
            SettingDescription("page_width", "number 100...10000", default: "600", "A page's width in page units (frames use these)"),
            SettingDescription("page_height", "number 100...10000", default: "800", "A page's height in page units"),
            SettingDescription("max_pages", "int 1...1000", default: "500", "Most pages in one notebook"),
            SettingDescription("max_items_per_page", "int 1...1000", default: "50", "Most items on one page"),
            SettingDescription("nearby_radius_meters", "number 1...100000", default: "100", "How near a pinned notebook must be to be found and opened"),
            SettingDescription("presence_minutes", "int 1...1440", default: "15", "How long a reported location lets its user open pinned notebooks there"),
        ],
        offers: [SharedNotebook.self, SyncedNotebook.self, SyncedNotebookPage.self, SyncedNotebookItem.self])

    public static func configure(_ section: ConfigSection) -> Config {
        let layout = NotebookLayout(pageWidth: Double(section.int("page_width", default: 600, in: 100...10_000)),
                                    pageHeight: Double(section.int("page_height", default: 800, in: 100...10_000)))
        let limits = NotebookStore.Limits(maxPages: section.int("max_pages", default: 500, in: 1...1000),
                                            maxItemsPerPage: section.int("max_items_per_page", default: 50, in: 1...1000),
                                            nearbyRadius: Double(section.int("nearby_radius_meters", default: 100, in: 1...100_000)),
                                            presenceTTL: Int64(section.int("presence_minutes", default: 15, in: 1...1440)) * 60)
        return Config(layout: layout, limits: limits)
    }

    let service: NotebookService
    let maxImageBytes: Int

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        for schema in NotebookStore.schemas { try await store.declare(schema) }
        maxImageBytes = try await context.bus.request(GetMediaLimits()).maxBytes
        service = NotebookService(core: NotebookStore(store: store, bus: context.bus, clock: context.clock, ids: context.ids, layout: config.layout, limits: config.limits))
    }

    public var features: [String] { ["notebooks", "templates", "inserts", "undo", "share", "gps-pins"] }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(ShowShared<SharedNotebook>.self) { request, _ in try await service.sharing.sharedView(owner: request.owner, resource: request.resource) }
        try bus.handle(ListSharedScopes<SyncedNotebook>.self) { request, _ in .init(scopes: try await service.sharing.sharedScopes(caller: request.viewer)) }
        try bus.handle(ShowSynced<SyncedNotebook>.self) { request, _ in .init(shown: try await service.sharing.showSynced(viewer: request.viewer, records: request.records)) }
        try bus.handle(ShowSynced<SyncedNotebookPage>.self) { request, _ in .init(shown: try await service.sharing.showSynced(viewer: request.viewer, records: request.records)) }
        try bus.handle(ShowSynced<SyncedNotebookItem>.self) { request, _ in .init(shown: try await service.sharing.showSynced(viewer: request.viewer, records: request.records)) }
    }

    struct Catalog: Codable, Sendable {
        var pageWidth: Double
        var pageHeight: Double
        var covers: [NotebookLayout.Cover]
        var templates: [NotebookLayout.Template]
        var palette: [NotebookLayout.Swatch]
        var clipboardMaxCharacters: Int
        var maxImageBytes: Int
    }

    public func routes(_ routes: PluginRoutes) throws {
        let service = self.service
        let maxImageBytes = self.maxImageBytes
        try routes.add(.get, "catalog", summary: "Cover styles, page templates with their slots, the background palette and the page size") { _, _, _ in
            try .json(Catalog(pageWidth: service.core.layout.pageWidth, pageHeight: service.core.layout.pageHeight, covers: NotebookLayout.covers,
                              templates: service.core.layout.templates, palette: NotebookLayout.palette,
                              clipboardMaxCharacters: NotebookRules.maxClipboardLength, maxImageBytes: maxImageBytes))
        }
        try routes.add(.get, "notebooks", query: ["limit", "cursor"], summary: "My notebooks, most recently opened first") { request, _, identity in
            try .json(try ListPage.slice(try await service.shelf.list(owner: identity.accountID), request: request, pageSize: 100, max: 1000))
        }
        try routes.add(.post, "notebooks", summary: "Create a notebook: {name?, cover: colors|image|text, coverText?}") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NotebookInput.self, context: context)
            let (record, data) = try await service.shelf.create(owner: identity.accountID, name: input.name, cover: input.cover, coverText: input.coverText)
            return try .json(NotebookJSON(record, data, access: .owner), status: .created,
                             headers: [.location: "/api/v1/notebooks/notebooks/\(record.id)"])
        }
        try routes.add(.post, "open", summary: "Open a notebook ({id}); with none, the last one opened, else a new default one. Answers every page and item") {
            request, context, identity in
            var request = request
            let input = try await request.decodeOptionalJSON(OpenInput.self, context: context) ?? OpenInput()
            return try .json(try await service.shelf.open(caller: identity.accountID, id: input.id))
        }
        try routes.add(.get, "notebooks/{id}", summary: "A whole notebook: every page in order with its items in insertion order") { _, context, identity in
            let (record, data, access) = try await service.accessControl.access(caller: identity.accountID, id: try Self.id(context))
            return try .json(try await service.shelf.content(record, data, access: access))
        }
        try routes.add(.patch, "notebooks/{id}", summary: "Rename or restyle: {name?, cover?, coverText?, coverItem?: an image item of the notebook for an image cover}") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NotebookInput.self, context: context)
            return try .json(try await service.shelf.rename(caller: identity.accountID, id: try Self.id(context), name: input.name, cover: input.cover,
                                                      coverText: input.coverTextGiven ? .some(input.coverText) : nil,
                                                      coverItem: input.coverItemGiven ? .some(input.coverItem) : nil))
        }
        try routes.add(.delete, "notebooks/{id}", query: ["confirm"], summary: "Delete a notebook and everything in it: 428 with a confirm token first, then ?confirm=TOKEN") {
            request, context, identity in
            try await Self.confirming {
                try await service.deletes.deleteNotebook(caller: identity.accountID, id: try Self.id(context), confirm: try request.query("confirm"))
            }
        }
        try routes.add(.post, "notebooks/{id}/pages", summary: "Add a page: {template: blank|one-slot|two-slots, background?, after?: page number}") {
            request, context, identity in
            var request = request
            let input = try await request.decodeOptionalJSON(PageInput.self, context: context) ?? PageInput()
            let view = try await service.pages.addPage(caller: identity.accountID, id: try Self.id(context), template: input.template,
                                                 background: input.background, after: input.after)
            return try .json(view, status: .created)
        }
        try routes.add(.get, "notebooks/{id}/pages/{number}", summary: "Page N (0 is the cover) with its items and the previous/next page numbers") {
            _, context, identity in
            try .json(try await service.pages.page(caller: identity.accountID, id: try Self.id(context), number: try await Self.number(context, service, identity)))
        }
        try routes.add(.patch, "notebooks/{id}/pages/{number}", summary: "Change a page's background: {background} from the palette") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(PageInput.self, context: context)
            guard let background = input.background else { throw Problem.badRequest("Send {\"background\": \"<palette colour>\"}.", field: "background") }
            return try .json(try await service.pages.setBackground(caller: identity.accountID, id: try Self.id(context), number: try await Self.number(context, service, identity),
                                                             background: background))
        }
        try routes.add(.delete, "notebooks/{id}/pages/{number}", query: ["confirm"], summary: "Delete page N and its items: 428 with a confirm token first, then ?confirm=TOKEN") {
            request, context, identity in
            try await Self.confirming {
                try await service.deletes.deletePage(caller: identity.accountID, id: try Self.id(context), number: try await Self.number(context, service, identity),
                                             confirm: try request.query("confirm"))
            }
        }
        try routes.add(.post, "notebooks/{id}/pages/{number}/items", query: ["slot"], summary: "Insert on page N: JSON {kind: text|clipboard, text, slot?} or an image "
                       + "(gallery) as the body with ?slot=; placed in the slot, else centred. Idempotency-Key replays") { request, context, identity in
            var request = request
            let id = try Self.id(context)
            let number = try await Self.number(context, service, identity)
            let key = try request.idempotencyKey()
            let contentType = request.headers[.contentType]?.lowercased() ?? ""
            let insert: NotebookInserts.Insert
            var slot: Int?
            if contentType.hasPrefix("application/json") {
                let input = try await request.decodeJSON(InsertInput.self, context: context)
                guard input.kind == "text" || input.kind == "clipboard" else {
                    throw Problem.invalid("'kind' is text (keyboard) or clipboard; send an image as the body with its image/* type.", field: "kind")
                }
                guard let text = input.text else {
                    throw Problem.invalid(input.kind == "clipboard" && input.textWasNotString
                                          ? "The clipboard holds something other than text; only text can be pasted." : "Send the item's 'text'.",
                                          field: "text")
                }
                insert = .text(text, kind: input.kind)
                slot = input.slot
            } else if contentType.hasPrefix("image/") || contentType.hasPrefix("application/octet-stream") {
                slot = try request.queryInteger("slot", in: 0...1_000)
                // Under the server's memory budget: streamed to a file beside the blobs, decoded from it.
                let cost = ImageUpload.memoryCost(declaredBytes: request.headers[.contentLength].flatMap { Int($0) }, limit: maxImageBytes)
                let chosen = slot
                let result = try await MemoryBudget.shared.withReservation(cost, for: "this image", draining: request, limit: maxImageBytes) {
                    let upload: BlobPayload
                    if let directory = await ImageUpload.spoolDirectory(on: service.inserts.bus) {
                        let spooled = try await request.spoolUpload(limit: maxImageBytes, what: "an image", into: directory) { head in
                            try ImageUpload.checkHead(head, what: "an image")
                        }
                        upload = try await ImageUpload.payload(file: spooled.file, on: service.inserts.bus)
                    } else {
                        upload = try await BlobPayload.wrap(try await request.collectUpload(limit: maxImageBytes, what: "an image"),
                                                            in: BusBlobStore(bus: service.inserts.bus))
                    }
                    do {
                        return try await service.inserts.insert(caller: identity.accountID, id: id, number: number, slot: chosen, idempotencyKey: key,
                                                                .image(upload))
                    } catch {
                        await upload.release(on: service.inserts.bus)  // refused: the upload's blob goes (unless something holds it)
                        throw error
                    }
                }
                return try .json(result, status: .created)
            } else {
                throw Problem(status: .unsupportedMediaType, code: "unsupported_media_type",
                              detail: "Send text as application/json {kind, text} or an image with its image/* Content-Type.")
            }
            let result = try await service.inserts.insert(caller: identity.accountID, id: id, number: number, slot: slot, idempotencyKey: key, insert)
            return try .json(result, status: .created)
        }
        try routes.add(.patch, "notebooks/{id}/items/{item}", summary: "Move or resize an item ({frame: {x, y, width, height}}; kept inside the page) "
                       + "or change its text") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(ItemInput.self, context: context)
            guard input.frame != nil || input.text != nil else { throw Problem.badRequest("Send a 'frame', a 'text' or both.") }
            return try .json(try await service.inserts.updateItem(caller: identity.accountID, id: try Self.id(context), itemID: try Self.item(context),
                                                          frame: input.frame, text: input.text, expectedVersion: try request.ifMatchVersion(),
                                                          idempotencyKey: try request.idempotencyKey()))
        }
        try routes.add(.delete, "notebooks/{id}/items/{item}", summary: "Remove one item (not undoable)") { _, context, identity in
            try await service.inserts.deleteItem(caller: identity.accountID, id: try Self.id(context), itemID: try Self.item(context))
            return .noContent
        }
        try routes.add(.get, "notebooks/{id}/items/{item}/image", summary: "An image item's picture as uploaded") { request, context, identity in
            try await Self.image(service, request, context, identity, rendition: RenderImage.original)
        }
        try routes.add(.get, "notebooks/{id}/items/{item}/image/{rendition}", summary: "An image item in a rendition declared in the app's YAML") {
            request, context, identity in
            try await Self.image(service, request, context, identity, rendition: context.parameters.get("rendition") ?? "")
        }
        try routes.add(.post, "notebooks/{id}/undo", summary: "Undo the notebook's last thing done (once; deletes are not undoable): "
                       + "{item?}, the item this device added or changed last (\"\": none), undoes only while it is still the last (409 changed_elsewhere)") {
            request, context, identity in
            var request = request
            let input = try await request.decodeOptionalJSON(UndoInput.self, context: context)
            if let item = input?.item, !item.isEmpty, !StorageNames.isValidID(item) {
                throw Problem.invalid("'item' is an item's id from this notebook, or \"\" when this device has nothing of its own to undo.", field: "item")
            }
            return try .json(try await service.inserts.undo(caller: identity.accountID, id: try Self.id(context), mine: input?.item))
        }
        try routes.add(.post, "notebooks/{id}/share", summary: "Share read-only: {expiresInSeconds?, password?, title?}; answers the link") {
            request, context, identity in
            var request = request
            let input = try await request.decodeOptionalJSON(ShareInput.self, context: context) ?? ShareInput()
            if let seconds = input.expiresInSeconds, seconds < 1 { throw Problem.invalid("expiresInSeconds is at least 1.", field: "expiresInSeconds") }
            let created = try await service.sharing.share(caller: identity.accountID, id: try Self.id(context), title: input.title,
                                                  expiresAt: input.expiresInSeconds.map { service.core.clock.now().addingTimeInterval(TimeInterval($0)) }, password: input.password)
            return try .json(created, status: .created, headers: [.location: created.path])
        }
        try routes.add(.get, "shared", query: ["limit", "cursor"], summary: "Notebooks shared with me (read-only) whose links still live") {
            request, _, identity in
            try .json(try ListPage.slice(try await service.sharing.sharedWithMe(caller: identity.accountID), request: request, pageSize: 100, max: 1000))
        }
        try routes.add(.post, "shared", summary: "Open a shared link in the app: {token, password?}; the notebook is then readable by me") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(AcceptInput.self, context: context)
            return try .json(try await service.sharing.accept(caller: identity.accountID, token: input.token, password: input.password))
        }
        try routes.add(.put, "notebooks/{id}/pin", summary: "Pin a notebook to a place: {latitude, longitude, allowEdits}") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(PinInput.self, context: context)
            return try .json(try await service.pins.pin(caller: identity.accountID, id: try Self.id(context), latitude: input.latitude, longitude: input.longitude,
                                                   allowEdits: input.allowEdits ?? false))
        }
        try routes.add(.delete, "notebooks/{id}/pin", summary: "Take a notebook's pin away") { _, context, identity in
            try .json(try await service.pins.unpin(caller: identity.accountID, id: try Self.id(context)))
        }
        try routes.add(.post, "nearby", summary: "Report where I am: {latitude, longitude}; answers notebooks pinned nearby and raises the alert event") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(PinInput.self, context: context)
            return try .json(try await service.pins.nearby(caller: identity.accountID, latitude: input.latitude, longitude: input.longitude))
        }
    }

    // MARK: Helpers

    static func id(_ context: QuireContext) throws -> String {
        guard let id = context.parameters.get("id") else { throw Problem.badRequest("The notebook id is missing from the path.") }
        return id
    }

    static func item(_ context: QuireContext) throws -> String {
        guard let id = context.parameters.get("item") else { throw Problem.badRequest("The item id is missing from the path.") }
        return id
    }

    /// A page named by its number (0 is the cover, 1 the first page) or by its id: a device that
    /// queued a change offline names the page it saw, wherever other changes have moved it since.
    static func number(_ context: QuireContext, _ service: NotebookService, _ identity: Identity) async throws -> Int {
        guard let text = context.parameters.get("number") else {
            throw Problem.badRequest("A page is named by its number: 0 for the cover, 1 for the first page.", field: "number")
        }
        if let number = Int(text) {
            guard number >= 0 else { throw Problem.badRequest("A page is named by its number: 0 for the cover, 1 for the first page.", field: "number") }
            return number
        }
        guard StorageNames.isValidID(text) else {
            throw Problem.badRequest("A page is named by its number (0 for the cover, 1 for the first page) or by its id.", field: "number")
        }
        let (_, data, _) = try await service.accessControl.access(caller: identity.accountID, id: try id(context))
        guard let index = data.pages.firstIndex(of: text) else {
            throw Problem.notFound("Page '\(text)' is no longer in this notebook; it was deleted, perhaps on another device.")
        }
        return index + 1
    }

    /// Runs a delete that needs an explicit confirmation; without it, answers 428 with the token to
    /// repeat and what would go.
    static func confirming(_ body: () async throws -> Void) async throws -> Response {
        do {
            try await body()
            return .noContent
        } catch let needed as NotebookDeletes.ConfirmationNeeded {
            throw Problem(status: .preconditionRequired, code: "confirmation_required", detail: needed.summary,
                          extra: ["confirm": .string(needed.token), "pages": .int(needed.pages), "items": .int(needed.items)])
        }
    }

    static func image(_ service: NotebookService, _ request: Request, _ context: QuireContext, _ identity: Identity,
                      rendition: String) async throws -> Response {
        let (notebook, _, _) = try await service.accessControl.access(caller: identity.accountID, id: try id(context))
        let itemID = try item(context)
        guard StorageNames.isValidID(itemID), let record = try await service.core.store.get(collection: NotebookStore.items, id: itemID, owner: notebook.owner),
              let item = try? record.decode(ItemData.self), item.notebook == notebook.id, let sha = item.image else {
            throw Problem.notFound("No image item '\(itemID)' in this notebook.")
        }
        let image = try await service.core.bus.request(RenderImage(sha256: sha, rendition: rendition), timeout: .seconds(30))
        return .bytes(try await image.bytes(on: service.core.bus), type: image.format.mimeType, tag: image.sha256, request: request)
    }
}

struct NotebookInput: Decodable {
    var name: String?
    var cover: String?
    var coverText: String?
    var coverTextGiven = false
    var coverItem: String?
    var coverItemGiven = false

    enum CodingKeys: String, CodingKey { case name, cover, coverText, coverItem }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        cover = try container.decodeIfPresent(String.self, forKey: .cover)
        coverTextGiven = container.contains(.coverText)
        coverText = try container.decodeIfPresent(String.self, forKey: .coverText)
        coverItemGiven = container.contains(.coverItem)
        coverItem = try container.decodeIfPresent(String.self, forKey: .coverItem)
    }
}

struct OpenInput: Decodable { var id: String? }

struct PageInput: Decodable {
    var template: String?
    var background: String?
    var after: Int?
}

/// An insert's body. `text` that is not a string (a pasted number or object) is told apart from a
/// missing one, so the clipboard can say "text only".
struct InsertInput: Decodable {
    var kind: String
    var text: String?
    var textWasNotString = false
    var slot: Int?

    enum CodingKeys: String, CodingKey { case kind, text, slot }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decodeIfPresent(String.self, forKey: .kind) ?? "text"
        slot = try container.decodeIfPresent(Int.self, forKey: .slot)
        if container.contains(.text), (try? container.decodeNil(forKey: .text)) == false {
            text = try? container.decode(String.self, forKey: .text)
            textWasNotString = text == nil
        }
    }
}

struct ItemInput: Decodable {
    var frame: Frame?
    var text: String?
}

struct ShareInput: Decodable {
    var expiresInSeconds: Int?
    var password: String?
    var title: String?
}

struct AcceptInput: Decodable {
    var token: String
    var password: String?
}

struct PinInput: Decodable {
    var latitude: Double
    var longitude: Double
    var allowEdits: Bool?
}
