public import Bus
public import StorageAPI

/// A kind of record a client syncs, and the collection it lives in. The plugin that owns the
/// collection declares the kind in its own API target, lists it in its descriptor's `offers`, and
/// answers ``ShowSynced`` of it (the record as its REST routes show it): sync learns the kinds from
/// what the app's plugins offer, so it knows no plugin by name and never reads another plugin's
/// payloads. Internal collections (idempotency claims, postings, counters, rendition caches, grants)
/// are offered as no kind, so they never reach a client.
public protocol SyncKind: PluginOffer {
    /// What a feed entry says it is: `notes.note`.
    static var id: String { get }
    /// The storage collection whose changes are this kind's: `notes.notes`.
    static var collection: String { get }
    /// Whether the owning plugin answers ``ListSharedScopes`` (scopes other owners shared with a viewer).
    static var sharesScopes: Bool { get }
}

extension SyncKind {
    public static var sharesScopes: Bool { false }
}

/// Something to tell a user's devices now, over their live connections (as
/// `{"type":"alert","kind":…,"data":…}`), from any plugin: a pinned notebook nearby (UC-13), a
/// reminder. Users without a live connection are not told here; the plugin's own routes stay the
/// way to ask.
public struct UserAlert: BusEvent {
    public static let name: MessageName = "sync.alert.v1"
    public var user: String
    /// What it is, `plugin.what`: `notebooks.nearby`.
    public var kind: String
    public var data: JSONDocument
    public init(user: String, kind: String, data: JSONDocument) {
        self.user = user
        self.kind = kind
        self.data = data
    }
}

/// Asks the owning plugin how `viewer` sees these records: one JSON object per record, as its REST
/// routes show it, or nil where the viewer may not see it (then it is left out of the feed).
public struct ShowSynced<Kind: SyncKind>: BusRequest {
    public static var name: MessageName { MessageName(stringLiteral: "sync.show.\(Kind.id).v1") }
    public struct Reply: Codable, Sendable {
        public var shown: [JSONDocument?]
        public init(shown: [JSONDocument?]) { self.shown = shown }
    }
    public var viewer: String
    public var records: [Record]
    public init(viewer: String, records: [Record]) {
        self.viewer = viewer
        self.records = records
    }
}

/// Asks the owning plugin which scopes of other owners' records `viewer` may read (notebooks shared
/// with them by a live link).
public struct ListSharedScopes<Kind: SyncKind>: BusRequest {
    public static var name: MessageName { MessageName(stringLiteral: "sync.scopes.\(Kind.id).v1") }
    public struct Reply: Codable, Sendable {
        public var scopes: [SharedScope]
        public init(scopes: [SharedScope]) { self.scopes = scopes }
    }
    public var viewer: String
    public init(viewer: String) { self.viewer = viewer }
}
