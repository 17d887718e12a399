public import SyncAPI

// What the vocabulary plugin lets a client sync: listed in its descriptor's `offers`, shown by its
// `ShowSynced` handlers. Sync learns the kinds from there; the names live here, with their owner.

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
