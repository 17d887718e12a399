import Bus
import FSRS
import Foundation
import HTTPKit
import JSONBytes
import Hummingbird
import PluginKit
import StorageAPI

/// Foreign Note's statistics, computed from the user's review log and cards: a year of reviews per
/// day (the heatmap), true retention (the share of reviews of cards in review not rated again) by
/// day and by interval, and how many cards fall due on each of the next 30 days.
struct ReviewStatistics: Encodable, Sendable, Equatable {
    struct DayCount: Encodable, Sendable, Equatable {
        /// The user's local day, `YYYY-MM-DD`.
        var day: String
        var reviews: Int
    }

    struct Retention: Encodable, Sendable, Equatable {
        /// A local day (`YYYY-MM-DD`) or an interval's bucket ("1 day", "2–3 days", …).
        var label: String
        var reviewed: Int
        var recalled: Int
    }

    /// Today, where the user is.
    var today: String
    /// Days of the last 365 (today included) with at least one review, oldest first.
    var heatmap: [DayCount]
    var reviewsInYear: Int
    /// Each of the last 30 days, oldest first.
    var retentionByDay: [Retention]
    /// By days since the card's review before.
    var retentionByInterval: [Retention]
    /// Cards due on each of the next 30 days, today first (today's count includes overdue cards).
    var forecast: [DayCount]
    /// The fitted parameters in use, if any.
    var fitted: FittedParameters?

    static let intervalBuckets: [(label: String, upTo: Double)] = [
        ("1 day", 1.5), ("2–3 days", 3.5), ("4–7 days", 7.5), ("8–14 days", 14.5), ("15–30 days", 30.5), ("1–3 months", 90.5),
        ("over 3 months", .infinity),
    ]
}

extension ReviewService {
    /// ``ReviewStatistics`` of `owner` for days starting `offsetMinutes` east of UTC.
    func statistics(owner: String, offsetMinutes: Int) async throws(BusError) -> ReviewStatistics {
        let now = clock.now()
        let dayStart = Self.dayStart(of: now, offsetMinutes: offsetMinutes)
        let yearStart = dayStart.addingTimeInterval(-364 * 86_400)
        let monthStart = dayStart.addingTimeInterval(-29 * 86_400)
        func dayIndex(_ date: Date) -> Int { Int((date.timeIntervalSince(dayStart) / 86_400).rounded(.down)) }
        func label(_ index: Int) -> String { Self.localDay(dayStart.addingTimeInterval(Double(index) * 86_400), offsetMinutes: offsetMinutes) }

        var perDay: [Int: Int] = [:]
        var byDay = Array(repeating: (reviewed: 0, recalled: 0), count: 30)
        var byInterval = Array(repeating: (reviewed: 0, recalled: 0), count: ReviewStatistics.intervalBuckets.count)
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: C.reviews, owner: owner,
                                                         filters: [Filter("reviewedAt", .gte, .string(JSONWriter.iso8601(yearStart)))],
                                                         order: [SortKey("reviewedAt")], limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                guard let log = try? record.decode(ReviewLogData.self) else { continue }
                let index = dayIndex(log.reviewedAt)
                guard index <= 0 else { continue }
                perDay[index, default: 0] += 1
                guard log.stateBefore == "review" else { continue }
                let recalled = log.rating != FSRSRating.again.name ? 1 : 0
                if log.reviewedAt >= monthStart {
                    byDay[index + 29].reviewed += 1
                    byDay[index + 29].recalled += recalled
                }
                if let elapsed = log.elapsedDays,
                   let bucket = ReviewStatistics.intervalBuckets.firstIndex(where: { elapsed < $0.upTo }) {
                    byInterval[bucket].reviewed += 1
                    byInterval[bucket].recalled += recalled
                }
            }
            cursor = page.nextCursor
        } while cursor != nil

        var forecast = Array(repeating: 0, count: 30)
        cursor = nil
        let forecastEnd = dayStart.addingTimeInterval(30 * 86_400)
        // The cards of words deleted within the undo window (kept for an Undo) and of collections
        // being deleted are not coming up: review skips them. Their cards go when the word or the
        // collection is gone for good (the trash's purge, the collection's).
        let gone = try await service.goneWords(owner: owner)
        repeat {
            let page = try await store.query(RecordQuery(collection: C.cards, owner: owner, filters: [Filter("due", .lt, .string(JSONWriter.iso8601(forecastEnd)))],
                                                         order: [SortKey("due")], limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                guard let card = try? record.decode(CardData.self), !gone.entries.contains(card.entry), !gone.collections.contains(card.collection) else { continue }
                forecast[min(max(dayIndex(card.due), 0), 29)] += 1
            }
            cursor = page.nextCursor
        } while cursor != nil

        let settings = try await settings(owner: owner)
        return ReviewStatistics(
            today: label(0),
            heatmap: perDay.keys.sorted().map { ReviewStatistics.DayCount(day: label($0), reviews: perDay[$0] ?? 0) },
            reviewsInYear: perDay.values.reduce(0, +),
            retentionByDay: byDay.enumerated().map { ReviewStatistics.Retention(label: label($0.offset - 29), reviewed: $0.element.reviewed, recalled: $0.element.recalled) },
            retentionByInterval: zip(ReviewStatistics.intervalBuckets, byInterval).map { ReviewStatistics.Retention(label: $0.0.label, reviewed: $0.1.reviewed, recalled: $0.1.recalled) },
            forecast: forecast.enumerated().map { ReviewStatistics.DayCount(day: label($0.offset), reviews: $0.element) },
            fitted: settings.fitted)
    }

    /// `date`'s day where the user is, `YYYY-MM-DD`.
    static func localDay(_ date: Date, offsetMinutes: Int) -> String {
        let (year, month, day, _, _, _) = JSONBytes.civil(date.timeIntervalSince1970 + Double(offsetMinutes * 60))
        return String(format: "%04d-%02d-%02d", year, month, day)
    }
}

