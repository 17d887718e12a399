import Bus
import FSRS
import Foundation
import Logging
import PluginKit
import StorageAPI
import Synchronization

/// "Fit my parameters": the 21 FSRS-6 parameters fitted to the user's own review log
/// (``FSRSOptimizer``, Modules/FSRS) as a background job on the server's job queue (``JobRunner``),
/// with progress. The result is stored in the user's review settings (`fitted`) and schedules
/// every review from then on; "Back to default" removes it.
///
/// A log with fewer than ``FitSettings/minimumReviews`` reviews on a later day than the card's
/// review before is refused before a job starts (`too_few_reviews`): the fit would only echo the
/// defaults.
struct ParameterFitter: Sendable {
    typealias C = VocabularyCollections
    static let jobs = "vocab.fit_jobs"
    /// The `reason` of the error for a log too short to fit (the route's problem code).
    static let tooFewReviews = "too_few_reviews"
    static let schema = CollectionSchema(name: jobs, indexes: [IndexSpec(name: "state", fields: ["state"], scope: .global)])

    let review: ReviewService
    let settings: FitSettings
    let records: JobRecords<FitJob>
    let runner: JobRunner<FitJob>
    var store: any RecordStore & RecordSearching { review.store }

    init(review: ReviewService, settings: FitSettings, logger: Logger, background: BackgroundWork, queue: JobQueue) {
        self.review = review
        self.settings = settings
        let records = JobRecords<FitJob>(store: review.store, collection: Self.jobs)
        self.records = records
        // A fit writes nothing until its last step (the settings, in one write): nothing to roll back.
        runner = JobRunner(name: "vocabulary-fit",
                           ledger: JobLedger(save: { job, owner, new async throws(BusError) in try await records.save(job, id: job.id, owner: owner, new: new) },
                                             silent: { seconds async throws(BusError) in try await records.silent(for: seconds) }),
                           rollBack: { _, _ async throws(BusError) in }, queue: queue, background: background, clock: review.clock, logger: logger,
                           settings: .init(noun: "fit"))
    }

    /// Starts a fit of `owner`'s parameters to their log (days starting `offsetMinutes` east of UTC).
    /// - Throws: `not_found` when fitting is turned off; `too_few_reviews` (422) for a short log;
    ///   the job queue's `unavailable`/`rate_limited` when it is full.
    func start(owner: String, offsetMinutes: Int) async throws(BusError) -> FitJob {
        guard settings.enabled else {
            throw BusError(.notFound, "Fitting review parameters is turned off on this server (vocabulary: review_fit).")
        }
        let log = try await reviews(owner: owner)
        let sequences = FSRSOptimizer.sequences(from: log.map { $0.review(offsetMinutes: offsetMinutes) })
        let usable = sequences.reduce(0) { $0 + $1.predictedCount }
        guard usable >= settings.minimumReviews else {
            throw BusError(.invalid,
                           "Fitting needs at least \(settings.minimumReviews) reviews made on a later day than the card's review before; your log has \(usable). "
                           + "Keep reviewing for a few more days and try again; until then the default parameters schedule your cards.",
                           details: ["reason": Self.tooFewReviews, "minimum": "\(settings.minimumReviews)", "reviews": "\(usable)"])
        }
        let ticket = try runner.queue.reserve(owner: owner)
        let job = FitJob(id: review.service.newID("f_"), state: .running, startedAt: review.clock.now(), reviews: log.count, predicted: usable)
        let review = self.review
        return try await runner.start(job, owner: owner, ticket: ticket, prepare: { () throws(BusError) in FitInput(sequences: sequences) },
                                      work: { run, input async throws(BusError) in
            try await Self.fit(run, sequences: input.sequences, review: review)
        })
    }

    /// The fit itself, on the job's worker: progress recorded as it goes, then the parameters
    /// stored in the user's settings.
    private static func fit(_ run: JobRun<FitJob>, sequences: [FSRSReviewSequence], review: ReviewService) async throws(BusError) {
        let progress = FitProgress()
        let worker = run.worker
        // The fit runs on the worker's thread; this task records its progress meanwhile.
        let fitting = Task {
            let fit = await worker.blocking { FSRSOptimizer.fit(sequences) { share in progress.update(share) } }
            progress.finish()
            return fit
        }
        while true {
            let (share, finished) = progress.read()
            if finished { break }
            do {
                try run.checkCancelled()
            } catch {
                progress.stop()
                _ = await fitting.value
                throw error
            }
            run.job.progress = share
            try await run.progress()
            try? await Task.sleep(for: .milliseconds(50))
        }
        guard let fit = await fitting.value else {
            throw BusError(JobRunner<FitJob>.cancelledCode, "The fit was stopped; nothing was changed. Run it again.")
        }
        var job = run.job
        job.progress = 1
        job.parameters = fit.parameters
        job.logLossBefore = fit.initialLoss
        job.logLoss = fit.loss
        run.job = job
        try await review.store(fitted: FittedParameters(parameters: fit.parameters, fittedAt: review.clock.now(), reviews: fit.predictedReviews,
                                                        logLoss: fit.loss, logLossDefault: fit.initialLoss), owner: run.owner)
    }

