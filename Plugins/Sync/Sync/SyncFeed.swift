import Bus
import Foundation
import HTTPKit
import StorageAPI
import SyncAPI
import Synchronization

/// A position in a user's feed, opaque to clients: the last sequence of the log they have seen.
enum SyncCursor {
    static func encode(_ sequence: Int64) -> String { OpaqueCursor.encode("s:\(sequence)") }

    /// The sequence a cursor stands for (0 without one: from the start); 400 for one this API did not give.
    static func decode(_ text: String?) throws -> Int64 {
        guard let text, !text.isEmpty else { return 0 }
        guard let plain = OpaqueCursor.decode(text, maxLength: 64), plain.hasPrefix("s:"),
              let sequence = Int64(plain.dropFirst(2)), sequence >= 0 else {
            throw Problem.badRequest("'after' is not a cursor this server gave; pull from the start (no 'after') to resync.", field: "after")
        }
        return sequence
    }
}

/// One entry of a pull: a record as its plugin shows it, or a tombstone.
struct FeedEntry: Encodable {
    var kind: String
    var id: String
    var version: Int64
    /// The owner, when it is not the viewer (a notebook shared with them).
    var owner: String?
    var deleted: Bool
    /// Absent for a delete (synthesized encoding leaves nil members out).
    var record: JSONDocument?
}

/// A page of the feed: `nextCursor` is always the cursor to send next (also on the last page, to
/// come back later); `hasMore` says whether to pull again now.
struct FeedPage: Encodable {
    var items: [FeedEntry]
    var nextCursor: String
    var hasMore: Bool
}

/// Turns the storage change log into what an offline-first client pulls.
final class SyncFeed: Sendable {
    let store: any RecordStore
    let bus: any MessageBus
    /// The synced kinds by collection: what the app's plugins offer (``SyncKind``).
    let kinds: [String: any SyncKind.Type]
    /// The kinds whose plugin answers ``ListSharedScopes``, in the order they were offered.
    let sharing: [any SyncKind.Type]
    /// Sharing kinds whose plugin is not in this app (found once, then not asked again).
    private let absent = Mutex<Set<String>>([])

    /// `offered`: the kinds the app's plugins declare, in the order of the app's plugins.
    init(store: any RecordStore, bus: any MessageBus, kinds offered: [any SyncKind.Type]) {
        self.store = store
        self.bus = bus
        var kinds: [String: any SyncKind.Type] = [:]
        for kind in offered { kinds[kind.collection] = kind }
        self.kinds = kinds
        sharing = offered.filter { $0.sharesScopes }
    }

