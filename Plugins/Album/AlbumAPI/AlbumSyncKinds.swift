public import SyncAPI

// What the album plugin lets a client sync: listed in its descriptor's `offers`, shown by its
// `ShowSynced` handler. Sync learns the kind from there; the names live here, with their owner.

/// A photo, as `GET /album/photos/{id}` shows it.
public enum SyncedPhoto: SyncKind {
    public static let id = "album.photo"
    public static let collection = "album.photos"
}
