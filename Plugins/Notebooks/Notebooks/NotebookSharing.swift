import Bus
import Foundation
import GeoAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// Read-only sharing (FR3.2.16, UC-11/12) and GPS pins (FR3.2.17, UC-13).
extension NotebookService {
    // MARK: Sharing

    /// UC-11: a read-only link to one notebook, through share-link.
    func share(caller: String, id: String, title: String?, expiresAt: Date?, password: String?) async throws(BusError) -> CreateShareLink.Reply {
        let (_, data, _) = try await access(caller: caller, id: id, owning: true)
        return try await bus.request(CreateShareLink(owner: caller, kind: SharedNotebook.id, resource: ["notebook": id], title: title ?? data.name,
                                                     expiresAt: expiresAt, password: password))
    }

    /// UC-12: a signed-in recipient opens a link; from then on they see that notebook, read-only, for
    /// as long as the link lives — and nothing else of its owner's.
    func accept(caller: String, token: String, password: String?) async throws(BusError) -> SharedNotebookJSON {
        let link = try await bus.request(ResolveShareLink(token: token, password: password))
        guard link.kind == SharedNotebook.id, let id = link.resource["notebook"] else {
            throw BusError.invalid("This link shares something other than a notebook; open it in the app it came from.", field: "token")
        }
        guard let record = try await store.get(collection: Self.notebooks, id: id, owner: link.owner),
              let data = try? record.decode(NotebookData.self), data.deleting != true else {
            throw BusError(.gone, "The shared notebook has been deleted.")
        }
        if link.owner != caller {
            let held = try await store.query(RecordQuery(collection: Self.grants, owner: caller, filters: [Filter("notebook", .eq, .string(id))], limit: 50))
            if !held.records.contains(where: { (try? $0.decode(GrantData.self))?.linkID == link.linkID }) {
                _ = try await store.insert(GrantData(notebook: id, notebookOwner: link.owner, linkID: link.linkID, acceptedAt: Clock.nowMillis()),
                                           into: Self.grants, id: Self.newID("gr"), owner: caller)
            }
        }
        return SharedNotebookJSON(notebook: NotebookJSON(record, data, access: link.owner == caller ? .owner : .read), linkID: link.linkID)
    }

    /// The notebooks shared with the caller whose links still live.
    func sharedWithMe(caller: String) async throws(BusError) -> [SharedNotebookJSON] {
        let held = try await store.query(RecordQuery(collection: Self.grants, owner: caller, limit: 1000))
        var result: [SharedNotebookJSON] = []
        var seen: Set<String> = []
        for grant in held.records {
            let data = try grant.decode(GrantData.self)
            guard !seen.contains(data.notebook), let record = try await store.get(collection: Self.notebooks, id: data.notebook, owner: data.notebookOwner),
                  let notebook = try? record.decode(NotebookData.self), notebook.deleting != true,
                  try await liveLinks(owner: data.notebookOwner, notebook: data.notebook).contains(data.linkID) else { continue }
            seen.insert(data.notebook)
            result.append(SharedNotebookJSON(notebook: NotebookJSON(record, notebook, access: .read), linkID: data.linkID))
        }
        return result
    }

    /// The notebooks shared with the caller by a live link, as sync scopes (owner, notebook id).
    func sharedScopes(caller: String) async throws(BusError) -> [SharedScope] {
        let held = try await store.query(RecordQuery(collection: Self.grants, owner: caller, limit: 1000))
        var scopes: [SharedScope] = []
        var live: [String: Set<String>] = [:]
        for grant in held.records {
            let data = try grant.decode(GrantData.self)
            let key = data.notebookOwner + "\u{0}" + data.notebook
            if live[key] == nil { live[key] = try await liveLinks(owner: data.notebookOwner, notebook: data.notebook) }
            let scope = SharedScope(owner: data.notebookOwner, scope: data.notebook)
            if live[key]?.contains(data.linkID) == true, !scopes.contains(scope) { scopes.append(scope) }
        }
        return scopes
    }

