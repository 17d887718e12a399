public import Bus

/// Published after every change to a note, so that other plugins (sync, search, media clean-up) can
/// react without the notes plugin knowing them.
public struct NoteChanged: BusEvent {
    public static let name: MessageName = "notes.note.changed.v1"

    public enum Kind: String, Codable, Sendable {
        case created, edited, moved, deleted
    }

    public var owner: String
    public var noteID: String
    public var kind: Kind
    /// The note's version after the change.
    public var version: Int64

    public init(owner: String, noteID: String, kind: Kind, version: Int64) {
        self.owner = owner
        self.noteID = noteID
        self.kind = kind
        self.version = version
    }
}

/// Every notes message, for name checks.
public enum NotesMessages {
    public static let all: [any BusMessage.Type] = [NoteChanged.self]
}
