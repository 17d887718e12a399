public import Bus
public import Foundation
public import StorageAPI

// The vocabulary plugin's requests, for tools (`quire-vocab`) and other plugins. The HTTP routes
// call the same service.

/// A file format the vocabulary plugin reads and writes.
public enum VocabularyFormat: String, Codable, Sendable, CaseIterable {
    /// `word,definition,tags,collection`, with a header row.
    case csv
    /// An Anki package: a zip holding `collection.anki2`.
    case apkg
}

/// Starts a background import of a file; answers at once with the job.
public struct StartImport: BusRequest {
    public static let name: MessageName = "vocab.import.start.v2"
    public typealias Reply = ImportJob
    public var owner: String
    public var format: VocabularyFormat
    /// The file, stored in parts (it may be far larger than a message or a blob may be). The job
    /// copies it out and releases the parts as it starts.
    public var file: BlobParts
    /// The collection rows without one go to.
    public var collection: String?
    public init(owner: String, format: VocabularyFormat, file: BlobParts, collection: String?) {
        self.owner = owner
        self.format = format
        self.file = file
        self.collection = collection
    }
}

/// Everyone's imports in one state (the newest 200), for the server's operator.
public struct ListImportJobs: BusRequest {
    public static let name: MessageName = "vocab.import.list.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public struct Owned: Codable, Sendable, Hashable {
            public var owner: String
            public var job: ImportJob
            public init(owner: String, job: ImportJob) {
                self.owner = owner
                self.job = job
            }
        }
        public var jobs: [Owned]
        public init(jobs: [Owned]) { self.jobs = jobs }
    }
    public var state: ImportJob.State
    public init(state: ImportJob.State) { self.state = state }
}

/// An import's state.
public struct GetImportJob: BusRequest {
    public static let name: MessageName = "vocab.import.get.v1"
    public typealias Reply = ImportJob
    public var owner: String
    public var id: String
    public init(owner: String, id: String) {
        self.owner = owner
        self.id = id
    }
}

public struct ImportJob: Codable, Sendable, Hashable {
    public enum State: String, Codable, Sendable {
        case running, succeeded, failed
    }

    /// A row that was not imported, and why.
    public struct RowError: Codable, Sendable, Hashable {
        /// 1-based, counting the header row of a CSV; the note's position in an Anki package.
        public var row: Int
        public var message: String
        public init(row: Int, message: String) {
            self.row = row
            self.message = message
        }
    }

    public var id: String
    public var state: State
    public var format: VocabularyFormat
    /// Rows read so far.
    public var rowsRead: Int
    /// Rows in the file, once known (Anki packages know it up front; a CSV when it has been read).
    public var rowsTotal: Int?
    public var imported: Int
    /// Entries already here that the file's notes updated: an Anki note whose guid is the entry's
    /// id (an `.apkg` this server exported), for the same collection, as Anki updates a note it
    /// already has instead of adding a copy.
    public var updated: Int
    public var collectionsCreated: Int
    public var tagsCreated: Int
    /// The first 100 row errors.
    public var errors: [RowError]
    public var errorCount: Int
    /// Why the whole import failed (and was rolled back).
    public var failure: String?
    /// True while the job waits for a worker of the server's job queue (its state is `running`
    /// meanwhile); absent once it runs.
    public var queued: Bool?
    public var startedAt: Date
    public var finishedAt: Date?

    public init(id: String, state: State, format: VocabularyFormat, rowsRead: Int = 0, rowsTotal: Int? = nil, imported: Int = 0,
                updated: Int = 0, collectionsCreated: Int = 0, tagsCreated: Int = 0, errors: [RowError] = [], errorCount: Int = 0,
                failure: String? = nil, startedAt: Date, finishedAt: Date? = nil) {
        self.id = id
        self.state = state
        self.format = format
        self.rowsRead = rowsRead
        self.rowsTotal = rowsTotal
        self.imported = imported
        self.updated = updated
        self.collectionsCreated = collectionsCreated
        self.tagsCreated = tagsCreated
        self.errors = errors
        self.errorCount = errorCount
        self.failure = failure
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// Decodes a job recorded before `updated` existed as one that updated nothing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        state = try container.decode(State.self, forKey: .state)
        format = try container.decode(VocabularyFormat.self, forKey: .format)
        rowsRead = try container.decode(Int.self, forKey: .rowsRead)
        rowsTotal = try container.decodeIfPresent(Int.self, forKey: .rowsTotal)
        imported = try container.decode(Int.self, forKey: .imported)
        updated = try container.decodeIfPresent(Int.self, forKey: .updated) ?? 0
        collectionsCreated = try container.decode(Int.self, forKey: .collectionsCreated)
        tagsCreated = try container.decode(Int.self, forKey: .tagsCreated)
        errors = try container.decode([RowError].self, forKey: .errors)
        errorCount = try container.decode(Int.self, forKey: .errorCount)
        failure = try container.decodeIfPresent(String.self, forKey: .failure)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        finishedAt = try container.decodeIfPresent(Date.self, forKey: .finishedAt)
        queued = try container.decodeIfPresent(Bool.self, forKey: .queued)
    }
}