    func job(owner: String, id: String) async throws(BusError) -> FitJob {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: Self.jobs, id: id, owner: owner) else {
            throw BusError(.notFound, "No fit job '\(id)'.", details: ["id": id])
        }
        return try record.decode(FitJob.self)
    }

    func recover() async {
        await runner.recover()
    }

    /// The owner's whole review log, oldest first.
    func reviews(owner: String) async throws(BusError) -> [FitReview] {
        var found: [FitReview] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: C.reviews, owner: owner, order: [SortKey("reviewedAt")],
                                                         limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                if let log = try? record.decode(FitReview.self) { found.append(log) }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return found
    }
}

/// What a fit reads of a logged review (a record of `vocab.reviews`, ``ReviewLogData``): the card
/// (the entry, and its kind when it is not the word → definition card), the time, the rating.
struct FitReview: Decodable, Sendable {
    var entry: String
    var kind: String?
    var rating: String
    var reviewedAt: Date

    /// This review as the optimizer reads it: its card, its day where the user lives, its rating.
    func review(offsetMinutes: Int) -> FSRSDayReview {
        FSRSDayReview(card: "\(entry)/\(kind ?? "forward")", day: FSRSDayReview.day(of: reviewedAt, offsetSeconds: -Double(offsetMinutes * 60)),
                      rating: FSRSRating(name: rating) ?? .good)
    }
}

extension ReviewService {
    /// Stores (or, nil, removes) the user's fitted parameters in their review settings.
    func store(fitted: FittedParameters?, owner: String) async throws(BusError) {
        for _ in 0..<3 {
            var settings = try await settings(owner: owner)
            settings.fitted = fitted
            let document = try JSONDocument(encoding: settings)
            do {
                if let record = try await store.get(collection: C.reviewSettings, id: Self.settingsID, owner: owner) {
                    _ = try await store.write(WriteBatch([.replace(collection: C.reviewSettings, id: record.id, owner: owner, data: document,
                                                                   expectedVersion: record.version)]))
                } else {
                    _ = try await store.write(WriteBatch([.insert(collection: C.reviewSettings, id: Self.settingsID, owner: owner, data: document)]))
                }
                return
            } catch where error.code == .preconditionFailed || error.code == .conflict {
                continue
            }
        }
        throw BusError(.conflict, "The review settings kept changing; try again.", details: ["retryAfter": "1"])
    }
}

/// Parameters fitted to a user's log: used for their scheduling instead of the defaults.
struct FittedParameters: Codable, Sendable, Equatable {
    var parameters: [Double]
    var fittedAt: Date
    /// Reviews predicted in the fit (on a later day than the card's review before).
    var reviews: Int
    /// Mean log loss per predicted review on the user's log: fitted, and with the defaults.
    var logLoss: Double
    var logLossDefault: Double
}

/// The server's settings for fitting (`vocabulary: review_fit, review_fit_min_reviews`).
struct FitSettings: Sendable {
    var enabled = true
    var minimumReviews = 100
}

/// A fit job's record (`GET /api/vocabulary/review/parameters/fit/{id}`): `running` (with `queued`
/// while it waits), `succeeded` with the parameters, or `failed` with why.
struct FitJob: SucceededOrFailedJob, Equatable {
    enum State: String, Codable, Sendable { case running, succeeded, failed }
    var id: String
    var state: State
    var queued: Bool?
    var failure: String?
    var startedAt: Date
    var finishedAt: Date?
    /// Reviews in the log, and those the fit predicts.
    var reviews: Int
    var predicted: Int
    /// 0 to 1.
    var progress: Double = 0
    var parameters: [Double]?
    var logLossBefore: Double?
    var logLoss: Double?

    mutating func rolledBack(interrupted: Bool) {
        parameters = nil
        if interrupted { failure = "The server stopped during the fit; nothing was changed. Run it again." }
    }
}

/// The log's sequences, handed from the request to the job's worker.
struct FitInput: JobInput {
    let sequences: [FSRSReviewSequence]
    func close() {}
}

/// The share of a running fit done, written by the fit on its thread and read by the job's task.
final class FitProgress: Sendable {
    private let state = Mutex<(share: Double, finished: Bool, stop: Bool)>((0, false, false))

    /// From the fit: returns false when it is to stop.
    func update(_ share: Double) -> Bool {
        state.withLock { state in
            state.share = share
            return !state.stop
        }
    }

    func read() -> (Double, Bool) { state.withLock { ($0.share, $0.finished) } }
    func finish() { state.withLock { $0.finished = true } }
    func stop() { state.withLock { $0.stop = true } }
}
