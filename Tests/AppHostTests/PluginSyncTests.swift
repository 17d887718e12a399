import AppHost
import AppHostTestKit
import Bus
import HTTPKit
import HTTPTypes
import PluginCatalog
import PluginKit
import StorageAPI
import SyncAPI
import Testing

/// Sync learns what it syncs from the app's plugins (their descriptors' `offers`), never from a
/// list of its own: a plugin that arrives with a kind of its own (the test fixture `bookmarks`)
/// reaches the feed by being in the YAML, like the built-in ones.
@Suite("Sync: kinds come from the plugins")
struct PluginSyncTests {
    static let catalog = PluginCatalog.all + [PluginFactory(BookmarksPlugin.self)]
    static let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  sync: {}\n  bookmarks: {}\n")

    @Test("a new plugin's records are pulled, pushed and deleted through the feed beside a built-in kind's")
    func newPluginSyncs() async throws {
        try await TestApp.run(yaml: Self.yaml, catalog: Self.catalog) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let note = try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "beside it"], token: ada)["id"])
            // Push: the plugin's own routes, retried with the same Idempotency-Key counting once.
            let body = ["url": "https://example.org/", "title": "Example"]
            let created = try await api.send(.post, "/api/v1/bookmarks", json: body, token: ada, headers: [.idempotencyKey: "k1"])
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created["id"])
            let retried = try await api.send(.post, "/api/v1/bookmarks", json: body, token: ada, headers: [.idempotencyKey: "k1"])
            #expect(retried["id"] == id, "a retried push is the same bookmark")

            let first = try await api.send(.get, "/api/v1/sync/changes", token: ada)
            #expect(first.status == 200, "\(first.text)")
            #expect(first.items.map { $0["kind"] as? String } == ["notes.note", "bookmarks.bookmark"])
            #expect(first.items.map { $0["id"] as? String } == [note, id])
            let pulled = try #require(first.items.last?["record"] as? [String: any Sendable])
            let shown = try await api.send(.get, "/api/v1/bookmarks/\(id)", token: ada).json
            #expect(pulled["url"] as? String == "https://example.org/" && pulled["title"] as? String == "Example")
            #expect(pulled["version"] as? Int == shown["version"] as? Int, "the feed shows the record as its GET does")
            let cursor = try #require(first["nextCursor"])

            // An edit, with the version the client based it on: the next pull carries only it.
            let renamed = try await api.send(.patch, "/api/v1/bookmarks/\(id)", json: ["title": "Renamed"], token: ada,
                                             headers: [.ifMatch: "\"1\""])
            #expect(renamed.status == 200, "\(renamed.text)")
            let stale = try await api.send(.patch, "/api/v1/bookmarks/\(id)", json: ["title": "Lost"], token: ada, headers: [.ifMatch: "\"1\""])
            #expect(stale.status == 412, "an edit of an older version is refused, not applied")
            let edited = try await api.send(.get, "/api/v1/sync/changes?after=\(cursor)", token: ada)
            #expect(edited.items.count == 1)
            #expect(edited.items.first?["kind"] as? String == "bookmarks.bookmark")
            #expect((edited.items.first?["record"] as? [String: any Sendable])?["title"] as? String == "Renamed")
            #expect(edited.items.first?["version"] as? Int == 2)

            // A delete reaches devices as a tombstone of its kind.
            #expect(try await api.send(.delete, "/api/v1/bookmarks/\(id)", token: ada).status == 204)
            let deleted = try await api.send(.get, "/api/v1/sync/changes?after=\(try #require(edited["nextCursor"]))", token: ada)
            #expect(deleted.items.count == 1)
            #expect(deleted.items.first?["kind"] as? String == "bookmarks.bookmark")
            #expect(deleted.items.first?["id"] as? String == id)
            #expect(deleted.items.first?["deleted"] as? Bool == true)
            #expect(deleted.items.first?["record"] == nil)

            #expect(try await api.send(.get, "/api/v1/sync/changes", token: bob).items.isEmpty, "another user's records never appear")
        }
    }

    @Test("records of a kind no plugin of the app offers stay out of the feed")
    func unofferedKindStaysOut() async throws {
        // The same catalog, but the app's YAML leaves the bookmarks plugin out: its collection is
        // nobody's kind here, so a record in it is internal as far as sync is concerned.
        let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  sync: {}\n")
        try await TestApp.run(yaml: yaml, catalog: Self.catalog) { api, host in
            let (ada, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            let store = BusRecordStore(bus: host.bus)
            try await store.declare(CollectionSchema(name: SyncedBookmark.collection, indexes: []))
            _ = try await store.insert(BookmarksPlugin.Bookmark(url: "https://example.org/", title: "x"), into: SyncedBookmark.collection,
                                       owner: owner)
            let note = try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "n"], token: ada)["id"])
            let page = try await api.send(.get, "/api/v1/sync/changes", token: ada)
            #expect(page.status == 200, "\(page.text)")
            #expect(page.items.map { $0["kind"] as? String } == ["notes.note"])
            #expect(page.items.map { $0["id"] as? String } == [note])
        }
    }

    @Test("a kind claiming a collection or feed id another plugin offered stays out; the first one's records sync as before")
    func clashingKindsKeepTheFirst() async throws {
        let catalog = Self.catalog + [PluginFactory(MirrorPlugin.self)]
        let yaml = TestApp.yaml(extraPlugins: "  sync: {}\n  mirror: {}\n  bookmarks: {}\n")
        try await TestApp.run(yaml: yaml, catalog: catalog) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let id = try #require(try await api.send(.post, "/api/v1/bookmarks", json: ["url": "https://example.org/"], token: ada)["id"])
            let page = try await api.send(.get, "/api/v1/sync/changes", token: ada)
            #expect(page.status == 200, "\(page.text)")
            #expect(page.items.map { $0["kind"] as? String } == ["bookmarks.bookmark"])
            #expect(page.items.map { $0["id"] as? String } == [id])
        }
    }

    @Test("the plugins compiled in offer the feed's kinds, each named once, in its own plugin")
    func catalogOffersTheWireKinds() {
        var offered: [String: String] = [:]
        var owners: [String: String] = [:]
        for factory in PluginCatalog.all {
            for case let kind as any SyncKind.Type in factory.descriptor.offers {
                #expect(offered[kind.id] == nil, "\(kind.id) is offered twice")
                offered[kind.id] = kind.collection
                owners[kind.id] = factory.descriptor.id
            }
        }
        // The wire format: a client's feed names these kinds, and storage holds them in these collections.
        #expect(offered == [
            "notes.note": "notes.notes",
            "vocabulary.collection": "vocab.collections", "vocabulary.entry": "vocab.entries", "vocabulary.tag": "vocab.tags",
            "vocabulary.card": "vocab.cards", "vocabulary.review": "vocab.reviews",
            "reminders.reminder": "reminders.reminders",
            "album.photo": "album.photos", "album.person": "album.people", "album.face": "album.faces",
            "notebooks.notebook": "notebooks.notebooks", "notebooks.page": "notebooks.pages", "notebooks.item": "notebooks.items",
        ])
        // Each kind's plugin is the one its name starts with (vocabulary's collections are `vocab.…`).
        for (id, owner) in owners { #expect(id.hasPrefix(owner + "."), "\(id) is offered by \(owner)") }
        #expect(Set(owners.values).contains("sync") == false, "sync offers no kind of its own")
    }
}
