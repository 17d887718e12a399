import Bus

/// What ``RecordStore/changes(_:)`` reads: one owner's log, and, for a recipient, the changes in
/// scopes other owners shared with them — one sequence, in order.
public struct ChangeQuery: Codable, Sendable, Hashable {
    public var owner: String
    public var after: Int64
    public var limit: Int
    /// Other owners' scopes to take in (a notebook shared with `owner`, say).
    public var shared: [SharedScope]

    public init(owner: String, after: Int64, limit: Int, shared: [SharedScope] = []) {
        self.owner = owner
        self.after = after
        self.limit = limit
        self.shared = shared
    }

    /// At most this many shared scopes in one query.
    public static let maxShared = 200

    public func validate() throws(StorageError) {
        guard (1...RecordQuery.maxLimit).contains(limit) else {
            throw StorageError.invalid("limit must be between 1 and \(RecordQuery.maxLimit).", field: "limit")
        }
        guard after >= 0 else { throw StorageError.invalid("after must be 0 or more.", field: "after") }
        guard shared.count <= Self.maxShared else {
            throw StorageError.invalid("At most \(Self.maxShared) shared scopes in one query.", field: "shared")
        }
    }

    /// Whether a change belongs in this query's feed.
    public func includes(_ change: Change) -> Bool {
        if change.owner == owner { return true }
        guard let scope = change.scope else { return false }
        return shared.contains { $0.owner == change.owner && $0.scope == scope }
    }
}

/// One owner's scope (``CollectionSchema/scope``) that another account may read.
public struct SharedScope: Codable, Sendable, Hashable {
    public var owner: String
    public var scope: String
    public init(owner: String, scope: String) {
        self.owner = owner
        self.scope = scope
    }
}

/// What one compaction dropped.
public struct Compaction: Codable, Sendable, Hashable {
    /// Changes superseded by a later change of the same record.
    public var supersededChanges: Int
    /// Tombstones older than the cut-off.
    public var tombstones: Int
    /// Earlier versions superseded before the cut-off.
    public var versions: Int
    /// The log's horizon after this compaction (see ``ChangePage/horizon``).
    public var horizon: Int64

    public init(supersededChanges: Int, tombstones: Int, versions: Int, horizon: Int64) {
        self.supersededChanges = supersededChanges
        self.tombstones = tombstones
        self.versions = versions
        self.horizon = horizon
    }
}

/// Reading a record's scope, the same in every backend.
public enum ScopeRules {
    /// The scope a record with this payload belongs to under `field` (`@id` for the record itself).
    public static func scope(field: String?, id: String, data: JSONValue) -> String? {
        guard let field else { return nil }
        if field == MetaField.id.rawValue { return id }
        if case .string(let value) = data.value(at: field.split(separator: ".")) { return value }
        return nil
    }
}
