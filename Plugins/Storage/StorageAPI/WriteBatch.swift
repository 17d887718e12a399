import Bus
/// Writes applied atomically: all of them or none.
///
/// This is storage's transaction: a list of inserts, replaces and deletes, each optionally guarded by
/// the version the caller last saw. Unlike a closure-based transaction, a batch is a value, so it
/// crosses the bus (and a network hop) unchanged.
public struct WriteBatch: Codable, Sendable, Hashable {
    public var operations: [WriteOperation]
    /// When set, the batch runs at most once per key: a retry with the same key and the same
    /// fingerprint returns the records the first run wrote, a retry with another fingerprint fails.
    public var idempotency: IdempotencyClaim?
    /// The writer's own token for this batch, carried by the ``RecordsChanged`` event it causes, so
    /// that a writer keeping state by those events can tell its own writes' events from others'
    /// (the notes' last position per owner). Stored nowhere.
    public var origin: String?

    public init(_ operations: [WriteOperation], idempotency: IdempotencyClaim? = nil, origin: String? = nil) {
        self.operations = operations
        self.idempotency = idempotency
        self.origin = origin
    }

    public static let maxOperations = 500

    public func validate() throws(StorageError) {
        guard !operations.isEmpty, operations.count <= Self.maxOperations else {
            throw StorageError.invalid("A batch holds 1 to \(Self.maxOperations) operations.")
        }
        for operation in operations {
            guard StorageNames.isValidCollection(operation.collection) else {
                throw StorageError.invalid("'\(operation.collection)' is not a valid collection name.", field: "collection")
            }
            if let id = operation.id, !StorageNames.isValidID(id) {
                throw StorageError.invalid("'\(id)' is not a valid record id.", field: "id")
            }
            if let data = operation.data, data.bytes.count > Self.maxRecordBytes {
                throw StorageError(.tooLarge, "A record's data is limited to \(Self.maxRecordBytes) bytes.")
            }
        }
    }

    /// Largest payload of one record.
    public static let maxRecordBytes = 1 << 20
}

/// One write.
public enum WriteOperation: Codable, Sendable, Hashable {
    /// Creates a record; `id` nil lets the store choose one. Fails with `conflict` if the id exists.
    case insert(collection: String, id: String?, owner: String, data: JSONDocument)
    /// Replaces a record's payload; `expectedVersion` guards against lost updates.
    case replace(collection: String, id: String, owner: String, data: JSONDocument, expectedVersion: Int64?)
    /// Deletes a record.
    case delete(collection: String, id: String, owner: String, expectedVersion: Int64?)

    public var collection: String {
        switch self {
        case .insert(let collection, _, _, _), .replace(let collection, _, _, _, _), .delete(let collection, _, _, _):
            collection
        }
    }

    public var id: String? {
        switch self {
        case .insert(_, let id, _, _): id
        case .replace(_, let id, _, _, _), .delete(_, let id, _, _): id
        }
    }

    public var owner: String {
        switch self {
        case .insert(_, _, let owner, _), .replace(_, _, let owner, _, _), .delete(_, _, let owner, _): owner
        }
    }

    public var data: JSONDocument? {
        switch self {
        case .insert(_, _, _, let data), .replace(_, _, _, let data, _): data
        case .delete: nil
        }
    }
}

/// A claim that a batch is the one run of a client's request.
public struct IdempotencyClaim: Codable, Sendable, Hashable {
    public var owner: String
    /// What the key is for, e.g. `notes.create`.
    public var scope: String
    /// The client's `Idempotency-Key`.
    public var key: String
    /// A hash of the request, so that reusing a key for a different request is caught.
    public var fingerprint: String

    public init(owner: String, scope: String, key: String, fingerprint: String) {
        self.owner = owner
        self.scope = scope
        self.key = key
        self.fingerprint = fingerprint
    }
}

/// What a batch wrote.
public struct WriteResult: Codable, Sendable, Hashable {
    /// Per operation: the record as written; `nil` for a delete (or, on a replay, a record deleted since).
    public var records: [Record?]
    /// True when this was a replay of an earlier run with the same idempotency key.
    public var replayed: Bool
    /// Blobs that a record held before this batch and none holds after it (see
    /// ``CollectionSchema/blobFields``), sorted.
    public var releasedBlobs: [String]
    /// Whose change logs the batch moved, and to where; empty for a replay.
    public var moved: [LogMove]

    public init(records: [Record?], replayed: Bool, releasedBlobs: [String] = [], moved: [LogMove] = []) {
        self.records = records
        self.replayed = replayed
        self.releasedBlobs = releasedBlobs
        self.moved = moved
    }
}

/// How far one batch moved one owner's change log.
public struct LogMove: Codable, Sendable, Hashable {
    public var owner: String
    /// The last sequence the batch wrote in this owner's log.
    public var sequence: Int64
    /// The scopes (``CollectionSchema/scope``) the batch touched in this owner's records.
    public var scopes: [String]
    /// The collections the batch changed in this owner's records: what other nodes' caches of
    /// them drop (the notes list).
    public var collections: [String]

    public init(owner: String, sequence: Int64, scopes: [String], collections: [String] = []) {
        self.owner = owner
        self.sequence = sequence
        self.scopes = scopes
        self.collections = collections
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        owner = try container.decode(String.self, forKey: .owner)
        sequence = try container.decode(Int64.self, forKey: .sequence)
        scopes = try container.decode([String].self, forKey: .scopes)
        // Absent from a node of the version before.
        collections = try container.decodeIfPresent([String].self, forKey: .collections) ?? []
    }

    /// One entry per owner, in first-seen order, from a batch's changes.
    public static func of(_ changes: [Change]) -> [LogMove] {
        var moves: [LogMove] = []
        for change in changes {
            if let index = moves.firstIndex(where: { $0.owner == change.owner }) {
                moves[index].sequence = max(moves[index].sequence, change.sequence)
                if let scope = change.scope, !moves[index].scopes.contains(scope) { moves[index].scopes.append(scope) }
                if !moves[index].collections.contains(change.collection) { moves[index].collections.append(change.collection) }
            } else {
                moves.append(LogMove(owner: change.owner, sequence: change.sequence, scopes: change.scope.map { [$0] } ?? [],
                                     collections: [change.collection]))
            }
        }
        return moves
    }
}

/// One entry of the change log.
public struct Change: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case insert, replace, delete
    }

    /// Strictly increasing across the whole log; a client syncs from the last one it saw.
    public var sequence: Int64
    public var owner: String
    public var collection: String
    public var recordID: String
    public var kind: Kind
    /// The record's version after the change.
    public var version: Int64
    /// The record's sharing scope (``CollectionSchema/scope``), when its collection declares one.
    public var scope: String?

    public init(sequence: Int64, owner: String, collection: String, recordID: String, kind: Kind, version: Int64,
                scope: String? = nil) {
        self.sequence = sequence
        self.owner = owner
        self.collection = collection
        self.recordID = recordID
        self.kind = kind
        self.version = version
        self.scope = scope
    }
}

/// A page of the change log.
public struct ChangePage: Codable, Sendable, Hashable {
    public var changes: [Change]
    /// Whether more changes follow the last one returned.
    public var hasMore: Bool
    /// Compaction has dropped tombstones up to this sequence: a reader whose cursor is below it may
    /// have missed a delete and must start over (resync). 0 until a tombstone has been dropped.
    public var horizon: Int64

    public init(changes: [Change], hasMore: Bool, horizon: Int64 = 0) {
        self.changes = changes
        self.hasMore = hasMore
        self.horizon = horizon
    }
}
