public import Bus
public import ShareLinkAPI
public import Foundation
public import StorageAPI

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

/// Notes as subjects other plugins keep something about (`notes/<id>`: a geotag, a reminder): the
/// notes plugin answers ``CheckSubject`` of them and publishes ``SubjectDeleted`` when one is deleted.
public enum NoteSubject: SubjectKind { public static let kind = "notes" }

/// A note shared read-only through a link (apps with share-link): the notes plugin offers the kind
/// and answers ``ShowShared`` of it with the note's front and back.
public enum SharedNote: SharedKind { public static let id = "notes.note" }

/// Every notes message, for name checks.
public enum NotesMessages {
    public static let all: [any BusMessage.Type] = [NoteChanged.self, StartNoteImport.self, GetNoteImportJob.self, ListNoteImportJobs.self, CheckSubject<NoteSubject>.self, ShowShared<SharedNote>.self]
}

// MARK: Imports

/// An export file of another notes app that the notes plugin reads.
public enum NoteImportFormat: String, Codable, Sendable, CaseIterable {
    /// Evernote's `.enex`.
    case enex
    /// A Google Takeout zip holding Keep's notes.
    case keep
}

/// Starts a background import of another app's notes; answers at once with the job.
public struct StartNoteImport: BusRequest {
    public static let name: MessageName = "notes.import.start.v1"
    public typealias Reply = NoteImportJob
    public var owner: String
    public var format: NoteImportFormat
    /// The file, stored in parts (see ``BlobParts``); the job copies it out and releases them.
    public var file: BlobParts
    public init(owner: String, format: NoteImportFormat, file: BlobParts) {
        self.owner = owner
        self.format = format
        self.file = file
    }
}

/// Everyone's imports in one state (the newest 200), for the server's operator.
public struct ListNoteImportJobs: BusRequest {
    public static let name: MessageName = "notes.import.list.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public struct Owned: Codable, Sendable, Hashable {
            public var owner: String
            public var job: NoteImportJob
            public init(owner: String, job: NoteImportJob) {
                self.owner = owner
                self.job = job
            }
        }
        public var jobs: [Owned]
        public init(jobs: [Owned]) { self.jobs = jobs }
    }
    public var state: NoteImportJob.State
    public init(state: NoteImportJob.State) { self.state = state }
}

/// An import's state.
public struct GetNoteImportJob: BusRequest {
    public static let name: MessageName = "notes.import.get.v1"
    public typealias Reply = NoteImportJob
    public var owner: String
    public var id: String
    public init(owner: String, id: String) {
        self.owner = owner
        self.id = id
    }
}

/// A notes import: its progress while it runs, what it brought in, each note it could not read.
public struct NoteImportJob: Codable, Sendable, Hashable {
    public enum State: String, Codable, Sendable {
        case running, succeeded, failed
    }

    /// A note left out (or brought in without something), and why.
    public struct Problem: Codable, Sendable, Hashable {
        /// The note's 1-based position in the file.
        public var note: Int
        public var title: String?
        public var message: String
        /// Whether the note was imported all the same (without its photo, say).
        public var imported: Bool
        public init(note: Int, title: String?, message: String, imported: Bool) {
            self.note = note
            self.title = title
            self.message = message
            self.imported = imported
        }
    }

    public var id: String
    public var state: State
    public var format: NoteImportFormat
    /// Notes read so far (imported, skipped or failed).
    public var notesRead: Int
    public var imported: Int
    /// Of those, notes that came with a photo.
    public var photos: Int
    /// Notes left out on purpose (Keep's trash).
    public var skipped: Int
    /// How far through the file, in bytes (Evernote) or notes (Keep), and how far it goes.
    public var progressDone: Int64
    public var progressTotal: Int64?
    /// The first 100 problems.
    public var problems: [Problem]
    public var problemCount: Int
    /// Why the whole import failed (and was rolled back).
    public var failure: String?
    /// True while the job waits for a worker of the server's job queue (its state is `running`
    /// meanwhile); absent once it runs.
    public var queued: Bool?
    public var startedAt: Date
    public var finishedAt: Date?

    public init(id: String, state: State, format: NoteImportFormat, startedAt: Date) {
        self.id = id
        self.state = state
        self.format = format
        notesRead = 0
        imported = 0
        photos = 0
        skipped = 0
        progressDone = 0
        progressTotal = nil
        problems = []
        problemCount = 0
        failure = nil
        self.startedAt = startedAt
        finishedAt = nil
    }
}