/// The routes of statistics and of fitting the user's parameters.
enum ReviewStatisticsRoutes {
    static func add(to routes: PluginRoutes, review: ReviewService, fitter: ParameterFitter) throws {
        try routes.add(.get, "review/statistics", query: ["tzOffset"],
                       summary: "My review statistics: reviews per day over a year, true retention by day (30 days) and by interval, cards due on each of the next 30 days") {
            request, _, identity in
            try .json(try await review.statistics(owner: identity.accountID, offsetMinutes: try VocabularyRoutes.tzOffset(request)))
        }
        try routes.add(.post, "review/parameters/fit", query: ["tzOffset"],
                       summary: "Fit my FSRS-6 parameters to my review log: a background job (202, its record); 422 invalid, reason too_few_reviews, for a short log") {
            request, _, identity in
            do {
                let job = try await fitter.start(owner: identity.accountID, offsetMinutes: try VocabularyRoutes.tzOffset(request))
                return try .json(job, status: .accepted)
            } catch let error as BusError where error.details["reason"] == ParameterFitter.tooFewReviews {
                // The wire's stable code (invalid), the plugin's own `reason`, as every refusal says it.
                throw Problem(status: .unprocessableContent, code: "invalid", detail: error.message,
                              extra: ["reason": .string(ParameterFitter.tooFewReviews),
                                      "minimum": .int(Int(error.details["minimum"] ?? "") ?? 0), "reviews": .int(Int(error.details["reviews"] ?? "") ?? 0)])
            }
        }
        try routes.add(.get, "review/parameters/fit/{id}", summary: "A fit job: running (progress 0-1), succeeded (parameters) or failed (why)") {
            _, context, identity in
            try .json(try await fitter.job(owner: identity.accountID, id: try VocabularyRoutes.id(context)))
        }
        try routes.add(.delete, "review/parameters", summary: "Back to the default parameters: forget my fitted ones") { _, _, identity in
            try await review.store(fitted: nil, owner: identity.accountID)
            return try .json(try await review.settings(owner: identity.accountID))
        }
    }
}
