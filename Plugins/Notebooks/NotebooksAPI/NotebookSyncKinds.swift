public import SyncAPI

// What the notebooks plugin lets a client sync: listed in its descriptor's `offers`, shown by its
// `ShowSynced` handlers. Sync learns the kinds from there; the names live here, with their owner.

/// A notebook; the plugin also answers which notebooks other owners shared with a viewer, so their
/// pages and items reach the viewer's feed too.
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
