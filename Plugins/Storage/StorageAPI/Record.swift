import Bus
import Foundation

/// One stored record: a JSON object in a collection, owned by one account.
public struct Record: Codable, Sendable, Hashable {
    /// The collection, e.g. `notes.notes`.
    public var collection: String
    public var id: String
    /// The account that owns it. Reads and writes name the owner; another owner's record is "not found".
    public var owner: String
    /// 1 on insert, +1 on each replace: the basis of ETags and optimistic concurrency.
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    public var data: JSONDocument

    public init(collection: String, id: String, owner: String, version: Int64, createdAt: Date, updatedAt: Date,
                data: JSONDocument) {
        self.collection = collection
        self.id = id
        self.owner = owner
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.data = data
    }

    /// Decodes the payload as a domain type.
    public func decode<T: Decodable>(_ type: T.Type) throws(StorageError) -> T {
        try data.decode(type)
    }
}

/// A collection's declaration: its name and the indexes queries rely on.
public struct CollectionSchema: Codable, Sendable, Hashable {
    public var name: String
    public var indexes: [IndexSpec]
    /// Top-level payload fields whose value (a SHA-256 or null) names a blob the record holds. The
    /// store keeps track: a batch that leaves a blob held by no record reports it in
    /// ``WriteResult/releasedBlobs``, and the storage plugin deletes it — so a domain plugin that
    /// replaces a photo or deletes a note never has to remember to.
    public var blobFields: [String]
    /// The collection's full-text index, kept by the store with every write (see ``RecordSearching``).
    public var search: SearchIndexSpec?
    /// The collection's spatial index, likewise (see ``RecordSpatialIndexing``).
    public var spatial: SpatialIndexSpec?
    /// Whether the store keeps the record's earlier versions (for the retention window): what a
    /// note's history lists and what a merge of an edit based on an older version starts from.
    public var history: Bool
    /// The payload field (or `@id`) naming the sharing scope a record belongs to — a notebook's
    /// pages and items name their notebook. Each change carries it, so a recipient's change feed
    /// can take in exactly one shared scope of another owner's (see ``ChangeQuery/shared``).
    public var scope: String?
    /// Whether a delete also drops every earlier version the history kept: nothing a deleted record
    /// said is kept (an album's photos: where a person was, who they were with).
    public var forgetsOnDelete: Bool

    public init(name: String, indexes: [IndexSpec] = [], blobFields: [String] = [], search: SearchIndexSpec? = nil,
                spatial: SpatialIndexSpec? = nil, history: Bool = false, scope: String? = nil, forgetsOnDelete: Bool = false) {
        self.name = name
        self.indexes = indexes
        self.blobFields = blobFields
        self.search = search
        self.spatial = spatial
        self.history = history
        self.scope = scope
        self.forgetsOnDelete = forgetsOnDelete
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        indexes = try container.decodeIfPresent([IndexSpec].self, forKey: .indexes) ?? []
        blobFields = try container.decodeIfPresent([String].self, forKey: .blobFields) ?? []
        search = try container.decodeIfPresent(SearchIndexSpec.self, forKey: .search)
        spatial = try container.decodeIfPresent(SpatialIndexSpec.self, forKey: .spatial)
        history = try container.decodeIfPresent(Bool.self, forKey: .history) ?? false
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        forgetsOnDelete = try container.decodeIfPresent(Bool.self, forKey: .forgetsOnDelete) ?? false
    }
}

/// An index over payload fields.
public struct IndexSpec: Codable, Sendable, Hashable {
    public enum Scope: String, Codable, Sendable {
        /// Keys are per owner: the usual case, as every query names its owner.
        case perOwner
        /// Keys span all owners (e.g. unique user names).
        case global
    }

    public var name: String
    /// Dotted payload paths, e.g. `["position"]`.
    public var fields: [String]
    public var unique: Bool
    public var scope: Scope
    /// Only records whose first field is set are indexed: a record without it costs the index
    /// nothing on write. For fields most records lack and that are only looked up by value (`eq`),
    /// e.g. the import that brought a note in; a query ordered by the field does not use such an
    /// index on SQLite (PostgreSQL keeps every record in its indexes).
    public var sparse: Bool
    /// The index carries the whole record (on SQLite: version, timestamps and payload after its
    /// keys), so that a page read in its order is read from the index alone, without looking up
    /// each record by its key: for the one order a collection is listed in most (the notes' own
    /// order). It costs a second copy of every payload on disk and in each write. Not unique
    /// indexes; SQLite only (PostgreSQL reads its heap by the index).
    public var covering: Bool

    public init(name: String, fields: [String], unique: Bool = false, scope: Scope = .perOwner, sparse: Bool = false, covering: Bool = false) {
        self.name = name
        self.fields = fields
        self.unique = unique
        self.scope = scope
        self.sparse = sparse
        self.covering = covering
    }

    private enum CodingKeys: String, CodingKey {
        case name, fields, unique, scope, sparse, covering
    }

    // Declarations stored before `sparse` existed have none: not sparse. It is written only when
    // set, so a stored schema without it reads the same as before.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        fields = try container.decode([String].self, forKey: .fields)
        unique = try container.decode(Bool.self, forKey: .unique)
        scope = try container.decode(Scope.self, forKey: .scope)
        sparse = try container.decodeIfPresent(Bool.self, forKey: .sparse) ?? false
        covering = try container.decodeIfPresent(Bool.self, forKey: .covering) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(fields, forKey: .fields)
        try container.encode(unique, forKey: .unique)
        try container.encode(scope, forKey: .scope)
        if sparse { try container.encode(sparse, forKey: .sparse) }
        if covering { try container.encode(covering, forKey: .covering) }
    }
}

/// Names that storage accepts, checked the same way by every backend.
public enum StorageNames {
    /// Collection names: `a-z 0-9 _ . -`, 1–64 characters, starting with a letter.
    public static func isValidCollection(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), let first = name.utf8.first, (97...122).contains(first) else { return false }
        return name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 46 || $0 == 45 }
    }

    /// Field paths: dot-separated identifiers (`a-z A-Z 0-9 _`), or a meta field
    /// (`@id`, `@created`, `@updated`, `@version`).
    public static func isValidField(_ field: String) -> Bool {
        if MetaField(rawValue: field) != nil { return true }
        guard (1...128).contains(field.utf8.count) else { return false }
        return field.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy {
                (97...122).contains($0) || (65...90).contains($0) || (48...57).contains($0) || $0 == 95
            }
        }
    }

    /// Record ids: 1–128 characters of `A-Z a-z 0-9 _ - . :`.
    public static func isValidID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy {
            (97...122).contains($0) || (65...90).contains($0) || (48...57).contains($0)
                || $0 == 95 || $0 == 45 || $0 == 46 || $0 == 58
        }
    }
}

/// Fields every record has besides its payload.
public enum MetaField: String, Sendable {
    case id = "@id"
    case created = "@created"
    case updated = "@updated"
    case version = "@version"

    /// The column every SQL backend keeps it in.
    package var column: String {
        switch self {
        case .id: "id"
        case .created: "created_at"
        case .updated: "updated_at"
        case .version: "version"
        }
    }
}
