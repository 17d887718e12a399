public import Bus

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

public enum AlbumMessages {
    public static let all: [any BusMessage.Type] = [PhotoAdded.self]
}
