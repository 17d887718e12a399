import Foundation

/// A notebook as stored (`notebooks.notebooks`).
struct NotebookData: Codable, Sendable {
    var pageCount: Int { pages.count }

    struct Pin: Codable, Sendable, Equatable {
        var latitude: Double
        var longitude: Double
        /// Whether people who find it may edit it (FR3.2.17).
        var allowEdits: Bool
    }

    var name: String
    var cover: String
    var coverText: String?
    /// Milliseconds since 1970 of the last open; nil until opened.
    var openedAt: Int64?
    /// The pages' ids in order: page N is `pages[N - 1]`, found without reading the other pages.
    var pages: [String]
    var itemCount: Int
    /// The insertion counter: items reopen in the order they were inserted.
    var nextSeq: Int
    /// The item the single-step undo removes; cleared by an undo and by any delete (FR3.2.12).
    var lastInsert: String?
    /// The last change of an item (its text, or where it is and how big: a move, a resize), which undo
    /// takes back (FR3.2.12: undo the last thing done); replaced by the next insert or change, cleared
    /// by an undo and by any delete.
    var lastEdit: LastEdit?
    var pin: Pin?
    /// Set when a confirmed delete starts: the notebook is gone for everyone from then on, and a
    /// delete interrupted by a crash finishes on the next try.
    var deleting: Bool?
    /// The picture an `image` cover shows: an image item of this notebook (FR3.2.3); nil draws the style's colours.
    var coverItem: String?

    /// The text an item had before its last change (and its frame, when the change moved or resized
    /// it), and the version that change gave it: undo puts them back only while the item is still at
    /// that version (not changed again since).
    struct LastEdit: Codable, Sendable, Equatable {
        var item: String
        var text: String?
        /// The frame before a move or resize; nil when the change left it where it was (stored before moves were undoable).
        var frame: Frame?
        var version: Int64
    }
}

/// One page (`notebooks.pages`); the cover is page 0 and is not stored as a page.
struct PageData: Codable, Sendable {
    var notebook: String
    var template: String
    var background: String
}

/// One inserted item (`notebooks.items`).
struct ItemData: Codable, Sendable {
    var notebook: String
    var page: String
    var seq: Int
    /// `text` (keyboard), `clipboard` or `image` (gallery).
    var kind: String
    var text: String?
    /// SHA-256 of the image as media ingested it; a blob field, so the blob goes with the last item holding it.
    var image: String?
    var imageWidth: Int?
    var imageHeight: Int?
    /// The template slot it was placed in, if any.
    var slot: Int?
    var frame: Frame
}

/// "This notebook was shared with me" (`notebooks.grants`, owned by the recipient).
struct GrantData: Codable, Sendable {
    var notebook: String
    var notebookOwner: String
    var linkID: String
    var acceptedAt: Int64
}

/// Where a user last said they were (`notebooks.presence`, one per user).
struct PresenceData: Codable, Sendable {
    var latitude: Double
    var longitude: Double
    var at: Int64
    /// The pinned notebooks within the radius at that report: a later report alerts only for the
    /// ones not among them (the user came within their radius).
    var near: [String]?
}