/// A user's vocabulary, or one collection of it, as a file.
public struct ExportVocabulary: BusRequest {
    public static let name: MessageName = "vocab.export.v2"
    public struct Reply: Codable, Sendable {
        /// The exported file, stored in parts; release them once read.
        public var file: BlobParts
        public var entries: Int
        public init(file: BlobParts, entries: Int) {
            self.file = file
            self.entries = entries
        }
    }
    public var owner: String
    public var format: VocabularyFormat
    /// A collection's name or id; nil for every collection.
    public var collection: String?
    public init(owner: String, format: VocabularyFormat, collection: String?) {
        self.owner = owner
        self.format = format
        self.collection = collection
    }
}

/// Search as you type.
public struct SearchVocabulary: BusRequest {
    public static let name: MessageName = "vocab.search.v1"
    public typealias Reply = VocabularySearchResult
    public var owner: String
    public var query: String
    /// A collection's name or id.
    public var collection: String?
    /// Tag names or ids.
    public var allTags: [String]
    public var anyTags: [String]
    public var noTags: [String]
    public var limit: Int
    /// Browsing (an empty query): the `next` of the page before.
    public var after: String?
    public init(owner: String, query: String, collection: String? = nil, allTags: [String] = [], anyTags: [String] = [],
                noTags: [String] = [], limit: Int = 20, after: String? = nil) {
        self.owner = owner
        self.query = query
        self.collection = collection
        self.allTags = allTags
        self.anyTags = anyTags
        self.noTags = noTags
        self.limit = limit
        self.after = after
    }
}

public struct VocabularySearchResult: Codable, Sendable, Hashable {
    public struct Hit: Codable, Sendable, Hashable {
        public var id: String
        public var word: String
        public var definitions: [String]
        public var collection: String
        public var tags: [String]
        /// The names of `tags`, in the same order.
        public var tagNames: [String]
        /// `exact`, `prefix`, `word` (every word of the query in the word), `definition`, or `listed`
        /// when browsing without words.
        public var match: String
        /// Field path (`word`, `definitions.0`) → `[start, end)` UTF-16 ranges.
        public var highlights: [String: [[Int]]]
        public init(id: String, word: String, definitions: [String], collection: String, tags: [String], tagNames: [String],
                    match: String, highlights: [String: [[Int]]]) {
            self.id = id
            self.word = word
            self.definitions = definitions
            self.collection = collection
            self.tags = tags
            self.tagNames = tagNames
            self.match = match
            self.highlights = highlights
        }
    }

    public var hits: [Hit]
    /// Browsing: where the next page starts (pass it as `after`); nil on the last page.
    public var next: String?
    public init(hits: [Hit], next: String? = nil) {
        self.hits = hits
        self.next = next
    }
}

/// Every vocabulary message, for name checks.
public enum VocabularyMessages {
    public static let all: [any BusMessage.Type] = [
        StartImport.self, GetImportJob.self, ListImportJobs.self, ExportVocabulary.self, SearchVocabulary.self, NextReviews.self, RecordReview.self,
    ]
}

/// The cards to review now (FSRS-6): due ones first, then new entries up to today's limit.
public struct NextReviews: BusRequest {
    public static let name: MessageName = "vocab.review.next.v1"
    public typealias Reply = [ReviewCard]
    public var owner: String
    /// A collection's name or id; nil for all.
    public var collection: String?
    public var limit: Int
    public init(owner: String, collection: String?, limit: Int) {
        self.owner = owner
        self.collection = collection
        self.limit = limit
    }
}

/// One card to review: its entry and what each rating would do.
public struct ReviewCard: Codable, Sendable {
    public var entry: String
    public var word: String
    public var definitions: [String]
    public var example: String?
    /// new, learning, review or relearning.
    public var state: String
    /// Seconds until it comes back after each rating (again, hard, good, easy).
    public var intervals: [String: Int]
    public init(entry: String, word: String, definitions: [String], example: String?, state: String, intervals: [String: Int]) {
        self.entry = entry
        self.word = word
        self.definitions = definitions
        self.example = example
        self.state = state
        self.intervals = intervals
    }
}

/// Records a review of one entry, rated again, hard, good or easy.
public struct RecordReview: BusRequest {
    public static let name: MessageName = "vocab.review.record.v1"
    public struct Reply: Codable, Sendable {
        public var state: String
        public var due: Date
        /// From the review to `due`.
        public var intervalSeconds: Int
        public init(state: String, due: Date, intervalSeconds: Int) {
            self.state = state
            self.due = due
            self.intervalSeconds = intervalSeconds
        }
    }
    public var owner: String
    public var entry: String
    public var rating: String
    public var durationMs: Int?
    public init(owner: String, entry: String, rating: String, durationMs: Int?) {
        self.owner = owner
        self.entry = entry
        self.rating = rating
        self.durationMs = durationMs
    }
}
