public import Bus
public import ShareLinkAPI

/// One photo of the album, shared: `resource = ["photo": id]`.
public enum SharedPhoto: SharedKind { public static let id = "album.photo" }
/// A photo as a subject other plugins keep something about (`album.photos/<id>`: a reminder, a
/// geotag): the album answers ``CheckSubject`` of them and publishes ``SubjectDeleted`` when one goes.
public enum PhotoSubject: SubjectKind { public static let kind = "album.photos" }
/// A saved album search, shared: `resource` holds its `tags` (`+a -b` words), `from` and `to`.
public enum SharedPhotoSearch: SharedKind { public static let id = "album.search" }

/// Published after a photo joins an album (upload, camera or URL import), with what it landed as.
public struct PhotoAdded: BusEvent {
    public static let name: MessageName = "album.photo.added.v1"
    public var owner: String
    public var photoID: String
    /// SHA-256 of the original image.
    public var image: String
    /// Wall-clock time taken, `YYYY-MM-DDTHH:MM:SS`.
    public var takenAt: String
    /// The place folder's key (a GeoNames id), when the photo has a location.
    public var placeKey: String?
    public init(owner: String, photoID: String, image: String, takenAt: String, placeKey: String?) {
        self.owner = owner
        self.photoID = photoID
        self.image = image
        self.takenAt = takenAt
        self.placeKey = placeKey
    }
}

/// Adds photos whose images are already stored (a restore, a move from another album): the same
/// checks, place names, counters and geotags as an upload, many photos per storage batch.
public struct ImportPhotoRecords: BusRequest {
    public static let name: MessageName = "album.photos.import.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var ids: [String]
        public init(ids: [String]) { self.ids = ids }
    }

    public struct Photo: Codable, Sendable, Equatable {
        /// SHA-256 of an image media has ingested.
        public var image: String
        /// Wall-clock time taken, `YYYY-MM-DDTHH:MM[:SS]`.
        public var takenAt: String
        public var tags: [String]
        public var notes: String
        public var latitude: Double?
        public var longitude: Double?
        public init(image: String, takenAt: String, tags: [String] = [], notes: String = "", latitude: Double? = nil, longitude: Double? = nil) {
            self.image = image
            self.takenAt = takenAt
            self.tags = tags
            self.notes = notes
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    public static let maxPhotos = 200
    public var owner: String
    public var photos: [Photo]
    public init(owner: String, photos: [Photo]) {
        self.owner = owner
        self.photos = photos
    }
}

public enum AlbumMessages {
    public static let all: [any BusMessage.Type] = [PhotoAdded.self, ImportPhotoRecords.self, ShowShared<SharedPhoto>.self,
                                                    ShowShared<SharedPhotoSearch>.self, CheckSubject<PhotoSubject>.self]
}
