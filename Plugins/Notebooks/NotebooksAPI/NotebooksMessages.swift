public import Bus
public import ShareLinkAPI

/// One notebook, shared read-only: `resource = ["notebook": id]`.
public enum SharedNotebook: SharedKind { public static let id = "notebooks.notebook" }

/// A notebook pinned near where a user just reported being (AR Notebook's geocaching, UC-13).
public struct NearbyNotebook: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var distanceMeters: Double
    /// Whether the notebook's owner lets people who find it edit it.
    public var canEdit: Bool
    public init(id: String, name: String, distanceMeters: Double, canEdit: Bool) {
        self.id = id
        self.name = name
        self.distanceMeters = distanceMeters
        self.canEdit = canEdit
    }
}

/// The alert of UC-13: published when a user reports a location within the configured radius of
/// notebooks other people pinned there. A push or web client turns it into "a notebook is nearby".
public struct PinnedNotebooksNearby: BusEvent {
    public static let name: MessageName = "notebooks.pinned.nearby.v1"
    public var user: String
    public var latitude: Double
    public var longitude: Double
    public var notebooks: [NearbyNotebook]
    public init(user: String, latitude: Double, longitude: Double, notebooks: [NearbyNotebook]) {
        self.user = user
        self.latitude = latitude
        self.longitude = longitude
        self.notebooks = notebooks
    }
}

/// Published after a notebook and everything in it were deleted (confirmed).
public struct NotebookDeleted: BusEvent {
    public static let name: MessageName = "notebooks.notebook.deleted.v1"
    public var owner: String
    public var notebookID: String
    public init(owner: String, notebookID: String) {
        self.owner = owner
        self.notebookID = notebookID
    }
}

public enum NotebooksMessages {
    public static let all: [any BusMessage.Type] = [PinnedNotebooksNearby.self, NotebookDeleted.self, ShowShared<SharedNotebook>.self]
}
