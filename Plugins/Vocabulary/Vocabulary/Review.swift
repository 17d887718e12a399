import Bus
import FSRS
import Foundation
import HTTPKit
import PluginKit
import StorageAPI
import VocabularyAPI
import VocabularyFormats

/// Spaced-repetition review of a user's entries with FSRS-6.
///
/// Each reviewed entry has a card (`vocab.cards`, the entry's id): its FSRS state and when it is
/// due. An entry with no card is new. Each review is a record of its own (`vocab.reviews`), written
/// with the card in one batch: a review sent twice (an offline client's outbox retrying) is applied
/// once, because its id is the client's. Both collections sync like any change.
struct ReviewService: Sendable {
    typealias C = VocabularyCollections

    let service: VocabularyService
    let clock: PluginClock
    let defaults: ReviewSettings
    /// `review_card_kinds`: collections may turn on definition → word and cloze cards.
    var cardKindsOn = true
    var store: any RecordStore & RecordSearching { service.store }

    /// How long ago a review may say it happened (an offline device sending its backlog).
    static let oldestBackdate: TimeInterval = 30 * 86_400
    /// How far ahead of the server's clock a device's may run.
    static let clockSkew: TimeInterval = 300

    // MARK: Settings

    func settings(owner: String) async throws(BusError) -> ReviewSettings {
        guard let record = try await store.get(collection: C.reviewSettings, id: Self.settingsID, owner: owner) else { return defaults }
        return try record.decode(ReviewSettings.self)
    }

    func update(settings input: ReviewSettingsInput, owner: String) async throws(BusError) -> ReviewSettings {
        var settings = try await self.settings(owner: owner)
        if let retention = input.desiredRetention {
            guard (0.7...0.99).contains(retention) else {
                throw BusError.invalid("desiredRetention is between 0.7 and 0.99 (0.9: nine in ten words remembered when they come up); not \(retention).",
                                       field: "desiredRetention")
            }
            settings.desiredRetention = retention
        }
        if let fuzz = input.fuzz { settings.fuzz = fuzz }
        if let newPerDay = input.newPerDay {
            guard (0...1000).contains(newPerDay) else {
                throw BusError.invalid("newPerDay is between 0 and 1000; not \(newPerDay).", field: "newPerDay")
            }
            settings.newPerDay = newPerDay
        }
        let document = try JSONDocument(encoding: settings)
        if let record = try await store.get(collection: C.reviewSettings, id: Self.settingsID, owner: owner) {
            _ = try await store.write(WriteBatch([.replace(collection: C.reviewSettings, id: record.id, owner: owner, data: document,
                                                           expectedVersion: record.version)]))
        } else {
            _ = try await store.write(WriteBatch([.insert(collection: C.reviewSettings, id: Self.settingsID, owner: owner, data: document)]))
        }
        return settings
    }

    static let settingsID = "settings"

    func scheduler(_ settings: ReviewSettings, fuzz: Bool? = nil) -> FSRSScheduler {
        FSRSScheduler(parameters: settings.fitted?.parameters ?? FSRSScheduler.defaultParameters, desiredRetention: settings.desiredRetention,
                      fuzz: fuzz ?? settings.fuzz)
    }

    // MARK: What is due

