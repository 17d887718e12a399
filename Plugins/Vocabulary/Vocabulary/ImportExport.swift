import AudioAPI
import Bus
import Foundation
import Logging
import PluginKit
import StorageAPI
import VocabularyAPI
import VocabularyFormats

/// Imports as background jobs, and exports.
///
/// An import writes its entries 500 to a batch, each marked with the job's id, and records its
/// progress in the job. A file that is not what it claims fails before anything is written. If the
/// import fails later — storage refuses, the server stops — everything it wrote (entries, and the
/// collections and tags it created) is deleted by the job's id, so nothing half-imported stays:
/// at once on an error, and at the next start for a job the server was stopped during.
struct ImportExport: Sendable {
    typealias C = VocabularyCollections

    let service: VocabularyService
    /// Where import files come from and exports go: storage's blobs, in parts.
    let blobs: any BlobStore
    let bus: any MessageBus
    static let batchSize = WriteBatch.maxOperations
    static let maxReportedErrors = 100
    /// The jobs' records, and the runner that starts, runs, rolls back and recovers them: in the
    /// host's ServiceGroup (shutdown cancels them; the rollback follows), on the server's one queue
    /// of heavy jobs, shared fairly between users and with the other plugins' imports.
    let records: JobRecords<ImportJob>
    let runner: JobRunner<ImportJob>
    /// How large a file's parts may be.
    let limits: ImportLimits
    /// Rows read per step on the job's worker thread, between which the job writes and saves its progress.
    static let rowsPerStep = 100

    var store: any RecordStore & RecordSearching { service.store }
    var queue: JobQueue { runner.queue }

    init(service: VocabularyService, logger: Logger, blobs: any BlobStore, bus: any MessageBus, background: BackgroundWork, queue: JobQueue,
         limits: ImportLimits) {
        self.service = service
        self.blobs = blobs
        self.bus = bus
        self.limits = limits
        let (store, records) = (service.store, JobRecords<ImportJob>(store: service.store, collection: C.jobs))
        self.records = records
        runner = JobRunner(name: "vocabulary", ledger: JobLedger(save: { job, owner, new async throws(BusError) in try await records.save(job, id: job.id, owner: owner, new: new) },
                                                                 silent: { seconds async throws(BusError) in try await records.silent(for: seconds) }),
                           rollBack: { jobID, owner async throws(BusError) in try await Self.rollBack(jobID, owner: owner, store: store) },
                           queue: queue, background: background, clock: service.clock, logger: logger)
    }

    // MARK: Jobs

    /// Copies the file out of its parts (and lets go of them) and starts the import of it (what
    /// `StartImport` on the bus does).
    /// - Throws: `unavailable` (503) or `rate_limited` (429) with `retryAfter` when the queue is full.
    func start(_ request: StartImport) async throws(BusError) -> ImportJob {
        let (scratch, blobs, bus) = (self.scratch(), self.blobs, self.bus)
        return try await BusError.rethrowing {
            try await runner.admit(owner: request.owner, scratch: scratch, letGo: { await request.file.release(on: bus) }, bringIn: { scratch in
                try await request.file.copyOut(to: scratch.appendingPathComponent("upload"), scratch: scratch, from: blobs, on: bus)
                return scratch.appendingPathComponent("upload")
            }) { file, ticket in
                try await start(file: file, scratch: scratch, owner: request.owner, format: request.format, collection: request.collection, ticket: ticket)
            }
        }
    }

