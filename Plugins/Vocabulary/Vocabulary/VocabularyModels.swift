import Bus
import Foundation
import StorageAPI
import VocabularyAPI
import VocabularyFormats

/// What is stored, and the rules on what a user may send.
enum VocabularyCollections {
    static let collections = SyncedVocabularyCollection.collection
    static let entries = SyncedVocabularyEntry.collection
    static let tags = SyncedVocabularyTag.collection
    static let trash = "vocab.trash"
    static let jobs = "vocab.jobs"
    /// Collections deleted and gone from view whose entries are still being deleted.
    static let purging = "vocab.purging"
    /// Review: a card per reviewed entry (its FSRS state, when it is due), a record per review,
    /// and a user's review settings.
    static let cards = SyncedVocabularyCard.collection
    static let reviews = SyncedVocabularyReview.collection
    static let reviewSettings = "vocab.review_settings"

    static let schemas: [CollectionSchema] = [
        CollectionSchema(name: collections, indexes: [
            IndexSpec(name: "name", fields: ["nameKey"], unique: true),
            IndexSpec(name: "job", fields: ["importJob"]),
        ]),
        CollectionSchema(name: tags, indexes: [
            IndexSpec(name: "name", fields: ["nameKey"], unique: true),
            IndexSpec(name: "job", fields: ["importJob"]),
        ]),
        CollectionSchema(
            name: entries,
            indexes: [IndexSpec(name: "collection", fields: ["collection", "sortKey"]), IndexSpec(name: "job", fields: ["importJob"])],
            blobFields: ["pronunciation"], search: SearchIndexSpec(key: "word", text: ["definitions"], filters: ["collection", "tags"]), history: true),
        CollectionSchema(name: trash, indexes: [IndexSpec(name: "deleted", fields: ["deletedAt"], scope: .global)]),
        CollectionSchema(name: jobs, indexes: [IndexSpec(name: "state", fields: ["state"], scope: .global)]),
        CollectionSchema(name: purging),
        CollectionSchema(name: cards, indexes: [
            IndexSpec(name: "due", fields: ["due"]),
            IndexSpec(name: "collection", fields: ["collection", "due"]),
            IndexSpec(name: "entry", fields: ["entry"]),
            IndexSpec(name: "job", fields: ["importJob"]),
        ]),
        CollectionSchema(name: reviews, indexes: [IndexSpec(name: "reviewed", fields: ["reviewedAt"])]),
        CollectionSchema(name: reviewSettings),
        CollectionSchema(name: Tips.seenCollection),
    ]
}

struct CollectionData: Codable, Sendable {
    var name: String
    /// The name folded (case, accents): unique per user.
    var nameKey: String
    var importJob: String?
    /// The cards its words get (forward, reverse, cloze); nil: forward only.
    var cardKinds: [CardKind]?
}

struct TagData: Codable, Sendable {
    var name: String
    var nameKey: String
    var importJob: String?
}

enum RelationKind: String, Codable, Sendable, CaseIterable {
    case related, alternative
}

struct Relation: Codable, Sendable, Hashable {
    var kind: RelationKind
    var entry: String
}

struct EntryData: Codable, Sendable {
    var word: String
    var definitions: [String]
    var languages: [String]
    var note: String?
    var example: String?
    /// The collection's id.
    var collection: String
    /// Tag ids.
    var tags: [String]
    var relations: [Relation]
    /// The word as recorded by someone (the audio plugin's Ogg Opus blob) and its length in ms.
    var pronunciation: String?
    var pronunciationMs: Int?
    /// The word folded: the order of a collection's list.
    var sortKey: String
    /// The import that created it, while that import may still be rolled back.
    var importJob: String?
}

/// A collection being deleted: gone from every list, its entries deleted in the background.
struct PurgeData: Codable, Sendable {
    var name: String
    var requestedAt: Date
}

/// A deleted entry, restorable until `deletedAt` + the undo window; afterwards only a tombstone
/// (`entry` nil) is kept for a while, so that a late restore says 410 rather than 404.
struct TrashData: Codable, Sendable {
    var entry: EntryData?
    var deletedAt: Double
}

/// An entry as the client writes it.
struct EntryInput: Decodable, Sendable {
    var collection: String?
    var word: String?
    var definitions: [String]?
    var languages: [String]?
    var note: String??
    var example: String??
    var tags: [String]?

    enum CodingKeys: String, CodingKey { case collection, word, definitions, languages, note, example, tags }