    /// The cards due now (earliest first), then new ones up to what is left of today's new cards;
    /// of one collection or of all. Each with its entry and when each rating would bring it back.
    /// A card's kind must be on in its collection (``CardKinds``), and one card of a word is shown
    /// at a time: its siblings wait for the next session, as Anki buries them.
    func next(owner: String, collection: String?, limit: Int, dayStart: Date, only: Set<CardKind>? = nil) async throws(BusError) -> [DueCard] {
        if let collection { _ = try await service.collection(owner: owner, id: collection) }
        let now = clock.now()
        let settings = try await settings(owner: owner)
        let only = cardKindsOn ? only : [.forward]
        let kinds = try await cardKinds(owner: owner).mapValues { kinds in kinds.filter { only?.contains($0) ?? true } }
        var filters = [Filter("due", .lte, .string(JSONWriter.iso8601(now)))]
        if let collection { filters.append(Filter("collection", .eq, .string(collection))) }
        let due = try await store.query(RecordQuery(collection: C.cards, owner: owner, filters: filters, order: [SortKey("due")], limit: limit))
        var cards: [(card: CardData, entry: Record, cloze: Cloze?)] = []
        var shownEntries = Set<String>()
        for record in due.records {
            let card = try record.decode(CardData.self)
            let kind = card.kind ?? .forward
            guard kinds[card.collection, default: Self.defaultKinds(only)].contains(kind), !shownEntries.contains(card.entry) else { continue }
            // A card whose entry is gone (deleted, its collection deleted) is skipped, not shown.
            guard let entry = try? await service.entry(owner: owner, id: card.entry) else { continue }
            let cloze = kind == .cloze ? Self.cloze(of: entry) : nil
            if kind == .cloze && cloze == nil { continue }
            cards.append((card, entry, cloze))
            shownEntries.insert(card.entry)
        }
        let newToday = try await reviewedCount(owner: owner, since: dayStart, newOnly: true)
        let newLeft = min(limit - cards.count, max(0, settings.newPerDay - newToday))
        if newLeft > 0 {
            for (entry, kind, cloze) in try await newCards(owner: owner, collection: collection, kinds: kinds, only: only, skipping: shownEntries, limit: newLeft) {
                cards.append((CardData(new: entry, due: now, kind: kind), entry, cloze))
            }
        }
        let preview = scheduler(settings, fuzz: false)
        var shown: [DueCard] = []
        for (card, entry, cloze) in cards {
            let fsrs = card.fsrs
            let intervals = Dictionary(uniqueKeysWithValues: FSRSRating.allCases.map { rating in
                (rating.name, Int(preview.review(fsrs, rating: rating, at: now).due.timeIntervalSince(now).rounded()))
            })
            let json: EntryJSON
            do { json = try EntryJSON(entry) } catch {
                throw BusError(.internal, "Entry '\(entry.id)' could not be read.", details: ["id": entry.id])
            }
            shown.append(DueCard(entry: json, card: card, intervals: intervals, kind: (card.kind ?? .forward).rawValue, cloze: cloze))
        }
        return shown
    }

    /// ``next(owner:collection:limit:dayStart:)`` for the bus (the collection by name or id; the day in UTC).
    func next(_ request: NextReviews) async throws(BusError) -> [ReviewCard] {
        var collection: String?
        if let name = request.collection {
            guard let record = try await service.collection(owner: request.owner, named: name) else {
                throw BusError(.notFound, "No collection '\(name)'.", details: ["collection": name])
            }
            collection = record.id
        }
        // The terminal reviews word → definition (its RecordReview names no kind).
        let cards = try await next(owner: request.owner, collection: collection, limit: min(max(request.limit, 1), 100),
                                   dayStart: Self.dayStart(of: clock.now(), offsetMinutes: 0), only: [.forward])
        return cards.map { ReviewCard(entry: $0.entry.id, word: $0.entry.word, definitions: $0.entry.definitions, example: $0.entry.example,
                                      state: $0.card.state, intervals: $0.intervals) }
    }