    /// How sync's feed shows the viewer notebooks, pages and items: as the REST routes do, the
    /// owner's with owner access, a shared notebook's read-only; nil for anything else.
    func showSynced(viewer: String, records: [Record]) async throws(BusError) -> [JSONDocument?] {
        let needsShares = records.contains { $0.owner != viewer }
        let shared = needsShares ? Set(try await sharedScopes(caller: viewer)) : []
        return records.map { record in
            let data = try? record.data.parsed()
            let notebook = record.collection == Self.notebooks ? record.id : data.flatMap { data -> String? in
                if case .string(let id) = data.value(at: ["notebook"]) { return id }
                return nil
            }
            let mine = record.owner == viewer
            guard mine || notebook.map({ shared.contains(SharedScope(owner: record.owner, scope: $0)) }) == true else { return nil }
            switch record.collection {
            case Self.notebooks:
                guard let value = try? record.decode(NotebookData.self), value.deleting != true else { return nil }
                return try? JSONDocument(encoding: NotebookJSON(record, value, access: mine ? .owner : .read))
            case Self.pages:
                guard let page = try? record.decode(PageData.self) else { return nil }
                return try? JSONDocument(encoding: SyncedPageJSON(id: record.id, notebook: page.notebook, template: page.template,
                                                                  background: page.background, version: record.version))
            case Self.items:
                guard let item = try? record.decode(ItemData.self) else { return nil }
                return try? JSONDocument(encoding: SyncedItemJSON(item: ItemJSON(record, item), notebook: item.notebook, page: item.page,
                                                                  version: record.version))
            default:
                return nil
            }
        }
    }

    func hasLiveGrant(caller: String, notebook: Record) async throws(BusError) -> Bool {
        let held = try await store.query(RecordQuery(collection: Self.grants, owner: caller, filters: [Filter("notebook", .eq, .string(notebook.id))],
                                                     limit: 50))
        guard !held.records.isEmpty else { return false }
        let live = try await liveLinks(owner: notebook.owner, notebook: notebook.id)
        return held.records.contains { (try? $0.decode(GrantData.self)).map { live.contains($0.linkID) } ?? false }
    }

    /// The ids of the owner's unrevoked, unexpired links to a notebook: revoking the link ends the
    /// recipients' access at once.
    func liveLinks(owner: String, notebook: String) async throws(BusError) -> Set<String> {
        let now = Date()
        return Set(try await bus.request(ListShareLinks(owner: owner)).links.filter {
            $0.kind == SharedNotebook.id && $0.resource["notebook"] == notebook && $0.revokedAt == nil && ($0.expiresAt.map { $0 > now } ?? true)
        }.map(\.id))
    }

    /// share-link's public page: the title only. The contents are for the signed-in recipient
    /// (NFR3.3.1), who opens the link in the app.
    func sharedView(owner: String, resource: [String: String]) async throws(BusError) -> SharedView {
        guard let id = resource["notebook"], StorageNames.isValidID(id), let record = try await store.get(collection: Self.notebooks, id: id, owner: owner),
              let data = try? record.decode(NotebookData.self), data.deleting != true else {
            throw BusError(.notFound, "The shared notebook does not exist.")
        }
        return SharedView(title: data.name, description: "A notebook of \(data.pageCount) page\(data.pageCount == 1 ? "" : "s"), shared read-only. "
                          + "Sign in to AR Notebook and open this link to see it.", items: [])
    }

    // MARK: GPS pins

    static func subject(_ id: String) -> String { "\(geoKind)/\(id)" }

    /// Pins a notebook where its owner chooses; `allowEdits` lets people who find it edit it.
    func pin(caller: String, id: String, latitude: Double, longitude: Double, allowEdits: Bool) async throws(BusError) -> NotebookJSON {
        _ = try await access(caller: caller, id: id, owning: true)
        _ = try await bus.request(SetGeotag(owner: caller, geotag: Geotag(subject: Self.subject(id), latitude: latitude, longitude: longitude, source: "user")))
        let updated = try await update(owner: caller, id: id) { data in
            data.pin = NotebookData.Pin(latitude: latitude, longitude: longitude, allowEdits: allowEdits)
        }
        return NotebookJSON(updated.record, updated.data, access: .owner)
    }

