import Bus
import Foundation
import GRDB
import StorageAPI
import VocabularyFormats

/// Card kinds read back from an `.apkg` (AnkiCardKinds.swift writes them): each Anki card goes to
/// the card kind it is, with its own place in the schedule.
/// - A note's card 1 (ord 0) is word → definition, its card 2 (ord 1) definition → word: Quire's
///   "Quire Word (and reversed card)" and Anki's own Basic (and reversed card), or any note type of
///   Anki's standard kind with a second card.
/// - A "Quire Cloze" note's card is the cloze of the word note whose guid is its own without `-cloze`.
/// - A note of one of Anki's own cloze note types (Anki's Cloze) is a word of its own: the word is
///   what its `{{c1::…}}` hides, the example its Text (the marks kept), the definition its Back Extra
///   (the sentence when that is empty), and its card 1 (c1) is the word's cloze card; c2 and later
///   are left out, as Quire blanks every mark of a sentence at once.
/// The collections an import makes get the kinds their notes have on; a collection that was there
/// keeps its kinds (the cards are kept, and come back in place if the kind is turned on).
extension AnkiCardKinds {
    /// What a package holds beyond its notes' first cards, read as it is opened.
    struct Found {
        /// Card 2 (ord 1) of a note, by note id.
        var reverse: [Int64: ImportedCard] = [:]
        /// The card of each Quire Cloze note, by its guid.
        var cloze: [String: ImportedCard] = [:]
        /// Quire's cloze note types (their notes repeat a word note) and Anki's own (their notes are words).
        var quireClozeModels: Set<Int64> = [AnkiCardKinds.clozeModelID]
        var ankiClozeModels: Set<Int64> = []

        /// Reads which note types are cloze types from the collection's `models` JSON.
        mutating func read(models: [String: Any]) {
            for (key, value) in models {
                guard let id = Int64(key), let model = value as? [String: Any], (model["type"] as? NSNumber)?.intValue == 1 else { continue }
                let fields = (model["flds"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                if model["name"] as? String == clozeModelName && fields == clozeFieldNames {
                    quireClozeModels.insert(id)
                } else {
                    ankiClozeModels.insert(id)
                }
            }
        }

        /// The note types whose notes are not read as words (SQL, numbers only).
        var skippedModels: String { quireClozeModels.sorted().map(String.init).joined(separator: ", ") }

        /// The reverse and cloze cards of the word note `id` with `guid` and note type `model`.
        func cards(note id: Int64, guid: String, model: Int64) -> [ImportedCard] {
            var cards: [ImportedCard] = []
            if !ankiClozeModels.contains(model), let reverse = reverse[id] { cards.append(reverse) }
            if !guid.isEmpty, let cloze = cloze[guid + "-cloze"] { cards.append(cloze) }
            return cards
        }
    }

    /// The word of a note of Anki's own Cloze type (`fields` its Text and Back Extra as HTML); nil
    /// when its Text marks no `{{c1::…}}` (then it reads as any other note, by position).
    static func clozeRow(number: Int, fields: [String], tags: [String], collection: String?, schedule: ImportedSchedule?) -> ImportRow? {
        let text = AnkiMedia.strippingSounds(AnkiPackage.plainText(fields.first ?? ""))
        guard let cloze = Cloze(example: text, word: ""), !cloze.answer.isEmpty else { return nil }
        let extra = fields.count > 1 ? AnkiPackage.plainText(fields[1]).split(whereSeparator: \.isNewline).map(String.init) : []
        var row = ImportRow(number: number, word: cloze.answer, definitions: extra.isEmpty ? [cloze.full] : extra, tags: tags, collection: collection)
        row.example = text
        row.cards = [ImportedCard(kind: CardKind.cloze.rawValue, schedule: schedule)]
        return row
    }
}

extension ImportExport {
    /// The writes of an imported entry's reverse and cloze cards that have a place in the schedule,
    /// and the kinds the row has (scheduled or new).
    static func kindCards(_ row: ImportRow, entry: String, collection: String, owner: String, job: String) throws(BusError) -> (writes: [WriteOperation], kinds: Set<CardKind>) {
        var writes: [WriteOperation] = []
        var kinds = Set<CardKind>()
        for card in row.cards {
            guard let kind = CardKind(rawValue: card.kind), kind != .forward else { continue }
            kinds.insert(kind)
            guard let schedule = card.schedule else { continue }
            var data = CardData(entry: entry, collection: collection, schedule: schedule, importJob: job)
            data.kind = kind
            writes.append(.insert(collection: VocabularyCollections.cards, id: kind.cardID(entry: entry), owner: owner, data: try JSONDocument(encoding: data)))
        }
        return (writes, kinds)
    }