    /// New cards (an entry with no card of a kind its collection has on), in their collection's
    /// order, one per entry: a page of entries at a time, their cards looked up together.
    private func newCards(owner: String, collection: String?, kinds: [String: [CardKind]], only: Set<CardKind>?, skipping: Set<String>,
                          limit: Int) async throws(BusError) -> [(entry: Record, kind: CardKind, cloze: Cloze?)] {
        var found: [(entry: Record, kind: CardKind, cloze: Cloze?)] = []
        var cursor: String?
        var pages = 0
        repeat {
            let filters = collection.map { [Filter("collection", .eq, .string($0))] } ?? []
            let order = collection == nil ? [] : [SortKey("sortKey")]
            let page = try await store.query(RecordQuery(collection: C.entries, owner: owner, filters: filters, order: order,
                                                         limit: RecordQuery.maxInValues, cursor: cursor))
            let ids = page.records.map { JSONValue.string($0.id) }
            let carded = ids.isEmpty ? [] : try await store.query(RecordQuery(collection: C.cards, owner: owner, filters: [Filter("entry", .in, .array(ids))],
                                                                             limit: RecordQuery.maxLimit)).records.map(\.id)
            let seen = Set(carded)
            for record in page.records where !skipping.contains(record.id) && found.count < limit {
                guard let data = try? record.decode(EntryData.self) else { continue }
                guard let kind = kinds[data.collection, default: Self.defaultKinds(only)].first(where: { kind in
                    !seen.contains(kind.cardID(entry: record.id)) && StorageNames.isValidID(kind.cardID(entry: record.id))
                        && (kind != .cloze || Cloze(example: data.example, word: data.word) != nil)
                }) else { continue }
                // An entry whose collection is being deleted is not offered.
                guard (try? await service.entry(owner: owner, id: record.id)) != nil else { continue }
                found.append((record, kind, kind == .cloze ? Cloze(example: data.example, word: data.word) : nil))
            }
            cursor = page.nextCursor
            pages += 1
        } while found.count < limit && cursor != nil && pages < 50
        return found
    }

    // MARK: Reviewing

    /// Applies one review: the card moves on, and the review is logged.
    func review(owner: String, input: ReviewInput) async throws(BusError) -> ReviewResult {
        guard let entryID = input.entry, !entryID.isEmpty else {
            throw BusError.invalid("Say which entry was reviewed ('entry': its id).", field: "entry")
        }
        guard let ratingName = input.rating, let rating = FSRSRating(name: ratingName) else {
            throw BusError.invalid("'rating' is again, hard, good or easy.", field: "rating")
        }
        let id = input.id ?? service.newID("r_")
        guard StorageNames.isValidID(id) else {
            throw BusError.invalid("A review's id is 1 to 64 letters, digits, '-' or '_'.", field: "id")
        }
        let now = clock.now()
        let at = Date(timeIntervalSince1970: (input.reviewedAt ?? now).timeIntervalSince1970.rounded(.down))
        guard at <= now.addingTimeInterval(Self.clockSkew) else {
            throw BusError.invalid("reviewedAt is in the future; check the device's clock.", field: "reviewedAt")
        }
        guard at >= now.addingTimeInterval(-Self.oldestBackdate) else {
            throw BusError.invalid("reviewedAt is more than 30 days ago; reviews that old are not applied.", field: "reviewedAt")
        }
        if let duration = input.durationMs, !(0...3_600_000).contains(duration) {
            throw BusError.invalid("durationMs is between 0 and 3600000.", field: "durationMs")
        }
        if let replayed = try await store.get(collection: C.reviews, id: id, owner: owner) {
            return try await self.replayed(replayed, owner: owner)
        }
        let kind = try CardKind.named(input.kind)
        let cardID = kind.cardID(entry: entryID)
        guard StorageNames.isValidID(cardID) else {
            throw BusError.invalid("This entry's id is too long for a \(kind.rawValue) card; review it word → definition.", field: "kind")
        }
        let entry = try await service.entry(owner: owner, id: entryID)
        let entryData = try entry.decode(EntryData.self)
        let settings = try await settings(owner: owner)
        let scheduler = self.scheduler(settings)
        // Two devices reviewing the same card at once: the second write finds a newer card and
        // starts again from it.
        for _ in 0..<3 {
            let stored = try await store.get(collection: C.cards, id: cardID, owner: owner)
            var card = try stored.map { record throws(BusError) in try record.decode(CardData.self) } ?? CardData(new: entry, due: at, kind: kind)
            let log = ReviewLogData(entry: entryID, collection: entryData.collection, rating: rating.name, reviewedAt: at,
                                    stateBefore: card.state, elapsedDays: nil, scheduledDays: 0, stability: 0, difficulty: 0,
                                    durationMs: input.durationMs, kind: kind == .forward ? nil : kind)
            if let last = card.lastReview, at <= last {
                // A review made before the card's last one (offline on another device): kept, and the
                // card replayed from its whole log.
                if let result = try await replaying(owner: owner, cardID: cardID, stored: stored, card: card, review: log, id: id, scheduler: scheduler) {
                    return result
                }
                if let replayed = try await store.get(collection: C.reviews, id: id, owner: owner) {
                    return try await self.replayed(replayed, owner: owner)
                }
                continue
            }
            let before = card
            card.apply(scheduler.review(card.fsrs, FSRSLoggedReview(id: id, rating: rating, at: at), cardID: cardID))
            card.reps += 1
            if rating == .again && before.state == "review" { card.lapses += 1 }
            card.collection = entryData.collection
            var written = log
            written.elapsedDays = before.lastReview.map { at.timeIntervalSince($0) / 86_400 }
            written.scheduledDays = card.due.timeIntervalSince(at) / 86_400
            written.stability = card.stability ?? 0
            written.difficulty = card.difficulty ?? 0
            let cardDocument = try JSONDocument(encoding: card)
            let write: WriteOperation = stored.map { .replace(collection: C.cards, id: cardID, owner: owner, data: cardDocument, expectedVersion: $0.version) }
                ?? .insert(collection: C.cards, id: cardID, owner: owner, data: cardDocument)
            do {
                _ = try await store.write(WriteBatch([.insert(collection: C.reviews, id: id, owner: owner, data: try JSONDocument(encoding: written)), write]))
                return ReviewResult(card: card, review: ReviewJSON(written, id: id), replayed: false)
            } catch where error.code == .preconditionFailed || error.code == .conflict {
                if let replayed = try await store.get(collection: C.reviews, id: id, owner: owner) {
                    return try await self.replayed(replayed, owner: owner)
                }
                continue
            }
        }
        throw BusError(.conflict, "The card kept changing while this review was applied; send it again.", details: ["retryAfter": "1"])
    }

