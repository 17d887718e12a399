public import Foundation

/// A note as an export file gave it, before the notes plugin's rules apply.
public struct ImportedNote: Sendable, Equatable {
    /// 1-based position of the note in the file.
    public var index: Int
    public var title: String
    public var text: String
    public var created: Date?
    /// Evernote's tags, Keep's labels: the first becomes the note's category.
    public var tags: [String]
    /// The first image the note had.
    public var photo: Photo?
    /// What was left out of this note (it is still imported).
    public var warnings: [String]

    public struct Photo: Sendable, Equatable {
        public var bytes: Data
        public var mimeType: String
        public init(bytes: Data, mimeType: String) {
            self.bytes = bytes
            self.mimeType = mimeType
        }
    }

    public init(index: Int, title: String = "", text: String = "", created: Date? = nil, tags: [String] = [], photo: Photo? = nil,
                warnings: [String] = []) {
        self.index = index
        self.title = title
        self.text = text
        self.created = created
        self.tags = tags
        self.photo = photo
        self.warnings = warnings
    }
}

/// A note that could not be read, or a file that stopped being readable (`fatal`: nothing after it).
public struct NoteProblem: Error, Sendable, Equatable {
    public var index: Int
    public var title: String?
    public var message: String
    public var fatal: Bool
    /// Left out on purpose (a note in Keep's trash): counted, not reported.
    public var skipped: Bool
    public init(index: Int, title: String? = nil, message: String, fatal: Bool = false, skipped: Bool = false) {
        self.index = index
        self.title = title
        self.message = message
        self.fatal = fatal
        self.skipped = skipped
    }
}

extension NoteProblem {
    /// A failure as words a person importing a file can act on: a syntax error says where and what,
    /// a problem its message; anything else (an error type of Swift's or the system's, whose name
    /// means nothing to them) says the file could not be read.
    public static func sentence(for error: any Error) -> String {
        switch error {
        case let syntax as XMLSyntaxError: "on line \(syntax.line), \(syntax.message)"
        case let problem as NoteProblem: problem.message
        default: "the file could not be read (it may be damaged or cut short); export it again and import the new file"
        }
    }
}

/// What an import reads notes from.
public protocol NoteSource {
    /// The next note or problem; nil at the end (or after a fatal problem).
    mutating func next() -> Result<ImportedNote, NoteProblem>?
    /// How far through the file the source is, and how far it goes (for progress).
    var progress: (done: Int64, total: Int64?) { get }
}