    /// A new directory's place for an import's files (the upload, an unpacked collection).
    func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("quire-import-" + service.newID("s_"))
    }

    /// Checks the file (in `scratch`, which the job owns from here and removes), records the job
    /// and queues it; it runs in the background when a worker of the job queue is free.
    /// - Parameter ticket: the job's place in the queue, reserved before the upload was read.
    func start(file: URL, scratch: URL, owner: String, format: VocabularyFormat, collection: String?,
               ticket: JobQueue.Ticket) async throws(BusError) -> ImportJob {
        let job = ImportJob(id: service.newID("j_"), state: .running, format: format, startedAt: service.clock.now())
        let limits = self.limits
        return try await runner.start(job, owner: owner, ticket: ticket, scratch: scratch, prepare: { () throws(BusError) in
            SourceBox(try Self.open(file, format: format, scratch: scratch, limits: limits))
        }, work: { [self] run, box async throws(BusError) in
            try await importRows(run, source: box, defaultCollection: collection)
        })
    }

    func job(owner: String, id: String) async throws(BusError) -> ImportJob {
        try await records.get(id: id, owner: owner)
    }

    /// Rolls back every job the server was stopped during.
    func recover() async {
        await runner.recover()
    }

    /// The file's rows, read as a stream: a CSV a chunk at a time, a package's notes a page at a
    /// time, each field under its cap.
    private static func open(_ file: URL, format: VocabularyFormat, scratch: URL, limits: ImportLimits) throws(BusError) -> any ImportSource {
        switch format {
        case .csv:
            return try CSVSource(file: file, limits: limits.csv)
        case .apkg:
            return try AnkiPackage.read(file: file, scratch: scratch, limits: limits.anki)
        }
    }

    private func importRows(_ run: JobRun<ImportJob>, source: SourceBox, defaultCollection: String?) async throws(BusError) {
        let writes = PipelinedWrites(store: store)
        do {
            try await importRows(run, source: source, defaultCollection: defaultCollection, writes: writes)
        } catch {
            // A batch still being written lands before the rollback that follows, not during it.
            _ = try? await writes.finish()
            throw error
        }
    }

    private func importRows(_ run: JobRun<ImportJob>, source: SourceBox, defaultCollection: String?,
                            writes: PipelinedWrites) async throws(BusError) {
        let (worker, owner) = (run.worker, run.owner)
        var job = run.job
        // What the runner records (progress, or the end) is the job as it stands.
        defer { run.job = job }
        // Reading the file is the job's CPU work: on its worker's thread, a step at a time, never
        // on the threads that answer requests.
        job.rowsTotal = await worker.blocking { source.source?.total ?? nil }
        run.job = job
        try await run.save()
        var collections: [String: String] = [:]
        var tags: [String: String] = [:]
        var batch: [WriteOperation] = []
        /// Rows' keys in the file → the entries they became, and the entries whose row named
        /// relations: they are linked once every row is in.
        var entryIDs: [String: String] = [:]
        var linked: [(id: String, data: EntryData, related: [String], alternative: [String])] = []
        /// Entries this file's notes update (each once: a second note with the same guid is a copy).
        var updating: Set<String> = []
        /// The collections this import made, and the card kinds each one's notes have beyond word → definition.
        var created: Set<String> = []
        var kinds: [String: Set<CardKind>] = [:]
        /// Records the job's progress a few times a second (also its heartbeat: see `JobRunner`).
        func saveProgress(_ job: ImportJob) async throws(BusError) {
            run.job = job
            try await run.progress()
        }
        func report(_ error: ImportRowError, _ job: inout ImportJob) {
            job.errorCount += 1
            if job.errors.count < Self.maxReportedErrors {
                job.errors.append(ImportJob.RowError(row: error.row, message: error.message))
            }
        }
        let media = (source.source as? AnkiPackage.Source)?.media
        // Sounds come in only where this app records pronunciations (its audio section), no longer than its max_seconds.
        let maxSoundMs = media == nil ? nil : (try? await bus.request(GetAudioLimits())).map { $0.maxSeconds * 1000 }
        var step: [Result<ImportRow, ImportRowError>] = []
        var stepIndex = 0
        func nextRow() async -> Result<ImportRow, ImportRowError>? {
            if stepIndex >= step.count {
                step = await worker.blocking { source.take(Self.rowsPerStep) }
                stepIndex = 0
                guard !step.isEmpty else { return nil }
            }
            defer { stepIndex += 1 }
            return step[stepIndex]
        }
        while let next = await nextRow() {
            try run.checkCancelled()
            job.rowsRead += 1
            let row: ImportRow
            switch next {
            case .failure(let error):
                report(error, &job)
                try await saveProgress(job)
                continue
            case .success(let value):
                row = value
            }
            do {
                let word = try VocabularyRules.word(row.word)
                let definitions = try VocabularyRules.definitions(row.definitions)
                let collectionName = row.collection ?? defaultCollection ?? "Imported"
                let collectionKey = SearchText.fold(collectionName)
                var collectionID = collections[collectionKey]
                if collectionID == nil {
                    if let existing = try await service.collection(owner: owner, named: collectionName) {
                        collectionID = existing.id
                    } else {
                        collectionID = try await service.createCollection(owner: owner, name: collectionName, importJob: job.id).id
                        created.insert(collectionID ?? "")
                        job.collectionsCreated += 1
                    }
                    collections[collectionKey] = collectionID
                }
                var tagIDs: [String] = []
                for name in row.tags.prefix(VocabularyRules.maxTags) {
                    let key = SearchText.fold(name)
                    if key.isEmpty { continue }
                    if let id = tags[key] {
                        if !tagIDs.contains(id) { tagIDs.append(id) }
                        continue
                    }
                    let id: String
                    if let existing = try await service.tag(owner: owner, named: name) {
                        id = existing.id
                    } else {
                        id = try await service.createTag(owner: owner, name: name, importJob: job.id).id
                        job.tagsCreated += 1
                    }
                    tags[key] = id
                    if !tagIDs.contains(id) { tagIDs.append(id) }
                }
                var data = EntryData(word: word, definitions: definitions, languages: try VocabularyRules.languages(row.languages),
                                     note: try VocabularyRules.text(row.note, field: "note", max: VocabularyRules.maxNote),
                                     example: try VocabularyRules.text(row.example, field: "example", max: VocabularyRules.maxNote),
                                     collection: collectionID ?? "", tags: tagIDs, relations: [], sortKey: SearchText.fold(word),
                                     importJob: job.id)
                if let media, let maxSoundMs, let name = row.sound, let sound = await worker.blocking({ media.sound(name) }),
                   let length = AnkiMedia.durationMs(sound), length <= maxSoundMs {
                    // An Ogg Opus recording, size- and length-checked (AnkiMedia): the entry's pronunciation.
                    data.pronunciation = try await blobs.put(sound).sha256
                    data.pronunciationMs = length
                }
                if job.format == .apkg, let existing = try await updatable(row.key, collection: data.collection, owner: owner, except: updating) {
                    // Anki's rule: a note whose guid is already here updates that note. The entry
                    // keeps its id, relations and review card, and is not the import's to roll back.
                    data.relations = existing.data.relations
                    data.importJob = existing.data.importJob
                    if data.pronunciation == nil { (data.pronunciation, data.pronunciationMs) = (existing.data.pronunciation, existing.data.pronunciationMs) }
                    updating.insert(existing.id)
                    if let key = row.key { entryIDs[key] = existing.id }
                    if !row.related.isEmpty || !row.alternative.isEmpty { linked.append((existing.id, data, row.related, row.alternative)) }
                    batch.append(.replace(collection: C.entries, id: existing.id, owner: owner, data: try JSONDocument(encoding: data),
                                          expectedVersion: nil))
                    job.updated += 1
                    if batch.count >= Self.batchSize - 1 {
                        job.imported += try await writes.send(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                    try await saveProgress(job)
                    continue
                }
                let id = service.newID("e_")
                if let key = row.key { entryIDs[key] = id }
                if !row.related.isEmpty || !row.alternative.isEmpty { linked.append((id, data, row.related, row.alternative)) }
                batch.append(.insert(collection: C.entries, id: id, owner: owner, data: try JSONDocument(encoding: data)))
                if let schedule = row.schedule {
                    let card = CardData(entry: id, collection: data.collection, schedule: schedule, importJob: job.id)
                    batch.append(.insert(collection: C.cards, id: id, owner: owner, data: try JSONDocument(encoding: card)))
                }
                // Its reverse and cloze cards (AnkiCardKindsImport.swift).
                let others = try Self.kindCards(row, entry: id, collection: data.collection, owner: owner, job: job.id)
                batch += others.writes
                kinds[data.collection, default: []].formUnion(others.kinds)
            } catch where error.code == .invalid {
                report(ImportRowError(row: row.number, message: error.message), &job)
            }
            if batch.count >= Self.batchSize - CardKind.allCases.count {  // an entry and its cards go in the same batch
                job.imported += try await writes.send(batch)
                batch.removeAll(keepingCapacity: true)
            }
            try await saveProgress(job)
        }
        job.imported += try await writes.send(batch)
        job.imported += try await writes.finish()
        job.rowsTotal = job.rowsRead
        try await link(linked, entryIDs: entryIDs, owner: owner)
        try await turnOn(kinds, created: created, owner: owner)
    }

    /// The entry an Anki note updates: the owner's entry whose id is the note's guid (what an export
    /// writes), in the collection the note goes to, not already updated by this file.
    private func updatable(_ guid: String?, collection: String, owner: String, except: Set<String>) async throws(BusError)
        -> (id: String, data: EntryData)? {
        guard let guid, StorageNames.isValidID(guid), !except.contains(guid),
              let record = try await store.get(collection: C.entries, id: guid, owner: owner),
              let data = try? record.decode(EntryData.self), data.collection == collection else { return nil }
        return (record.id, data)
    }

    /// Gives imported entries the relations their rows named, both ways (a relation is listed on
    /// both entries), to rows of the same file; a key the file does not have is left out. An
    /// entry's relations from before (one an import updated) stay.
    private func link(_ linked: [(id: String, data: EntryData, related: [String], alternative: [String])], entryIDs: [String: String],
                      owner: String) async throws(BusError) {
        guard !linked.isEmpty else { return }
        var relations: [String: [Relation]] = [:]
        func add(_ from: String, _ relation: Relation) {
            if !(relations[from] ?? []).contains(relation) { relations[from, default: []].append(relation) }
        }
        for row in linked {
            for (keys, kind) in [(row.related, RelationKind.related), (row.alternative, .alternative)] {
                for key in keys {
                    guard let other = entryIDs[key], other != row.id else { continue }
                    add(row.id, Relation(kind: kind, entry: other))
                    add(other, Relation(kind: kind, entry: row.id))
                }
            }
        }
        let known = Dictionary(linked.map { ($0.id, $0.data) }, uniquingKeysWith: { a, _ in a })
        var batch: [WriteOperation] = []
        for (id, list) in relations.sorted(by: { $0.key < $1.key }) {
            var data: EntryData
            if let held = known[id] {
                data = held
            } else {
                guard let record = try await store.get(collection: C.entries, id: id, owner: owner) else { continue }
                data = try record.decode(EntryData.self)
            }
            for relation in list where !data.relations.contains(relation) { data.relations.append(relation) }
            batch.append(.replace(collection: C.entries, id: id, owner: owner, data: try JSONDocument(encoding: data), expectedVersion: nil))
            if batch.count == Self.batchSize {
                _ = try await store.write(WriteBatch(batch))
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { _ = try await store.write(WriteBatch(batch)) }
    }

    /// Deletes what an import wrote: its entries, then the collections and tags it created that
    /// nothing else uses.
    static func rollBack(_ jobID: String, owner: String, store: any RecordStore) async throws(BusError) {
        while true {
            let page = try await store.query(RecordQuery(collection: C.cards, owner: owner,
                                                         filters: [Filter("importJob", .eq, .string(jobID))], limit: Self.batchSize))
            if page.records.isEmpty { break }
            _ = try await store.write(WriteBatch(page.records.map {
                .delete(collection: C.cards, id: $0.id, owner: owner, expectedVersion: nil)
            }))
        }
        while true {
            let page = try await store.query(RecordQuery(collection: C.entries, owner: owner,
                                                         filters: [Filter("importJob", .eq, .string(jobID))], limit: Self.batchSize))
            if page.records.isEmpty { break }
            _ = try await store.write(WriteBatch(page.records.map {
                .delete(collection: C.entries, id: $0.id, owner: owner, expectedVersion: nil)
            }))
        }
        for kind in [C.collections, C.tags] {
            let created = try await store.query(RecordQuery(collection: kind, owner: owner,
                                                            filters: [Filter("importJob", .eq, .string(jobID))], limit: 1000))
            for record in created.records {
                let field = kind == C.collections ? "collection" : "tags"
                let op: Filter.Op = kind == C.collections ? .eq : .contains
                let used = try await store.query(RecordQuery(collection: C.entries, owner: owner,
                                                             filters: [Filter(field, op, .string(record.id))], limit: 1))
                if used.records.isEmpty { try await store.delete(from: kind, id: record.id, owner: owner) }
            }
        }
    }

    // MARK: Export

    func export(_ request: ExportVocabulary) async throws(BusError) -> ExportVocabulary.Reply {
        var collections = try await service.collections(owner: request.owner)
        if let name = request.collection {
            guard let collection = try await service.collection(owner: request.owner, named: name) else {
                throw BusError(.notFound, "No collection '\(name)'.", details: ["collection": name])
            }
            collections = [collection]
        }
        let tagNames = Dictionary(try await service.tags(owner: request.owner).map { record throws(BusError) in
            (record.id, try record.decode(TagData.self).name)
        }, uniquingKeysWith: { a, _ in a })
        var csv = CSVWriter()
        var notes: [AnkiPackage.Note] = []
        var count = 0
        var words: [String: String] = [:]
        var exported: [(id: String, data: EntryData, collection: String)] = []
        var schedules: [String: ImportedSchedule] = [:]
        var media: [(name: String, data: Data)] = []
        if request.format == .apkg {
            for collection in collections {
                var cursor: String?
                repeat {
                    let page = try await store.query(RecordQuery(collection: C.cards, owner: request.owner,
                                                                 filters: [Filter("collection", .eq, .string(collection.id))],
                                                                 order: [SortKey("due")], limit: RecordQuery.maxLimit, cursor: cursor))
                    for record in page.records { schedules[record.id] = try record.decode(CardData.self).schedule }
                    cursor = page.nextCursor
                } while cursor != nil
            }
        }
        for collection in collections {
            let name = try collection.decode(CollectionData.self).name
            var cursor: String?
            repeat {
                let page = try await service.entries(owner: request.owner, collection: collection.id, limit: 1000, cursor: cursor)
                for record in page.records {
                    let data = try record.decode(EntryData.self)
                    words[record.id] = data.word
                    exported.append((record.id, data, name))
                }
                cursor = page.nextCursor
            } while cursor != nil
        }
        for (id, data, collection) in exported {
            let tags = data.tags.compactMap { tagNames[$0] }
            // Relations to entries outside the export (another collection's) are left out: they could not be read back.
            let related = data.relations.filter { $0.kind == .related && words[$0.entry] != nil }.map(\.entry)
            let alternative = data.relations.filter { $0.kind == .alternative && words[$0.entry] != nil }.map(\.entry)
            switch request.format {
            case .csv:
                var row = ImportRow(number: count + 2, word: data.word, definitions: data.definitions, tags: tags, collection: collection)
                row.key = id
                row.languages = data.languages
                row.note = data.note
                row.example = data.example
                row.related = related
                row.alternative = alternative
                csv.add(row)
            case .apkg:
                var note = AnkiPackage.Note(guid: id, word: data.word, definitions: data.definitions, tags: tags, deck: collection,
                                            languages: data.languages, example: data.example, note: data.note,
                                            related: related.map { ($0, words[$0] ?? "") },
                                            alternative: alternative.map { ($0, words[$0] ?? "") }, schedule: schedules[id])
                if let sha256 = data.pronunciation {
                    // The recording as Anki's media (AnkiMedia.swift), named in the Word field.
                    note.sound = AnkiMedia.soundName(sha256)
                    if !media.contains(where: { $0.name == note.sound }) { media.append((AnkiMedia.soundName(sha256), try await blobs.get(sha256))) }
                }
                notes.append(note)
            }
            count += 1
        }
        // Each word's reverse and cloze cards, as its collection has them on (AnkiCardKinds.swift).
        let cardKinds = AnkiCardKinds.kinds(of: collections)
        let reviews = request.format == .apkg ? try await exportedReviews(owner: request.owner, schedules: schedules) : [:]
        for (index, item) in exported.enumerated() where request.format == .apkg && index < notes.count {
            notes[index].extra = AnkiCardKinds.extra(entry: item.id, data: item.data, kinds: cardKinds[item.collection], schedules: schedules)
            // The reviews of the cards the note carries (a kind turned off has no card in the package).
            notes[index].reviews = (reviews[item.id] ?? []).filter { review in
                switch review.kind {
                case .forward: true
                case .reverse: notes[index].extra.reverse
                case .cloze: notes[index].extra.cloze != nil
                }
            }
        }
        switch request.format {
        case .csv:
            return .init(file: try await BlobParts.put(Data(csv.text.utf8), in: blobs), entries: count)
        case .apkg:
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quire-export-" + service.newID("x_"))
            do {
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            } catch {
                throw BusError(.internal, "Cannot create a scratch directory for the export: \(error)")
            }
            defer { try? FileManager.default.removeItem(at: scratch) }
            return .init(file: try await BlobParts.put(try AnkiPackage.write(notes, media: media, scratch: scratch, now: service.clock.now()), in: blobs),
                         entries: count)
        }
    }
}

/// Hands a source to the job's task (it is read there, on its worker's thread, one step at a time
/// and nowhere else).
final class SourceBox: JobInput, @unchecked Sendable {
    var source: (any ImportSource)?
    init(_ source: any ImportSource) { self.source = source }

    /// The next rows, at most `count`; none at the end.
    func take(_ count: Int) -> [Result<ImportRow, ImportRowError>] {
        var rows: [Result<ImportRow, ImportRowError>] = []
        while rows.count < count, let next = source?.next() { rows.append(next) }
        return rows
    }

    /// Lets go of the source (an Anki package's database closes).
    func close() { source = nil }
}

/// The runner's view of an import's record (see `SucceededOrFailedJob`).
extension ImportJob: SucceededOrFailedJob {
    /// Nothing of a rolled-back import was kept; one rolled back at a start keeps the count it had
    /// reached (as it always has: the record says how far it got).
    public mutating func rolledBack(interrupted: Bool) {
        if !interrupted { imported = 0 }
    }
}

/// How large the parts of an import file may be (the plugin's `import_max_*` settings).
struct ImportLimits: Sendable, Equatable {
    var csv = CSVLimits()
    var anki = AnkiPackage.Limits()
}

/// Writes batches while the caller prepares the next ones: storage works on batch n (and folds the
/// search text of batch n + 1 before it queues for the writer) while the import parses and encodes
/// batch n + 2. Storage is the slower side; this keeps it busy.
final class PipelinedWrites {
    private let store: any RecordStore
    private var inFlight: [Task<Int, any Error>] = []
    static let depth = 2

    init(store: any RecordStore) {
        self.store = store
    }

    /// Starts writing this batch once fewer than ``depth`` are in flight; answers how many records
    /// the batches it waited for wrote.
    func send(_ operations: [WriteOperation]) async throws(BusError) -> Int {
        var written = 0
        while inFlight.count >= Self.depth { written += try await finishOldest() }
        guard !operations.isEmpty else { return written }
        // Entries are what the job counts, not their cards.
        let entries = operations.count { if case .insert(collection: VocabularyCollections.entries, _, _, _) = $0 { true } else { false } }
        inFlight.append(Task { [store] in
            _ = try await store.write(WriteBatch(operations))
            return entries
        })
        return written
    }

    /// Waits for every batch in flight; answers how many records they wrote.
    func finish() async throws(BusError) -> Int {
        var written = 0
        var failure: BusError?
        while !inFlight.isEmpty {
            do throws(BusError) {
                written += try await finishOldest()
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return written
    }

    private func finishOldest() async throws(BusError) -> Int {
        let task = inFlight.removeFirst()
        do {
            return try await task.value
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError(.internal, "Writing a batch failed: \(error)")
        }
    }
}
