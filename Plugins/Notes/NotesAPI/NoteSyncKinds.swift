public import SyncAPI

// What the notes plugin lets a client sync: listed in its descriptor's `offers`, shown by its
// `ShowSynced` handler. Sync learns the kind from there; the names live here, with their owner.

/// A note, as `GET /notes/{id}` shows it.
public enum SyncedNote: SyncKind {
    public static let id = "notes.note"
    public static let collection = "notes.notes"
}
