import AppConfig
import Bus
import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import PluginKit
import StorageAPI
import SyncAPI

// A plugin written only for the tests, the way a new plugin would be: everything it needs for its
// records to reach every device lives in this folder (its kind, its collection, how a record is
// shown) and it is switched on by `bookmarks: {}` in an app's YAML. Sync is not told about it:
// sync reads the kind from the descriptor's `offers`. (PluginSyncTests composes an app with it.)

/// A bookmark as a client syncs it: `bookmarks.bookmark`, stored in `bookmarks.items`.
enum SyncedBookmark: SyncKind {
    static let id = "bookmarks.bookmark"
    static let collection = "bookmarks.items"
}

/// Saved links: create, rename, delete, read; each change reaches the owner's sync feed.
struct BookmarksPlugin: Plugin {
    struct Config: Sendable {}

    static let descriptor = PluginDescriptor(
        id: "bookmarks", summary: "Saved links (a test plugin that syncs a kind of its own)", dependencies: ["storage", "auth"],
        offers: [SyncedBookmark.self])

    static func configure(_ section: ConfigSection) -> Config { Config() }

    struct Bookmark: Codable, Sendable {
        var url: String
        var title: String
    }

    /// A bookmark as `GET /bookmarks/{id}` shows it, and so as the sync feed shows it.
    struct BookmarkJSON: Encodable, VersionedRepresentation {
        var id: String
        var version: Int64
        var url: String
        var title: String

        init(_ record: Record) throws(StorageError) {
            let bookmark = try record.decode(Bookmark.self)
            id = record.id
            version = record.version
            url = bookmark.url
            title = bookmark.title
        }
    }

    struct Input: Decodable {
        var url: String?
        var title: String?
    }

    let store: BusRecordStore

    init(config: Config, context: PluginContext) async throws {
        store = BusRecordStore(bus: context.bus)
        try await store.declare(CollectionSchema(name: SyncedBookmark.collection, indexes: []))
    }

    func register(on bus: any MessageBus) async throws {
        try bus.handle(ShowSynced<SyncedBookmark>.self) { request, _ in
            .init(shown: request.records.map { record in
                guard record.owner == request.viewer, let shown = try? BookmarkJSON(record) else { return nil }
                return try? JSONDocument(encoding: shown)
            })
        }
    }

    func routes(_ routes: PluginRoutes) throws {
        let store = self.store
        let collection = SyncedBookmark.collection
        try routes.add(.post, "", summary: "Save a link: {url, title}; Idempotency-Key makes a retry count once") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(Input.self, context: context)
            guard let url = input.url, !url.isEmpty else { throw Problem.badRequest("A bookmark needs 'url'.", field: "url") }
            let document = try JSONDocument(encoding: Bookmark(url: url, title: input.title ?? url))
            let claim = try request.idempotencyKey().map {
                IdempotencyClaim(owner: identity.accountID, scope: "bookmarks.create", key: $0, fingerprint: url + "\u{0}" + (input.title ?? ""))
            }
            let result = try await store.write(WriteBatch([.insert(collection: collection, id: nil, owner: identity.accountID, data: document)],
                                                          idempotency: claim))
            guard let record = result.records.first ?? nil else { throw Problem.notFound("The bookmark was deleted since.") }
            return try .json(try BookmarkJSON(record), status: .created)
        }
        try routes.add(.get, "{id}", summary: "One bookmark") { _, context, identity in
            let id = context.parameters.get("id") ?? ""
            guard let record = try await store.get(collection: collection, id: id, owner: identity.accountID) else {
                throw Problem.notFound("No such bookmark.")
            }
            return try .json(try BookmarkJSON(record))
        }
        try routes.add(.patch, "{id}", summary: "Rename a bookmark: {title}; If-Match guards the version") { request, context, identity in
            var request = request
            let id = context.parameters.get("id") ?? ""
            let input = try await request.decodeJSON(Input.self, context: context)
            guard let record = try await store.get(collection: collection, id: id, owner: identity.accountID) else {
                throw Problem.notFound("No such bookmark.")
            }
            var bookmark = try record.decode(Bookmark.self)
            bookmark.title = input.title ?? bookmark.title
            let replaced = try await store.replace(bookmark, in: collection, id: id, owner: identity.accountID,
                                                   expectedVersion: try request.ifMatchVersion() ?? record.version)
            return try .json(try BookmarkJSON(replaced))
        }
        try routes.add(.delete, "{id}", summary: "Delete a bookmark") { _, context, identity in
            try await store.delete(from: collection, id: context.parameters.get("id") ?? "", owner: identity.accountID)
            return .noContent
        }
    }
}
