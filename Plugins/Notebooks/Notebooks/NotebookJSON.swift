import Foundation
import HTTPKit
import StorageAPI

/// What the API answers: notebooks, pages and items as a client draws them.
struct NotebookJSON: Codable, Sendable, VersionedRepresentation {
    var id: String
    var name: String
    var cover: String
    var coverText: String?
    /// The image item an `image` cover shows (its picture at `…/items/ID/image`), if one was chosen.
    var coverItem: String?
    var createdAt: Date
    var openedAt: Date?
    var pageCount: Int
    var itemCount: Int
    var canUndo: Bool
    var pin: NotebookData.Pin?
    /// `owner`, `read` (shared with you) or `edit` (a pinned notebook whose owner allows edits).
    var access: String
    var version: Int64

    init(_ record: Record, _ data: NotebookData, access: NotebookAccess) {
        id = record.id
        name = data.name
        cover = data.cover
        coverText = data.coverText
        coverItem = data.coverItem
        createdAt = record.createdAt
        openedAt = data.openedAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        pageCount = data.pageCount
        itemCount = data.itemCount
        canUndo = access != .read && (data.lastInsert != nil || data.lastEdit != nil)
        pin = data.pin
        self.access = access.rawValue
        version = record.version
    }
}

struct ItemJSON: Codable, Sendable {
    var id: String
    var kind: String
    var text: String?
    var image: String?
    var imageWidth: Int?
    var imageHeight: Int?
    var slot: Int?
    var frame: Frame
    /// Insertion order within the notebook.
    var seq: Int
    /// The item's version: send it as `If-Match` with a change, so a change made meanwhile on
    /// another device is merged and answered as `replaced` rather than silently overwritten.
    var version: Int64

    init(_ record: Record, _ item: ItemData) {
        id = record.id
        kind = item.kind
        text = item.text
        image = item.image.map { _ in "/api/v1/notebooks/notebooks/\(item.notebook)/items/\(record.id)/image" }
        imageWidth = item.imageWidth
        imageHeight = item.imageHeight
        slot = item.slot
        frame = item.frame
        seq = item.seq
        version = record.version
    }
}

/// A notebook as sync's feed shows it: as the REST routes do, with its pages' ids in order (a
/// device draws the notebook offline from the feed: page N is `pages[N - 1]`).
struct SyncedNotebookJSON: Encodable, Sendable {
    var notebook: NotebookJSON
    var pages: [String]

    enum CodingKeys: String, CodingKey { case pages }

    func encode(to encoder: any Encoder) throws {
        try notebook.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pages, forKey: .pages)
    }
}

/// A page as sync's feed shows it: where it belongs (its place in the notebook is the notebook's
/// `pages` order; its items come as items).
struct SyncedPageJSON: Codable, Sendable {
    var id: String
    var notebook: String
    var template: String
    var background: String
    var version: Int64
}

/// An item as sync's feed shows it: as in a page, with its notebook, page and version. Its `kind`
/// is repeated as `itemKind`: a client keeping the feed by kind (`notebooks.item`) keeps both.
struct SyncedItemJSON: Encodable, Sendable {
    var item: ItemJSON
    var notebook: String
    var page: String
    var version: Int64

    enum CodingKeys: String, CodingKey { case notebook, page, version, itemKind }

    func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(notebook, forKey: .notebook)
        try container.encode(page, forKey: .page)
        try container.encode(version, forKey: .version)
        try container.encode(item.kind, forKey: .itemKind)
    }
}

struct PageJSON: Codable, Sendable {
    var id: String
    /// 1-based; the cover is page 0.
    var number: Int
    var template: String
    var slots: [Frame]
    var background: String
    var items: [ItemJSON]
}

/// A whole notebook: what opening it returns (FR3.2.14).
struct NotebookContent: Codable, Sendable, VersionedRepresentation {
    var notebook: NotebookJSON
    var pages: [PageJSON]
    var version: Int64 { notebook.version }
}

/// One page with where it sits (FR3.2.8): `number` 0 is the cover.
struct PageView: Codable, Sendable {
    var notebook: NotebookJSON
    var number: Int
    var previous: Int?
    var next: Int?
    var page: PageJSON?
}

struct InsertResult: Codable, Sendable {
    var item: ItemJSON
    var page: Int
    var canUndo: Bool
}

struct FrameResult: Codable, Sendable, VersionedRepresentation {
    var item: ItemJSON
    /// True when the server moved or shrank the frame asked for to keep it inside the page.
    var clamped: Bool
    /// The item's version: send it as `If-Match` with the next change.
    var version: Int64
    /// What this change overwrote that another device had written since its `If-Match` version.
    var replaced: [String: JSONValue]?
}

/// `POST …/undo`'s optional body: the item the asking device added or changed last ("" when none).
struct UndoInput: Codable, Sendable {
    var item: String?
}

struct UndoResult: Codable, Sendable {
    /// The insert undo removed (nil when it took back a change of text).
    var removed: ItemJSON?
    /// The item whose text undo put back, as it is now (nil when it removed an insert).
    var restored: ItemJSON?
    /// The page (1-based) undo changed.
    var page: Int?
}

struct SharedNotebookJSON: Codable, Sendable {
    var notebook: NotebookJSON
    var linkID: String
    /// Who shared it: the owner's username (nil for an account without one, or when auth did not answer).
    var ownerName: String?
    enum CodingKeys: String, CodingKey { case notebook, linkID = "linkId", ownerName }
}

/// The pinned notebooks within the radius, nearest first: a list in the one envelope (all of them
/// fit one page), with the radius searched.
struct NearbyJSON: Codable, Sendable {
    var radiusMeters: Double
    var items: [NearbyEntry]
    var nextCursor: String?

    init(radiusMeters: Double, items: [NearbyEntry]) {
        self.radiusMeters = radiusMeters
        self.items = items
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(radiusMeters, forKey: .radiusMeters)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
    struct NearbyEntry: Codable, Sendable {
        var notebook: NotebookJSON
        var distanceMeters: Double
    }
}
