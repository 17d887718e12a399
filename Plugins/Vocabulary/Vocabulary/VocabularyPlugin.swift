public import AppConfig
import Bus
import Foundation
public import HTTPKit
import Hummingbird
import Logging
public import PluginKit
public import ServiceLifecycle
import StorageAPI
import SyncAPI
import VocabularyAPI
import VocabularyFormats

/// The `vocabulary` plugin — Foreign Note's domain: collections of words and phrases with their
/// definitions, tags, relations between entries, search as you type, CSV and Anki import/export.
///
/// ```yaml
/// vocabulary: { undo_seconds: 300, max_import_bytes: 268435456, import_max_field_bytes: 65536 }
/// ```
public struct VocabularyPlugin: Plugin {
    public struct Config: Sendable {
        var undoSeconds: Int
        var maxImportBytes: Int
        var importLimits: ImportLimits
        var pageSize: Int
        var review: ReviewSettings
        /// Card kinds (definition → word, cloze) may be turned on per collection; off: word → definition only.
        var cardKinds = true
        var fit: FitSettings
    }

    public static let descriptor = PluginDescriptor(
        id: "vocabulary",
        summary: "Foreign Note: vocabulary collections, entries, tags, relations, search as you type, CSV and Anki import/export",
        dependencies: ["storage", "auth"],
        settings: [
            SettingDescription("undo_seconds", "int 1...86400", default: "300", "How long a deleted entry can be restored"),
            SettingDescription("max_import_bytes", "int 1...4294967296", default: "268435456", "Largest file an import accepts"),
            SettingDescription("import_max_field_bytes", "int 1024...16777216", default: "65536",
                               "Largest field an import reads (a CSV cell, an Anki note's field or tags); a larger one is a problem of its row, which is left out, and is never held in memory"),
            SettingDescription("import_max_row_bytes", "int 1024...268435456", default: "1048576",
                               "Largest CSV row an import reads; a longer one is a problem of that row"),
            SettingDescription("import_max_collection_bytes", "int 1048576...4294967296", default: "536870912",
                               "Largest Anki collection an .apkg unpacks to (on disk; the unpacking stops there); a larger package is refused"),
            SettingDescription("page_size", "int 1...1000", default: "100", "Entries per page when the client does not say"),
            SettingDescription("review_retention", "number 0.7...0.99", default: "0.9", "Review: the share of words to be remembered when they come up (a user may change theirs)"),
            SettingDescription("review_fuzz", "bool", default: "true", "Review: move long intervals a little at random so cards learned together spread out"),
            SettingDescription("review_new_per_day", "int 0...1000", default: "20", "Review: new entries offered per day"),
            SettingDescription("review_card_kinds", "bool", default: "true",
                               "Review: a collection may give its words definition → word and fill-in-the-blank cards too (each collection chooses; word → definition by default)"),
            SettingDescription("review_fit", "bool", default: "true", "Review: a user may fit the FSRS-6 parameters to their own review log (\"Fit my parameters\")"),
            SettingDescription("review_fit_min_reviews", "int 10...100000", default: "100",
                               "Review: reviews on a later day than the card's review before that a fit needs"),
        ],
        offers: [SyncedVocabularyCollection.self, SyncedVocabularyEntry.self, SyncedVocabularyTag.self, SyncedVocabularyCard.self,
                 SyncedVocabularyReview.self])

    public static func configure(_ section: ConfigSection) -> Config {
        var config = configured(section)
        config.cardKinds = section.bool("review_card_kinds", default: true)
        return config
    }

    static func configured(_ section: ConfigSection) -> Config {
        Config(undoSeconds: section.int("undo_seconds", default: 300, in: 1...86_400),
               maxImportBytes: section.int("max_import_bytes", default: 256 << 20, in: 1...(1 << 32)),
               importLimits: Self.importLimits(section),
               pageSize: section.int("page_size", default: 100, in: 1...1000),
               review: ReviewSettings(desiredRetention: section.double("review_retention", default: 0.9, in: 0.7...0.99),
                                      fuzz: section.bool("review_fuzz", default: true),
                                      newPerDay: section.int("review_new_per_day", default: 20, in: 0...1000)),
               fit: FitSettings(enabled: section.bool("review_fit", default: true),
                                minimumReviews: section.int("review_fit_min_reviews", default: 100, in: 10...100_000)))
    }

    static func importLimits(_ section: ConfigSection) -> ImportLimits {
        let field = section.int("import_max_field_bytes", default: 64 << 10, in: 1024...(16 << 20))
        let row = section.int("import_max_row_bytes", default: 1 << 20, in: 1024...(256 << 20))
        let collection = section.int("import_max_collection_bytes", default: 512 << 20, in: (1 << 20)...(1 << 32))
        return ImportLimits(csv: CSVLimits(maxCellBytes: field, maxRowBytes: row),
                            anki: AnkiPackage.Limits(maxFieldBytes: field, maxCollectionBytes: collection))
    }