    private func replayed(_ record: Record, owner: String) async throws(BusError) -> ReviewResult {
        let log = try record.decode(ReviewLogData.self)
        guard let card = try await store.get(collection: C.cards, id: log.cardKind.cardID(entry: log.entry), owner: owner) else {
            throw BusError(.notFound, "The entry of review '\(record.id)' is gone.", details: ["id": record.id])
        }
        return ReviewResult(card: try card.decode(CardData.self), review: ReviewJSON(log, id: record.id), replayed: true)
    }

    // MARK: Statistics

    /// Today's due and reviewed counts, and the share of review-state cards recalled over 30 days.
    func stats(owner: String, dayStart: Date) async throws(BusError) -> ReviewStats {
        let now = clock.now()
        let dayEnd = dayStart.addingTimeInterval(86_400)
        var dueToday = 0
        var cursor: String?
        // A card whose word is gone (deleted, or its collection deleted: its card stays for the undo
        // window) is not due: `next` skips it, so counting it said "Due today 5" for one word left.
        var live: [String: Bool] = [:]
        repeat {
            let page = try await store.query(RecordQuery(collection: C.cards, owner: owner, filters: [Filter("due", .lt, .string(JSONWriter.iso8601(dayEnd)))],
                                                         order: [SortKey("due")], limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                guard let card = try? record.decode(CardData.self) else { continue }
                if live[card.entry] == nil { live[card.entry] = try await store.get(collection: C.entries, id: card.entry, owner: owner) != nil }
                if live[card.entry] == true { dueToday += 1 }
            }
            cursor = page.nextCursor
        } while cursor != nil
        let reviewedToday = try await reviewedCount(owner: owner, since: dayStart, newOnly: false)
        var recalled = 0, reviewed = 0
        cursor = nil
        repeat {
            let page = try await store.query(RecordQuery(collection: C.reviews, owner: owner,
                                                         filters: [Filter("reviewedAt", .gte, .string(JSONWriter.iso8601(now.addingTimeInterval(-30 * 86_400))))],
                                                         order: [SortKey("reviewedAt")], limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                guard let log = try? record.decode(ReviewLogData.self), log.stateBefore == "review" else { continue }
                reviewed += 1
                if log.rating != FSRSRating.again.name { recalled += 1 }
            }
            cursor = page.nextCursor
        } while cursor != nil
        let settings = try await settings(owner: owner)
        return ReviewStats(dueToday: dueToday, reviewedToday: reviewedToday, retention30Days: reviewed == 0 ? nil : Double(recalled) / Double(reviewed),
                           reviewsCounted30Days: reviewed, settings: settings)
    }

    private func reviewedCount(owner: String, since: Date, newOnly: Bool) async throws(BusError) -> Int {
        var count = 0
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: C.reviews, owner: owner, filters: [Filter("reviewedAt", .gte, .string(JSONWriter.iso8601(since)))],
                                                         order: [SortKey("reviewedAt")], limit: RecordQuery.maxLimit, cursor: cursor))
            count += newOnly ? page.records.filter { (try? $0.decode(ReviewLogData.self).stateBefore) == "new" }.count : page.records.count
            cursor = page.nextCursor
        } while cursor != nil
        return count
    }

    /// The start of the day `offsetMinutes` east of UTC that `date` falls in.
    static func dayStart(of date: Date, offsetMinutes: Int) -> Date {
        let local = date.timeIntervalSince1970 + Double(offsetMinutes * 60)
        return Date(timeIntervalSince1970: (local / 86_400).rounded(.down) * 86_400 - Double(offsetMinutes * 60))
    }
}