    init(collection: String?, word: String?, definitions: [String]?, languages: [String]? = nil, note: String?? = nil,
         example: String?? = nil, tags: [String]? = nil) {
        self.collection = collection
        self.word = word
        self.definitions = definitions
        self.languages = languages
        self.note = note
        self.example = example
        self.tags = tags
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        collection = try container.decodeIfPresent(String.self, forKey: .collection)
        word = try container.decodeIfPresent(String.self, forKey: .word)
        definitions = try container.decodeIfPresent([String].self, forKey: .definitions)
        languages = try container.decodeIfPresent([String].self, forKey: .languages)
        // Present-and-null clears; absent keeps.
        note = container.contains(.note) ? .some(try container.decodeIfPresent(String.self, forKey: .note)) : nil
        example = container.contains(.example) ? .some(try container.decodeIfPresent(String.self, forKey: .example)) : nil
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
    }
}

struct NameInput: Decodable, Sendable {
    var name: String?
}

struct RelationInput: Decodable, Sendable {
    var kind: String?
    var entry: String?
}

/// Limits and checks, each with a message a person can act on.
enum VocabularyRules {
    static let maxName = 100
    static let maxWord = 200
    static let maxDefinitions = 20
    static let maxDefinition = 2000
    static let maxNote = 2000
    static let maxTags = 30
    static let maxLanguages = 5

    static func name(_ raw: String?, of what: String) throws(BusError) -> (name: String, key: String) {
        let name = (raw ?? "").trimmed
        guard !name.isEmpty else {
            throw BusError.invalid("Give the \(what) a name.", field: "name")
        }
        guard name.count <= maxName else {
            throw BusError.invalid("A \(what) name is at most \(maxName) characters.", field: "name")
        }
        let key = SearchText.fold(name)
        guard !key.isEmpty else {
            throw BusError.invalid("A \(what) name needs at least one letter or digit.", field: "name")
        }
        return (name, key)
    }

    static func tagName(_ raw: String?) throws(BusError) -> (name: String, key: String) {
        let (name, key) = try self.name(raw, of: "tag")
        guard !name.contains(where: { $0.isWhitespace }) else {
            throw BusError.invalid("A tag is one word (no spaces), like Anki's: try '\(name.split(whereSeparator: \.isWhitespace).joined(separator: "_"))'.",
                                   field: "name")
        }
        return (name, key)
    }

    static func word(_ raw: String?) throws(BusError) -> String {
        let word = (raw ?? "").trimmed
        guard !word.isEmpty else { throw BusError.invalid("Write the word or phrase.", field: "word") }
        guard word.count <= maxWord else { throw BusError.invalid("A word or phrase is at most \(maxWord) characters.", field: "word") }
        return word
    }

    static func definitions(_ raw: [String]?) throws(BusError) -> [String] {
        let definitions = (raw ?? []).map { $0.trimmed }.filter { !$0.isEmpty }
        guard !definitions.isEmpty else { throw BusError.invalid("Write at least one definition.", field: "definitions") }
        guard definitions.count <= maxDefinitions else {
            throw BusError.invalid("An entry has at most \(maxDefinitions) definitions.", field: "definitions")
        }
        guard definitions.allSatisfy({ $0.count <= maxDefinition }) else {
            throw BusError.invalid("A definition is at most \(maxDefinition) characters.", field: "definitions")
        }
        // One line each: files keep several definitions as the lines of one cell.
        guard !definitions.contains(where: { $0.contains(where: \.isNewline) }) else {
            throw BusError.invalid("A definition is one line; send each meaning as a definition of its own.", field: "definitions")
        }
        return definitions
    }

    static func languages(_ raw: [String]?) throws(BusError) -> [String] {
        let languages = raw ?? []
        guard languages.count <= maxLanguages else {
            throw BusError.invalid("An entry names at most \(maxLanguages) languages.", field: "languages")
        }
        for code in languages where !isBCP47(code) {
            throw BusError.invalid("'\(code)' is not a BCP 47 language tag; use codes such as fr, de-CH or zh-Hant.", field: "languages")
        }
        return languages
    }

    /// A well-formed BCP 47 tag: a 2–3 (or 4–8) letter language, then subtags of 1–8 letters or digits.
    static func isBCP47(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...8).contains(language.count), language != "",
              language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    static func text(_ raw: String?, field: String, max: Int) throws(BusError) -> String? {
        guard let text = raw?.trimmed, !text.isEmpty else { return nil }
        guard text.count <= max else { throw BusError.invalid("'\(field)' is at most \(max) characters.", field: field) }
        return text
    }

    /// A new id: the time in milliseconds (so that a big import appends to the B-tree instead of
    /// writing all over it) and 64 random bits.
    static func randomID(_ prefix: String, at now: Date, random bits: UInt64) -> String {
        let millis = UInt64(max(0, now.timeIntervalSince1970) * 1000)
        let time = String(millis, radix: 16)
        let random = String(bits, radix: 36)
        return prefix + String(repeating: "0", count: max(0, 12 - time.count)) + time
            + String(repeating: "0", count: max(0, 13 - random.count)) + random
    }
}
