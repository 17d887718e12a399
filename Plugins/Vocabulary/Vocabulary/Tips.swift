import HTTPKit
import Hummingbird
import Metrics
import PluginKit
import Bus
import StorageAPI

/// Foreign Note's first-use tips (NFR 6.4.1: "success is measured by the use of help and tips"):
/// the phone says when a tip was shown and when it was dismissed, and the server counts both per
/// tip on `/metrics` as `quire_vocab_tips{tip, event}`, for the operator's Prometheus. Counts, not
/// who in the counts. Which tips an account has seen is kept apart, per account (`vocab.tips_seen`, a
/// record per tip), so that a second phone signed in to the same account does not show them again
/// (`GET tips`, and `DELETE tips` for "Show the tips again").
enum Tips {
    /// The tips an account has seen (shown or dismissed on any of its devices): a record per tip, its id the tip's name.
    static let seenCollection = "vocab.tips_seen"

    /// One tip per task the help screen explains, as the web client names them.
    static let names: Set<String> = ["collections", "words", "tags", "search", "review", "files", "sync"]
    static let events: Set<String> = ["viewed", "dismissed"]

    struct Seen: Codable, Sendable {
        var seen: [String]
    }

    struct SeenTip: Codable, Sendable {
        var tip: String
    }

    static func add(to routes: PluginRoutes, store: any RecordStore) throws {
        try routes.add(.get, "tips", summary: "The first-use tips this account has seen on any device: {\"seen\": [tip]}") { _, _, identity in
            try .json(Seen(seen: try await seen(store: store, owner: identity.accountID)))
        }
        try routes.add(.delete, "tips", summary: "Show the tips again: forgets which tips this account has seen; 204") { _, _, identity in
            let owner = identity.accountID
            let kept = try await store.query(RecordQuery(collection: seenCollection, owner: owner, limit: 100)).records
            if !kept.isEmpty {
                _ = try await store.write(WriteBatch(kept.map { .delete(collection: seenCollection, id: $0.id, owner: owner, expectedVersion: nil) }))
            }
            return .noContent
        }
        try routes.add(.post, "tips/{tip}/{event}",
                       summary: "Count a first-use tip shown (viewed) or dismissed; 204. Counted on /metrics as quire_vocab_tips{tip,event}") {
            _, context, identity in
            let tip = context.parameters.get("tip") ?? ""
            let event = context.parameters.get("event") ?? ""
            guard names.contains(tip) else {
                throw Problem.notFound("There is no tip '\(tip.prefix(40))'; the tips are \(names.sorted().joined(separator: ", ")).")
            }
            guard events.contains(event) else {
                throw Problem.notFound("A tip is counted as viewed or dismissed, not '\(event.prefix(40))'.")
            }
            Metrics.Counter(label: "quire_vocab_tips", dimensions: [("tip", tip), ("event", event)]).increment()
            try await markSeen(store: store, owner: identity.accountID, tip: tip)
            return .noContent
        }
    }

    /// The tips `owner` has seen, by name.
    static func seen(store: any RecordStore, owner: String) async throws(BusError) -> [String] {
        try await store.query(RecordQuery(collection: seenCollection, owner: owner, limit: 100)).records
            .map(\.id).filter { names.contains($0) }.sorted()
    }

    /// Keeps that `owner` has seen `tip`: once; another device that kept it first is no conflict.
    static func markSeen(store: any RecordStore, owner: String, tip: String) async throws(BusError) {
        guard try await store.get(collection: seenCollection, id: tip, owner: owner) == nil else { return }
        do {
            _ = try await store.write(WriteBatch([.insert(collection: seenCollection, id: tip, owner: owner,
                                                          data: try JSONDocument(encoding: SeenTip(tip: tip)))]))
        } catch where RetryPolicy.lostRace(error) {
            // Kept by another of the account's devices at the same moment.
        }
    }
}