    /// The sync kinds among an app's offers, one per collection and per feed id: the first offered
    /// wins, and a later one claiming a taken collection or id is answered in `clashes` (the
    /// plugin says so at start; its records stay out of the feed rather than show as another kind).
    static func kinds(offered offers: [any PluginOffer.Type]) -> (kinds: [any SyncKind.Type], clashes: [String]) {
        var kinds: [any SyncKind.Type] = []
        var clashes: [String] = []
        var collections: Set<String> = []
        var ids: Set<String> = []
        for case let kind as any SyncKind.Type in offers {
            if kinds.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(kind) }) { continue }
            guard !collections.contains(kind.collection), !ids.contains(kind.id) else {
                clashes.append("\(kind.id) (\(kind.collection))")
                continue
            }
            collections.insert(kind.collection)
            ids.insert(kind.id)
            kinds.append(kind)
        }
        return (kinds, clashes)
    }

    /// The scopes of other owners' records the viewer may read now.
    func sharedScopes(viewer: String) async throws(BusError) -> [SharedScope] {
        var scopes: [SharedScope] = []
        for kind in sharing where !absent.withLock({ $0.contains(kind.id) }) {
            do {
                scopes += try await Self.scopes(kind, viewer: viewer, bus: bus)
            } catch where error.code == .noHandler {
                absent.withLock { _ = $0.insert(kind.id) }  // the plugin is not in this app
            }
        }
        return Array(scopes.prefix(ChangeQuery.maxShared))
    }

    private static func scopes<Kind: SyncKind>(_ kind: Kind.Type, viewer: String, bus: any MessageBus) async throws(BusError) -> [SharedScope] {
        try await bus.request(ListSharedScopes<Kind>(viewer: viewer)).scopes
    }

    func pull(viewer: String, after: Int64, limit: Int) async throws -> FeedPage {
        let shared = try await sharedScopes(viewer: viewer)
        let page = try await store.changes(ChangeQuery(owner: viewer, after: after, limit: limit, shared: shared))
        if after > 0, after < page.horizon {
            throw Problem(status: .gone, code: "resync_required",
                          detail: "This device has been away longer than the server keeps deletes; pull from the start (no 'after'), "
                              + "keep what the pull returns and drop every record it does not.",
                          extra: ["horizon": .string(SyncCursor.encode(page.horizon))])
        }
        // A change is shown when it is the record's latest: an earlier one is superseded by a later
        // entry of the log, which comes in this page or a later one.
        var newest: [Change] = []
        var seen: Set<String> = []
        for change in page.changes.reversed() where kinds[change.collection] != nil {
            if seen.insert(change.collection + "\u{0}" + change.recordID).inserted { newest.append(change) }
        }
        let current = try await records(for: newest)
        var latest: [(change: Change, record: Record?)] = []
        for change in newest {
            let record = current[RecordKey(collection: change.collection, id: change.recordID)]
            if let record {
                guard record.owner == change.owner, record.version == change.version else { continue }
            } else if change.kind != .delete {
                continue  // deleted since; the tombstone follows
            }
            latest.append((change, record))
        }
        latest.reverse()
        var shown: [RecordKey: JSONDocument] = [:]
        for (collection, kind) in kinds {
            let records = latest.compactMap { $0.change.collection == collection ? $0.record : nil }
            guard !records.isEmpty else { continue }
            for (record, document) in zip(records, try await Self.show(kind, viewer: viewer, records: records, bus: bus)) {
                shown[RecordKey(collection: collection, id: record.id)] = document
            }
        }
        var items: [FeedEntry] = []
        for (change, record) in latest {
            guard let kind = kinds[change.collection] else { continue }
            let owner = change.owner == viewer ? nil : change.owner
            if record == nil {
                items.append(FeedEntry(kind: kind.id, id: change.recordID, version: change.version, owner: owner, deleted: true))
            } else if let document = shown[RecordKey(collection: change.collection, id: change.recordID)] {
                items.append(FeedEntry(kind: kind.id, id: change.recordID, version: change.version, owner: owner, deleted: false, record: document))
            }
        }
        let last = page.changes.last?.sequence ?? after
        return FeedPage(items: items, nextCursor: SyncCursor.encode(last), hasMore: page.hasMore)
    }

    struct RecordKey: Hashable {
        var collection: String
        var id: String
    }

    /// The records the changes name, as they are now: one query per collection and owner.
    private func records(for changes: [Change]) async throws(StorageError) -> [RecordKey: Record] {
        var groups: [String: [Change]] = [:]
        for change in changes { groups[change.collection + "\u{0}" + change.owner, default: []].append(change) }
        var found: [RecordKey: Record] = [:]
        for group in groups.values {
            guard let first = group.first else { continue }
            for chunk in stride(from: 0, to: group.count, by: RecordQuery.maxInValues) {
                let ids = group[chunk..<min(group.count, chunk + RecordQuery.maxInValues)].map { JSONValue.string($0.recordID) }
                let page = try await store.query(RecordQuery(collection: first.collection, owner: first.owner,
                                                             filters: [Filter(MetaField.id.rawValue, .in, .array(ids))], limit: ids.count))
                for record in page.records { found[RecordKey(collection: record.collection, id: record.id)] = record }
            }
        }
        return found
    }

    private static func show<Kind: SyncKind>(_ kind: Kind.Type, viewer: String, records: [Record],
                                             bus: any MessageBus) async throws(BusError) -> [JSONDocument?] {
        let reply = try await bus.request(ShowSynced<Kind>(viewer: viewer, records: records), timeout: .seconds(10))
        guard reply.shown.count == records.count else {
            throw BusError(.internal, "The plugin showing '\(Kind.id)' answered \(reply.shown.count) records for \(records.count).")
        }
        return reply.shown
    }
}