    let service: VocabularyService
    let jobs: ImportExport
    let purger: CollectionPurger
    let review: ReviewService
    let fitter: ParameterFitter
    let logger: Logger
    let config: Config
    let background = BackgroundWork(plugin: "vocabulary")

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus, timeout: .seconds(60))
        for schema in VocabularyCollections.schemas { try await store.declare(schema) }
        service = VocabularyService(store: store, clock: context.clock, ids: context.ids, undoWindow: TimeInterval(config.undoSeconds))
        jobs = ImportExport(service: service, logger: context.logger, blobs: BusBlobStore(bus: context.bus, timeout: .seconds(60)),
                            bus: context.bus, background: background, queue: context.jobs, limits: config.importLimits)
        purger = CollectionPurger(service: service, logger: context.logger, background: background)
        review = ReviewService(service: service, clock: context.clock, defaults: config.review, cardKindsOn: config.cardKinds)
        try await store.declare(ParameterFitter.schema)
        fitter = ParameterFitter(review: review, settings: config.fit, logger: context.logger, background: background, queue: context.jobs)
        logger = context.logger
        self.config = config
    }

    public var features: [String] { ["collections", "entries", "tags", "relations", "search", "import:csv", "import:apkg", "export:csv", "export:apkg", "undo-delete", "review:fsrs6"]
        + (config.cardKinds ? ["review:card-kinds"] : []) }

    public var services: [any Service] { [background, VocabularyJanitor(service: service, jobs: jobs, purger: purger, fitter: fitter, logger: logger)] }

    /// The viewer's own records as `show` makes them; nil for anyone else's.
    static func show<Shown: Encodable>(_ records: [Record], to viewer: String, _ show: (Record) throws -> Shown) -> [JSONDocument?] {
        records.map { record in
            guard record.owner == viewer, let shown = try? show(record) else { return nil }
            return try? JSONDocument(encoding: shown)
        }
    }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        let jobs = self.jobs
        try bus.handle(StartImport.self) { request, _ in try await jobs.start(request) }
        try bus.handle(GetImportJob.self) { request, _ in try await jobs.job(owner: request.owner, id: request.id) }
        try bus.handle(ListImportJobs.self) { request, _ in
            .init(jobs: try await jobs.records.list(state: request.state.rawValue).map { .init(owner: $0.owner, job: $0.job) })
        }
        let purger = self.purger
        try bus.handle(ListCollectionPurges.self) { request, _ in .init(purges: try await purger.list(state: request.state)) }
        try bus.handle(ExportVocabulary.self) { request, _ in try await jobs.export(request) }
        try bus.handle(SearchVocabulary.self) { request, _ in try await service.search(request) }
        let review = self.review
        try bus.handle(NextReviews.self) { request, _ in try await review.next(request) }
        try bus.handle(RecordReview.self) { request, _ in
            let result = try await review.review(owner: request.owner, input: ReviewInput(entry: request.entry, rating: request.rating,
                                                                                          durationMs: request.durationMs))
            return .init(state: result.card.state, due: result.card.due,
                         intervalSeconds: Int(result.card.due.timeIntervalSince(result.review.reviewedAt).rounded()))
        }
        // Sync's feed shows collections, tags and entries as their GET routes do.
        try bus.handle(ShowSynced<SyncedVocabularyEntry>.self) { request, _ in .init(shown: Self.show(request.records, to: request.viewer, EntryJSON.init)) }
        try bus.handle(ShowSynced<SyncedVocabularyCollection>.self) { request, _ in .init(shown: Self.show(request.records, to: request.viewer, NamedJSON.init)) }
        try bus.handle(ShowSynced<SyncedVocabularyTag>.self) { request, _ in .init(shown: Self.show(request.records, to: request.viewer, NamedJSON.init)) }
        try bus.handle(ShowSynced<SyncedVocabularyCard>.self) { request, _ in
            .init(shown: Self.show(request.records, to: request.viewer) { record in try record.decode(CardData.self) })
        }
        try bus.handle(ShowSynced<SyncedVocabularyReview>.self) { request, _ in
            .init(shown: Self.show(request.records, to: request.viewer) { record in ReviewJSON(try record.decode(ReviewLogData.self), id: record.id) })
        }
    }

    public func routes(_ routes: PluginRoutes) throws {
        try VocabularyRoutes(service: service, jobs: jobs, purger: purger, review: review, config: config).add(to: routes)
        try PronunciationRoutes.add(to: routes, service: service, bus: jobs.bus)
        try ReviewStatisticsRoutes.add(to: routes, review: review, fitter: fitter)
    }
}

/// Empties the undo trash past its window, rolls back imports a stopped server left behind and
/// resumes deletions of collections' entries it interrupted.
struct VocabularyJanitor: Service {
    let service: VocabularyService
    let jobs: ImportExport
    let purger: CollectionPurger
    let fitter: ParameterFitter
    let logger: Logger

    func run() async throws {
        var lastPurge = Date.distantPast
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // Cheap (an indexed look for running jobs): often, so that an import a crash left
            // behind is rolled back soon after it falls silent.
            await jobs.recover()
            await fitter.recover()
            await purger.resume()
            if service.clock.now().timeIntervalSince(lastPurge) >= 60 {
                do {
                    _ = try await service.purgeTrash()
                } catch {
                    // Tried again next minute; an entry past its window stays restorable meanwhile.
                    logger.warning("vocabulary: emptying the undo trash failed; retrying in a minute",
                                   metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
                }
                lastPurge = service.clock.now()
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(5)) }
            } catch {
                return
            }
        }
    }
}
