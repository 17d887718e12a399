public import Bus
public import StorageAPI

/// A kind of record a client syncs, and the collection it lives in. The plugin that owns the
/// collection answers ``ShowSynced`` of its kind (the record as its REST routes show it): sync never
/// reads another plugin's payloads. Internal collections (idempotency claims, postings, counters,
/// rendition caches, grants) have no kind, so they never reach a client.
public protocol SyncKind: Sendable {
    /// What a feed entry says it is: `notes.note`.
    static var id: String { get }
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

public enum SyncedNote: SyncKind {
    public static let id = "notes.note"
    public static let collection = "notes.notes"
}

public enum SyncedVocabularyCollection: SyncKind {
    public static let id = "vocabulary.collection"
    public static let collection = "vocab.collections"
}

public enum SyncedVocabularyEntry: SyncKind {
    public static let id = "vocabulary.entry"
    public static let collection = "vocab.entries"
}

public enum SyncedVocabularyTag: SyncKind {
    public static let id = "vocabulary.tag"
    public static let collection = "vocab.tags"
}

/// A reviewed entry's FSRS card (its id is the entry's).
public enum SyncedVocabularyCard: SyncKind {
    public static let id = "vocabulary.card"
    public static let collection = "vocab.cards"
}

public enum SyncedVocabularyReview: SyncKind {
    public static let id = "vocabulary.review"
    public static let collection = "vocab.reviews"
}

/// A reminder (pending, or fired: how a device offline when it fired hears of it).
public enum SyncedReminder: SyncKind {
    public static let id = "reminders.reminder"
    public static let collection = "reminders.reminders"
}

public enum SyncedPhoto: SyncKind {
    public static let id = "album.photo"
    public static let collection = "album.photos"
}

public enum SyncedNotebook: SyncKind {
    public static let id = "notebooks.notebook"
    public static let collection = "notebooks.notebooks"
    public static let sharesScopes = true
}

public enum SyncedNotebookPage: SyncKind {
    public static let id = "notebooks.page"
    public static let collection = "notebooks.pages"
}

public enum SyncedNotebookItem: SyncKind {
    public static let id = "notebooks.item"
    public static let collection = "notebooks.items"
}

/// Every kind a client may sync; a kind whose plugin is not in the app simply has no records.
public enum SyncKinds {
    public static let all: [any SyncKind.Type] = [
        SyncedNote.self, SyncedVocabularyCollection.self, SyncedVocabularyEntry.self, SyncedVocabularyTag.self, SyncedVocabularyCard.self,
        SyncedVocabularyReview.self, SyncedReminder.self, SyncedPhoto.self,
        SyncedNotebook.self, SyncedNotebookPage.self, SyncedNotebookItem.self,
    ]
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