    /// Turns on, in each collection this import made, the kinds its notes have.
    func turnOn(_ kinds: [String: Set<CardKind>], created: Set<String>, owner: String) async throws(BusError) {
        for (id, found) in kinds.sorted(by: { $0.key < $1.key }) where created.contains(id) && !found.isEmpty {
            let record = try await service.collection(owner: owner, id: id)
            var data = try record.decode(CollectionData.self)
            data.cardKinds = CardKind.allCases.filter { $0 == .forward || found.contains($0) }
            _ = try await store.replace(data, in: VocabularyCollections.collections, id: id, owner: owner, expectedVersion: record.version)
        }
    }
}

/// The review log in an export: each review of an exported card is a row of Anki's `revlog`, so
/// Anki's statistics and its optimizer see the history as Quire's do. (An import does not read
/// `revlog` back yet.)
extension AnkiCardKinds {
    /// One logged review of a word's card of `kind`.
    struct LoggedReview {
        var kind: CardKind
        var log: ReviewLogData
    }

    /// Writes the `revlog` rows of `notes`' reviews: card ids as ``write(_:into:stamp:created:decks:)``
    /// gives them (word note `index`: its own id for card 1, after all notes for card 2, after those for
    /// the cloze); each row's id is the review's time in ms (one later when two share a millisecond).
    static func writeReviews(_ notes: [AnkiPackage.Note], into db: Database, stamp: Int64) throws {
        let count = Int64(notes.count)
        var used = Set<Int64>()
        for (index, note) in notes.enumerated() {
            for review in note.reviews {
                let card = switch review.kind {
                case .forward: stamp * 1000 + Int64(index)
                case .reverse: stamp * 1000 + count + Int64(index)
                case .cloze: stamp * 1000 + 2 * count + Int64(index)
                }
                var id = Int64((review.log.reviewedAt.timeIntervalSince1970 * 1000).rounded(.down))
                while used.contains(id) { id += 1 }
                used.insert(id)
                let row = revlog(review.log)
                try db.execute(sql: "INSERT INTO revlog VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
                               arguments: [id, card, row.ease, row.interval, row.lastInterval, row.factor, row.time, row.type])
            }
        }
    }

    /// A review as Anki's `revlog` columns: ease 1–4, intervals in days (negative: seconds, for
    /// learning steps), the ease factor × 1000 that the difficulty corresponds to, time in ms (at most
    /// 60 s, as Anki caps it), type 0 learning, 1 review, 2 relearning.
    static func revlog(_ log: ReviewLogData) -> (ease: Int, interval: Int, lastInterval: Int, factor: Int, time: Int, type: Int) {
        let ease = ["again": 1, "hard": 2, "good": 3, "easy": 4][log.rating] ?? 3
        func interval(_ days: Double?) -> Int {
            guard let days, days.isFinite, days > 0 else { return 0 }
            return days >= 1 ? Int(days.rounded()) : -Int((days * 86_400).rounded())
        }
        let factor = log.difficulty > 0 ? Int((min(max(2.5 - (log.difficulty - 5) * 1.2 / 5, 1.3), 5) * 1000).rounded()) : 0
        let type = switch log.stateBefore {
        case "review": 1
        case "relearning": 2
        default: 0
        }
        return (ease, interval(log.scheduledDays), interval(log.elapsedDays), factor, min(max(log.durationMs ?? 0, 0), 60_000), type)
    }
}

extension ImportExport {
    /// The owner's logged reviews of the exported cards (`schedules`, by card id), by entry, oldest first.
    func exportedReviews(owner: String, schedules: [String: ImportedSchedule]) async throws(BusError) -> [String: [AnkiCardKinds.LoggedReview]] {
        var reviews: [String: [AnkiCardKinds.LoggedReview]] = [:]
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: VocabularyCollections.reviews, owner: owner, order: [SortKey("reviewedAt")],
                                                         limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                guard let log = try? record.decode(ReviewLogData.self), schedules[log.cardKind.cardID(entry: log.entry)] != nil else { continue }
                reviews[log.entry, default: []].append(AnkiCardKinds.LoggedReview(kind: log.cardKind, log: log))
            }
            cursor = page.nextCursor
        } while cursor != nil
        return reviews
    }
}