/// A user's review settings.
struct ReviewSettings: Codable, Sendable, Equatable {
    var desiredRetention: Double
    var fuzz: Bool
    var newPerDay: Int
    /// The parameters fitted to the user's log ("Fit my parameters"); nil: FSRS-6's defaults.
    var fitted: FittedParameters?
}

/// Each setting may be left out (kept as it is), but not `null`: the schema gives each a type.
struct ReviewSettingsInput: Decodable, Sendable {
    var desiredRetention: Double?
    var fuzz: Bool?
    var newPerDay: Int?

    init(desiredRetention: Double? = nil, fuzz: Bool? = nil, newPerDay: Int? = nil) {
        self.desiredRetention = desiredRetention
        self.fuzz = fuzz
        self.newPerDay = newPerDay
    }

    enum CodingKeys: String, CodingKey { case desiredRetention, fuzz, newPerDay }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        desiredRetention = try container.decodeUnlessNull(Double.self, forKey: .desiredRetention)
        fuzz = try container.decodeUnlessNull(Bool.self, forKey: .fuzz)
        newPerDay = try container.decodeUnlessNull(Int.self, forKey: .newPerDay)
    }
}

struct ReviewInput: Decodable, Sendable {
    /// The client's id for the review: sending it again applies it once.
    var id: String?
    var entry: String?
    var rating: String?
    /// When it happened, for a review made offline; now when absent.
    var reviewedAt: Date?
    var durationMs: Int?
    /// Which of the entry's cards: forward (the default), reverse or cloze.
    var kind: String?

    init(id: String? = nil, entry: String?, rating: String?, reviewedAt: Date? = nil, durationMs: Int?, kind: String? = nil) {
        self.kind = kind
        self.id = id
        self.entry = entry
        self.rating = rating
        self.reviewedAt = reviewedAt
        self.durationMs = durationMs
    }
}

/// A card as stored and shown: FSRS's state, with `due` and `lastReview` as sortable text.
struct CardData: Codable, Sendable {
    /// The entry's id (also the record's): for looking cards up by entry.
    var entry: String
    var collection: String
    /// new, learning, review or relearning.
    var state: String
    var step: Int?
    var stability: Double?
    var difficulty: Double?
    var due: Date
    var lastReview: Date?
    var reps: Int
    var lapses: Int
    /// The import that brought the card (from an Anki deck's schedule), while it may be rolled back.
    var importJob: String?
    /// Which of the entry's cards this is; nil for word → definition (`forward`).
    var kind: CardKind?
    /// Where the import left it: a replay of the card's log starts there.
    var origin: CardOrigin?

