public import Bus
public import Foundation

/// Deletions of collections' entries (a deleted collection's entries go in the background), of
/// every owner, in one state: `running` (under way, or waiting to be resumed after a restart),
/// `failed` (the last attempt stopped; the janitor tries again within seconds), `succeeded`
/// (finished since this node started; the last 100). For the operator's jobs list.
public struct ListCollectionPurges: BusRequest {
    public static let name: MessageName = "vocab.purge.list.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public var purges: [CollectionPurge]
        public init(purges: [CollectionPurge]) { self.purges = purges }
    }
    public var state: CollectionPurge.State
    public init(state: CollectionPurge.State) { self.state = state }
}

/// One deleted collection whose entries are being (or were) deleted.
public struct CollectionPurge: Codable, Sendable, Hashable {
    public enum State: String, Codable, Sendable { case running, succeeded, failed }
    public var owner: String
    /// The collection's id, and its name when it was deleted.
    public var collection: String
    public var name: String
    public var state: State
    /// When the collection was deleted.
    public var requestedAt: Date
    public var finishedAt: Date?
    /// Entries deleted so far (by this node, since the purge last started).
    public var deleted: Int
    /// Why the last attempt stopped, and that it is tried again.
    public var failure: String?
    public init(owner: String, collection: String, name: String, state: State, requestedAt: Date, finishedAt: Date? = nil,
                deleted: Int = 0, failure: String? = nil) {
        self.owner = owner
        self.collection = collection
        self.name = name
        self.state = state
        self.requestedAt = requestedAt
        self.finishedAt = finishedAt
        self.deleted = deleted
        self.failure = failure
    }
}