    func unpin(caller: String, id: String) async throws(BusError) -> NotebookJSON {
        _ = try await access(caller: caller, id: id, owning: true)
        _ = try await bus.request(RemoveGeotag(owner: caller, subject: Self.subject(id)))
        let updated = try await update(owner: caller, id: id) { data in data.pin = nil }
        return NotebookJSON(updated.record, updated.data, access: .owner)
    }

    /// UC-13: the caller reports where they are; they get other people's notebooks pinned within the
    /// radius (nearest first), which they may then open — and an alert event goes out. Coming within
    /// the radius of a notebook (not near it at the last report, or that report is older than the
    /// presence window) is also pushed to every device of the caller with a live sync connection.
    func nearby(caller: String, latitude: Double, longitude: Double) async throws(BusError) -> NearbyJSON {
        try Geotag(subject: "here/x", latitude: latitude, longitude: longitude).validate()
        let now = Clock.nowMillis()
        let before = try await presence(of: caller)
        let wasNear = Set(before.flatMap { now - $0.at <= limits.presenceTTL * 1000 ? $0.near : nil } ?? [])
        let hits = try await bus.request(FindGeotags(owner: nil, area: .within(latitude: latitude, longitude: longitude, radiusMeters: limits.nearbyRadius),
                                                     kind: Self.geoKind, limit: 100)).hits
        var entries: [NearbyJSON.NearbyEntry] = []
        for hit in hits where hit.owner != caller {
            let id = String(hit.geotag.subject.dropFirst(Self.geoKind.count + 1))
            guard let record = try await store.get(collection: Self.notebooks, id: id, owner: hit.owner),
                  let data = try? record.decode(NotebookData.self), data.deleting != true, let pin = data.pin else { continue }
            entries.append(.init(notebook: NotebookJSON(record, data, access: pin.allowEdits ? .edit : .read), distanceMeters: hit.distanceMeters))
        }
        try await setPresence(caller, PresenceData(latitude: latitude, longitude: longitude, at: now, near: entries.map(\.notebook.id)))
        let entered = entries.filter { !wasNear.contains($0.notebook.id) }
        if !entered.isEmpty {
            let alert = NearbyAlert(latitude: latitude, longitude: longitude, notebooks: entered.map {
                NearbyNotebook(id: $0.notebook.id, name: $0.notebook.name, distanceMeters: $0.distanceMeters, canEdit: $0.notebook.access == "edit")
            })
            await bus.publish(UserAlert(user: caller, kind: "notebooks.nearby", data: try JSONDocument(encoding: alert)))
        }
        if !entries.isEmpty {
            await bus.publish(PinnedNotebooksNearby(user: caller, latitude: latitude, longitude: longitude, notebooks: entries.map {
                NearbyNotebook(id: $0.notebook.id, name: $0.notebook.name, distanceMeters: $0.distanceMeters, canEdit: $0.notebook.access == "edit")
            }))
        }
        return NearbyJSON(radiusMeters: limits.nearbyRadius, items: entries)
    }

    /// What a live connection is told when its user comes near pinned notebooks.
    struct NearbyAlert: Encodable {
        var latitude: Double
        var longitude: Double
        var notebooks: [NearbyNotebook]
    }

    static func presenceID(_ account: String) -> String { "u" + Secrets.sha256Hex(account).prefix(40) }

    func setPresence(_ caller: String, _ here: PresenceData) async throws(BusError) {
        let id = Self.presenceID(caller)
        let document = try JSONDocument(encoding: here)
        for _ in 0..<3 {
            let exists = try await store.get(collection: Self.presence, id: id, owner: caller) != nil
            do {
                _ = try await store.write(WriteBatch([exists ? .replace(collection: Self.presence, id: id, owner: caller, data: document, expectedVersion: nil)
                                                      : .insert(collection: Self.presence, id: id, owner: caller, data: document)]))
                return
            } catch where error.code == .conflict || error.code == .notFound {
                continue
            }
        }
        throw BusError(.conflict, "Your location kept changing while it was saved; send it again.")
    }

    func presence(of caller: String) async throws(BusError) -> PresenceData? {
        try await store.get(collection: Self.presence, id: Self.presenceID(caller), owner: caller)?.decode(PresenceData.self)
    }
}
