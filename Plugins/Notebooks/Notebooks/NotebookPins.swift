import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// GPS pins (FR3.2.17, UC-13): a notebook pinned where its owner stands; people who come near it
/// are told, and may open it.
struct NotebookPins: NotebookConcern {
    let core: NotebookStore

    static func subject(_ id: String) -> String { "\(NotebookStore.geoKind)/\(id)" }

    /// Pins a notebook at the place chosen; `allowEdits` lets people who find it edit it. Someone who
    /// found it pinned for editing may move the pin too (FR3.2.17, UC-13), keeping what the owner
    /// allowed; the pin stays the owner's.
    func pin(caller: String, id: String, latitude: Double, longitude: Double, allowEdits: Bool) async throws(BusError) -> NotebookJSON {
        let (record, _, granted) = try await access(caller: caller, id: id)
        try Self.mayChangePin(granted)
        _ = try await bus.request(SetGeotag(owner: record.owner, geotag: Geotag(subject: Self.subject(id), latitude: latitude, longitude: longitude, source: "user")))
        let updated = try await update(owner: record.owner, id: id) { data in
            data.pin = NotebookData.Pin(latitude: latitude, longitude: longitude, allowEdits: granted == .owner ? allowEdits : (data.pin?.allowEdits ?? true))
        }
        return NotebookJSON(updated.record, updated.data, access: granted)
    }

    /// Takes the pin away: its owner, or someone who found it pinned for editing.
    func unpin(caller: String, id: String) async throws(BusError) -> NotebookJSON {
        let (record, _, granted) = try await access(caller: caller, id: id)
        try Self.mayChangePin(granted)
        _ = try await bus.request(RemoveGeotag(owner: record.owner, subject: Self.subject(id)))
        let updated = try await update(owner: record.owner, id: id) { data in data.pin = nil }
        return NotebookJSON(updated.record, updated.data, access: granted)
    }

    static func mayChangePin(_ granted: NotebookAccess) throws(BusError) {
        guard granted == .owner || granted == .edit else {
            throw BusError(.forbidden, "This notebook was shared with you read-only; only its owner, or someone who found it pinned for editing, can move or remove its pin.")
        }
    }

    /// UC-13: the caller reports where they are; they get other people's notebooks pinned within the
    /// radius (nearest first), which they may then open — and an alert event goes out. Coming within
    /// the radius of a notebook (not near it at the last report, or that report is older than the
    /// presence window) is also pushed to every device of the caller with a live sync connection.
    func nearby(caller: String, latitude: Double, longitude: Double) async throws(BusError) -> NearbyJSON {
        try Geotag(subject: "here/x", latitude: latitude, longitude: longitude).validate()
        let now = core.nowMillis()
        let before = try await NotebookAccessControl(core: core).presence(of: caller)
        let wasNear = Set(before.flatMap { now - $0.at <= limits.presenceTTL * 1000 ? $0.near : nil } ?? [])
        let hits = try await bus.request(FindGeotags(owner: nil, area: .within(latitude: latitude, longitude: longitude, radiusMeters: limits.nearbyRadius),
                                                     kind: NotebookStore.geoKind, limit: 100)).hits
        var entries: [NearbyJSON.NearbyEntry] = []
        for hit in hits where hit.owner != caller {
            let id = String(hit.geotag.subject.dropFirst(NotebookStore.geoKind.count + 1))
            guard let record = try await store.get(collection: NotebookStore.notebooks, id: id, owner: hit.owner),
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

    func setPresence(_ caller: String, _ here: PresenceData) async throws(BusError) {
        let id = NotebookAccessControl.presenceID(caller)
        let document = try JSONDocument(encoding: here)
        for _ in 0..<3 {
            let exists = try await store.get(collection: NotebookStore.presence, id: id, owner: caller) != nil
            do {
                _ = try await store.write(WriteBatch([exists ? .replace(collection: NotebookStore.presence, id: id, owner: caller, data: document, expectedVersion: nil)
                                                      : .insert(collection: NotebookStore.presence, id: id, owner: caller, data: document)]))
                return
            } catch where error.code == .conflict || error.code == .notFound {
                continue
            }
        }
        throw BusError(.conflict, "Your location kept changing while it was saved; send it again.")
    }
}
