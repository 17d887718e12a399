import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import PluginKit
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// How the caller may use a notebook.
enum NotebookAccess: String, Sendable {
    case owner
    /// Shared with them through a link they accepted (FR3.2.16): read only.
    case read
    /// Pinned near where they are, by an owner who allows edits (FR3.2.17).
    case edit

    var canWrite: Bool { self != .read }
}

/// Who may do what with a notebook: its owner everything; someone it was shared with by a live
/// link, read it; someone standing near a pin, read it (or edit it, when the owner allows).
struct NotebookAccessControl: NotebookConcern {
    let core: NotebookStore

    /// What the caller may do with a notebook. Another owner's notebook they have no share or pin
    /// for is "not found", never "forbidden": its existence is not revealed (NFR3.3.1).
    func access(caller: String, id: String, owning: Bool = false, writing: Bool = false) async throws(BusError) -> (Record, NotebookData, NotebookAccess) {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: NotebookStore.notebooks, id: id, owner: nil) else {
            throw NotebookStore.noNotebook(id)
        }
        let data = try record.decode(NotebookData.self)
        guard data.deleting != true else { throw NotebookStore.noNotebook(id) }
        if record.owner == caller { return (record, data, .owner) }
        var granted: NotebookAccess?
        if let pin = data.pin, let here = try await presence(of: caller),
           core.nowMillis() - here.at <= limits.presenceTTL * 1000,
           SpatialRules.distance(GeoPoint(latitude: here.latitude, longitude: here.longitude), GeoPoint(latitude: pin.latitude, longitude: pin.longitude)) <= limits.nearbyRadius {
            granted = pin.allowEdits ? .edit : .read
        }
        if granted != .edit, try await hasLiveGrant(caller: caller, notebook: record) { granted = granted ?? .read }
        guard let granted else { throw NotebookStore.noNotebook(id) }
        if owning {
            throw BusError(.forbidden, "Only the notebook's owner can do that; it is \(granted == .read ? "shared with you read-only" : "pinned for you to edit").")
        }
        if writing, !granted.canWrite {
            throw BusError(.forbidden, "This notebook was shared with you read-only; ask its owner for a copy to change it.")
        }
        return (record, data, granted)
    }

    func hasLiveGrant(caller: String, notebook: Record) async throws(BusError) -> Bool {
        let held = try await store.query(RecordQuery(collection: NotebookStore.grants, owner: caller, filters: [Filter("notebook", .eq, .string(notebook.id))],
                                                     limit: 50))
        guard !held.records.isEmpty else { return false }
        let live = try await liveLinks(owner: notebook.owner, notebook: notebook.id)
        return held.records.contains { (try? $0.decode(GrantData.self)).map { live.contains($0.linkID) } ?? false }
    }

    /// The ids of the owner's unrevoked, unexpired links to a notebook: revoking the link ends the
    /// recipients' access at once.
    func liveLinks(owner: String, notebook: String) async throws(BusError) -> Set<String> {
        let now = core.clock.now()
        return Set(try await bus.request(ListShareLinks(owner: owner)).links.filter {
            $0.kind == SharedNotebook.id && $0.resource["notebook"] == notebook && $0.revokedAt == nil && ($0.expiresAt.map { $0 > now } ?? true)
        }.map(\.id))
    }

    static func presenceID(_ account: String) -> String { "u" + Secrets.sha256Hex(account).prefix(40) }

    func presence(of caller: String) async throws(BusError) -> PresenceData? {
        try await store.get(collection: NotebookStore.presence, id: Self.presenceID(caller), owner: caller)?.decode(PresenceData.self)
    }
}
