import Bus
import FSRS
import Foundation
import StorageAPI
import VocabularyFormats

/// No review is lost: a review that arrives after a later one of the same card (made offline on one
/// device while another reviewed online) is kept in the log, and the card is recomputed by replaying
/// its whole log in time order, as Anki's sync keeps both devices' review logs. FSRS is deterministic
/// and each review's fuzz is seeded by the card and the review, so the card is the same whatever
/// order its reviews arrived in. The logged reviews after the late one are rewritten where what
/// they record (the state before, stability, difficulty, interval) changed.
extension ReviewService {
    /// The reviews of one card (an entry's card of one kind), each with its record.
    func logged(owner: String, entry: String, kind: CardKind) async throws(BusError) -> [(record: Record, log: ReviewLogData)] {
        var found: [(record: Record, log: ReviewLogData)] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: C.reviews, owner: owner, filters: [Filter("entry", .eq, .string(entry))],
                                                         order: [SortKey("reviewedAt")], limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                let log = try record.decode(ReviewLogData.self)
                if log.cardKind == kind { found.append((record, log)) }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return found
    }

    /// Writes `review` (id `id`) into the card's log and the card replayed from its whole log.
    /// Nil when the card or a logged review changed meanwhile (the caller starts again).
    func replaying(owner: String, cardID: String, stored: Record?, card current: CardData, review: ReviewLogData, id: String,
                   scheduler: FSRSScheduler) async throws(BusError) -> ReviewResult? {
        let logged = try await self.logged(owner: owner, entry: review.entry, kind: review.cardKind)
        let start = current.logStart
        var entries = logged.map { (id: $0.record.id, log: $0.log) }
        entries.append((id, review))
        let byID = Dictionary(entries.map { ($0.id, $0.log) }, uniquingKeysWith: { a, _ in a })
        guard let rating = FSRSRating(name: review.rating) else {
            throw BusError.invalid("'rating' is again, hard, good or easy.", field: "rating")
        }
        var reviews = logged.compactMap { item in
            FSRSRating(name: item.log.rating).map { FSRSLoggedReview(id: item.record.id, rating: $0, at: item.log.reviewedAt) }
        }
        reviews.append(FSRSLoggedReview(id: id, rating: rating, at: review.reviewedAt))
        var card = start
        var rewritten: [String: ReviewLogData] = [:]
        for step in scheduler.replay(reviews, from: start.fsrs, cardID: cardID) {
            let stateBefore = card.state
            card.apply(step.after)
            card.reps += 1
            if step.review.rating == .again && stateBefore == "review" { card.lapses += 1 }
            guard var log = byID[step.review.id] else { continue }
            log.stateBefore = stateBefore
            log.elapsedDays = step.before.lastReview.map { step.review.at.timeIntervalSince($0) / 86_400 }
            log.scheduledDays = step.after.due.timeIntervalSince(step.review.at) / 86_400
            log.stability = step.after.stability ?? 0
            log.difficulty = step.after.difficulty ?? 0
            rewritten[step.review.id] = log
        }
        card.collection = review.collection
        var batch: [WriteOperation] = []
        for (record, log) in logged {
            guard let replayed = rewritten[record.id], replayed != log else { continue }
            batch.append(.replace(collection: C.reviews, id: record.id, owner: owner, data: try JSONDocument(encoding: replayed),
                                  expectedVersion: record.version))
        }
        let written = rewritten[id] ?? review
        batch.insert(.insert(collection: C.reviews, id: id, owner: owner, data: try JSONDocument(encoding: written)), at: 0)
        let cardDocument = try JSONDocument(encoding: card)
        batch.append(stored.map { .replace(collection: C.cards, id: cardID, owner: owner, data: cardDocument, expectedVersion: $0.version) }
            ?? .insert(collection: C.cards, id: cardID, owner: owner, data: cardDocument))
        do {
            _ = try await store.write(WriteBatch(batch))
        } catch where error.code == .preconditionFailed || error.code == .conflict {
            return nil
        }
        return ReviewResult(card: card, review: ReviewJSON(written, id: id), replayed: false)
    }
}

/// Where an imported card started (the file's schedule): a replay of its log starts from there.
struct CardOrigin: Codable, Sendable, Equatable {
    var state: String
    var step: Int?
    var stability: Double?
    var difficulty: Double?
    var due: Date
    var lastReview: Date?
    var reps: Int
    var lapses: Int
}

extension CardData {
    /// Where a replay of this card's log starts: as its import left it, or new.
    var logStart: CardData {
        var card = self
        card.state = origin?.state ?? "new"
        card.step = origin.map(\.step) ?? 0
        card.stability = origin?.stability
        card.difficulty = origin?.difficulty
        card.due = origin?.due ?? due
        card.lastReview = origin?.lastReview
        card.reps = origin?.reps ?? 0
        card.lapses = origin?.lapses ?? 0
        return card
    }
}