    init(new entry: Record, due: Date, kind: CardKind = .forward) {
        self.kind = kind == .forward ? nil : kind
        self.entry = entry.id
        collection = (try? entry.decode(EntryData.self).collection) ?? ""
        state = "new"
        step = 0
        self.due = due
        reps = 0
        lapses = 0
    }

    /// A card an import brings, where the file had it in its schedule.
    init(entry: String, collection: String, schedule: ImportedSchedule, importJob: String) {
        self.entry = entry
        self.collection = collection
        state = schedule.state
        step = schedule.state == "review" ? nil : 0
        stability = schedule.stability
        difficulty = schedule.difficulty
        due = Date(timeIntervalSince1970: schedule.due.timeIntervalSince1970.rounded(.down))
        lastReview = schedule.lastReview.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        reps = schedule.reps
        lapses = schedule.lapses
        self.importJob = importJob
        origin = CardOrigin(state: state, step: step, stability: stability, difficulty: difficulty, due: due, lastReview: lastReview,
                            reps: reps, lapses: lapses)
    }

    /// What an export keeps of the card (nil for one never reviewed).
    var schedule: ImportedSchedule? {
        guard state != "new" else { return nil }
        return ImportedSchedule(state: state, stability: stability, difficulty: difficulty, due: due, lastReview: lastReview, reps: reps, lapses: lapses)
    }

    var fsrs: FSRSCard {
        FSRSCard(state: state == "review" ? .review : state == "relearning" ? .relearning : .learning, step: step,
                 stability: stability, difficulty: difficulty, due: due, lastReview: lastReview)
    }

    mutating func apply(_ card: FSRSCard) {
        state = switch card.state {
        case .learning: "learning"
        case .review: "review"
        case .relearning: "relearning"
        }
        step = card.step
        stability = card.stability
        difficulty = card.difficulty
        due = card.due
        lastReview = card.lastReview
    }
}

struct ReviewLogData: Codable, Sendable, Equatable {
    var entry: String
    var collection: String
    var rating: String
    var reviewedAt: Date
    /// new, learning, review or relearning.
    var stateBefore: String
    /// Days since the review before (nil for a new card's first).
    var elapsedDays: Double?
    var scheduledDays: Double
    var stability: Double
    var difficulty: Double
    var durationMs: Int?
    /// Which of the entry's cards was reviewed; nil for word → definition.
    var kind: CardKind?

    var cardKind: CardKind { kind ?? .forward }
}

struct ReviewJSON: Encodable, Sendable {
    var id: String
    var entry: String
    var rating: String
    var reviewedAt: Date
    var stateBefore: String
    var scheduledDays: Double

    init(_ log: ReviewLogData, id: String) {
        self.id = id
        entry = log.entry
        rating = log.rating
        reviewedAt = log.reviewedAt
        stateBefore = log.stateBefore
        scheduledDays = log.scheduledDays
    }
}

struct DueCard: Encodable, Sendable {
    var entry: EntryJSON
    var card: CardData
    /// Seconds until the card would be due again after each rating (fuzz aside): for the buttons.
    var intervals: [String: Int]
    /// forward (word → definition), reverse (definition → word) or cloze.
    var kind: String
    /// A cloze card's sentence with its blank, and the answer.
    var cloze: Cloze?
}

struct ReviewResult: Encodable, Sendable {
    var card: CardData
    var review: ReviewJSON
    /// The same review was applied before (its id was seen): nothing changed now.
    var replayed: Bool
}

struct ReviewStats: Encodable, Sendable {
    var dueToday: Int
    var reviewedToday: Int
    /// Of reviews of cards in review over the last 30 days, the share not rated again; nil when none.
    var retention30Days: Double?
    var reviewsCounted30Days: Int
    var settings: ReviewSettings
}
