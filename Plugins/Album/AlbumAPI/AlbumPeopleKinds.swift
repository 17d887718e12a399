public import SyncAPI

/// A person the album's owner named (name, relationship to them, a note), as
/// `GET /album/people/{id}` shows it.
public enum SyncedPerson: SyncKind {
    public static let id = "album.person"
    public static let collection = "album.people"
}

/// A person named in a photo, with the box around their face (fractions 0…1 of the photo as seen),
/// as `POST /album/photos/{id}/people` answers it.
public enum SyncedFace: SyncKind {
    public static let id = "album.face"
    public static let collection = "album.faces"
}
