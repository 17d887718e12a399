import Bus
import Foundation
import ImportKit
import Logging
import MediaAPI
import NotesAPI
import NotesFormats
import OrderKeys
import PluginKit
import StorageAPI
import ZIPFoundation

/// Evernote and Google Keep imports, as background jobs (the runner's: queued, run, rolled back).
///
/// The file is streamed: one note (and at most one image) is in memory at a time. Each note gets
/// the notes plugin's rules (a title of at most 200 characters, a text of at most 100,000, the date
/// it was created in the app's time zone, its first tag as its category when categories are on);
/// its first image goes through media like an upload. A note that cannot be read is reported and the
/// next one read. Notes are written 100 to a batch at the end of the user's list, in the file's
/// order, each marked with the job's id: if the whole import fails (storage refuses, the server
/// stops) they are deleted by that id — at once, or at the next start — so it can be run again.
struct NoteImports: Sendable {
    static let jobs = "notes.imports"
    static let jobsSchema = CollectionSchema(name: jobs, indexes: [IndexSpec(name: "state", fields: ["state"])])
    static let batchSize = 100
    static let maxReportedProblems = 100

    let service: NotesService
    let blobs: any BlobStore
    let maxPhotoBytes: Int
    /// The jobs' records, and the runner that starts, runs, rolls back and recovers them on the
    /// server's one queue of heavy jobs (shared fairly between users and with the other plugins' imports).
    let records: JobRecords<NoteImportJob>
    let runner: JobRunner<NoteImportJob>
    /// Notes read per step on the job's worker thread.
    static let notesPerStep = 20

    var store: any RecordStore & RecordSearching { service.store }
    var bus: any MessageBus { service.bus }
    var queue: JobQueue { runner.queue }

    init(service: NotesService, blobs: any BlobStore, logger: Logger, maxPhotoBytes: Int, background: BackgroundWork, queue: JobQueue) {
        self.service = service
        self.blobs = blobs
        self.maxPhotoBytes = maxPhotoBytes
        let records = JobRecords<NoteImportJob>(store: service.store, collection: Self.jobs)
        self.records = records
        runner = JobRunner(name: "notes", ledger: JobLedger(save: { job, owner, new async throws(BusError) in try await records.save(job, id: job.id, owner: owner, new: new) },
                                                            silent: { seconds async throws(BusError) in try await records.silent(for: seconds) }),
                           rollBack: { jobID, owner async throws(BusError) in try await Self.rollBack(jobID, owner: owner, service: service) },
                           queue: queue, background: background, clock: service.clock, logger: logger)
    }

    // MARK: Jobs

    /// Copies the file out of its parts (and lets go of them) and starts the import of it (what
    /// `StartNoteImport` on the bus does).
    /// - Throws: `unavailable` (503) or `rate_limited` (429) with `retryAfter` when the queue is full.
    func start(_ request: StartNoteImport) async throws(BusError) -> NoteImportJob {
        let (scratch, blobs, bus) = (self.scratch(), self.blobs, self.bus)
        return try await BusError.rethrowing {
            try await runner.admit(owner: request.owner, scratch: scratch, letGo: { await request.file.release(on: bus) }, bringIn: { scratch in
                try await request.file.copyOut(to: scratch.appendingPathComponent("upload"), scratch: scratch, from: blobs, on: bus)
                return scratch.appendingPathComponent("upload")
            }) { file, ticket in try await start(file: file, scratch: scratch, owner: request.owner, format: request.format, ticket: ticket) }
        }
    }

    /// A new directory's place for an import's file.
    func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("quire-notes-import-" + service.randomID())
    }

    /// Checks the file (in `scratch`, which the job owns from here and removes) is what it claims,
    /// records the job and queues it; it runs when a worker of the job queue is free.
    /// - Parameter ticket: the job's place in the queue, reserved before the upload was read.
    func start(file: URL, scratch: URL, owner: String, format: NoteImportFormat, ticket: JobQueue.Ticket) async throws(BusError) -> NoteImportJob {
        let job = NoteImportJob(id: "ji_" + service.randomID(), state: .running, format: format, startedAt: service.clock.now())
        let maxPhotoBytes = self.maxPhotoBytes
        return try await runner.start(job, owner: owner, ticket: ticket, scratch: scratch, prepare: { () throws(BusError) in
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
            return NoteSourceBox(try Self.open(file, format: format, size: size ?? 0, maxPhotoBytes: maxPhotoBytes))
        }, work: { [self] run, box async throws(BusError) in
            try await importNotes(run, source: box)
        })
    }

    func job(owner: String, id: String) async throws(BusError) -> NoteImportJob {
        try await records.get(id: id, owner: owner)
    }

    private static func open(_ file: URL, format: NoteImportFormat, size: Int, maxPhotoBytes: Int) throws(BusError) -> any NoteSource {
        do {
            switch format {
            case .enex:
                return try EnexReader(try FileChunks(file), size: Int64(size), maxPhotoBytes: maxPhotoBytes)
            case .keep:
                return try KeepTakeout(file: file, maxPhotoBytes: maxPhotoBytes)
            }
        } catch let problem as NoteProblem {
            throw BusError.invalid(problem.message, field: "file")
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError.invalid("Cannot read the import's file: \(error.localizedDescription)", field: "file")
        }
    }

    /// Rolls back every job a stopped server left running.
    func recover() async {
        await runner.recover()
    }

    /// Deletes the notes an import wrote (their photos go with them).
    static func rollBack(_ jobID: String, owner: String, service: NotesService) async throws(BusError) {
        let store = service.store
        try await service.writing(owner) { () async throws(BusError) in
            while true {
                let page = try await store.query(RecordQuery(collection: NotesService.collection, owner: owner,
                                                             filters: [Filter("importJob", .eq, .string(jobID))], limit: WriteBatch.maxOperations))
                if page.records.isEmpty { break }
                _ = try await store.write(WriteBatch(page.records.map {
                    .delete(collection: NotesService.collection, id: $0.id, owner: owner, expectedVersion: nil)
                }))
            }
        }
    }

    // MARK: Running

    private func importNotes(_ run: JobRun<NoteImportJob>, source: NoteSourceBox) async throws(BusError) {
        let (worker, owner) = (run.worker, run.owner)
        var job = run.job
        // What the runner records (progress, or the end) is the job as it stands.
        defer { run.job = job }
        var batch: [(id: String, data: NoteData)] = []

        func report(_ problem: NoteImportJob.Problem, _ job: inout NoteImportJob) {
            job.problemCount += 1
            if job.problems.count < Self.maxReportedProblems { job.problems.append(problem) }
        }
        func flush(_ job: inout NoteImportJob) async throws(BusError) {
            guard !batch.isEmpty else { return }
            // After the user's last note as it is now (this import's previous batch, or a note created
            // meanwhile), in the file's order: appends count up, so keys stay short (see `OrderKey`).
            let keys = try await service.keysAfterLast(owner: owner, count: batch.count)
            var operations: [WriteOperation] = []
            for ((id, data), key) in zip(batch, keys) {
                var data = data
                data.position = key
                operations.append(.insert(collection: NotesService.collection, id: id, owner: owner, data: try JSONDocument(encoding: data)))
            }
            let written = try await service.writing(owner) { () async throws(BusError) in try await store.write(WriteBatch(operations)) }
            for record in written.records.compactMap({ $0 }) {
                await bus.publish(NoteChanged(owner: owner, noteID: record.id, kind: .created, version: record.version))
            }
            service.respaceIfLong(owner: owner, keys)
            job.imported += batch.count
            batch.removeAll()
        }

        // Reading the file is the job's CPU work: on its worker's thread, a step at a time, never
        // on the threads that answer requests.
        var step: [(Result<ImportedNote, NoteProblem>, progress: (done: Int64, total: Int64?))] = []
        var stepIndex = 0
        func nextNote() async -> (Result<ImportedNote, NoteProblem>, progress: (done: Int64, total: Int64?))? {
            if stepIndex >= step.count {
                step = await worker.blocking { source.take(Self.notesPerStep) }
                stepIndex = 0
                guard !step.isEmpty else { return nil }
            }
            defer { stepIndex += 1 }
            return step[stepIndex]
        }
        while let item = await nextNote() {
            let (next, progress) = item
            try run.checkCancelled()
            job.notesRead += 1
            (job.progressDone, job.progressTotal) = (progress.done, progress.total)
            switch next {
            case .failure(let problem):
                if problem.fatal { job.notesRead -= 1 }
                if problem.skipped {
                    job.skipped += 1
                } else {
                    report(.init(note: problem.index, title: problem.title, message: problem.message, imported: false), &job)
                }
            case .success(let note):
                var (data, warnings) = service.imported(note, importJob: job.id)
                if let photo = note.photo {
                    do throws(BusError) {
                        let image = try await bus.request(try await IngestImage.of(photo.bytes, owner: owner, on: bus), timeout: IngestImage.timeout)
                        data.photo = image.sha256
                        data.photoPlace = image.info.gps.map { PhotoPlace(latitude: $0.latitude, longitude: $0.longitude) }
                        job.photos += 1
                    } catch where [BusError.Code.invalid, .tooLarge, .unsupportedMedia].contains(error.code) {
                        warnings.append("its image was left out: \(error.message)")
                    }
                }
                if !warnings.isEmpty {
                    report(.init(note: note.index, title: data.title, message: "Imported, but " + warnings.joined(separator: "; ") + ".", imported: true), &job)
                }
                batch.append(("n_" + service.randomID(), data))
                if batch.count >= Self.batchSize { try await flush(&job) }
            }
            run.job = job
            try await run.progress()
        }
        try await flush(&job)
        (job.progressDone, job.progressTotal) = await worker.blocking { source.progress }
    }
}

/// The runner's view of an import's record (see `SucceededOrFailedJob`).
extension NoteImportJob: SucceededOrFailedJob {
    /// Nothing of a rolled-back import was kept.
    public mutating func rolledBack(interrupted: Bool) {
        imported = 0
        photos = 0
    }
}

extension NotesService {
    /// A note from another app under this app's rules, and what had to give.
    func imported(_ note: ImportedNote, importJob: String) -> (NoteData, warnings: [String]) {
        var warnings = note.warnings
        var title = note.title.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
        if title.isEmpty { title = Self.defaultTitle }
        if title.count > Self.maxTitle {
            title = String(title.prefix(Self.maxTitle))
            warnings.append("its title was cut to \(Self.maxTitle) characters")
        }
        var text = note.text
        if text.count > Self.maxText {
            text = String(text.prefix(Self.maxText))
            warnings.append("its text was cut to \(Self.maxText) characters")
        }
        var category: String?
        if categoriesOn, let tag = note.tags.first {
            let name = tag.trimmingCharacters(in: .whitespacesAndNewlines)
            category = String(name.filter { !$0.isNewline && !($0.unicodeScalars.first.map(CharacterSet.controlCharacters.contains) ?? false) }
                .prefix(Self.maxCategory))
            if category?.isEmpty == true { category = nil }
        }
        var data = NoteData(title: title, text: text, date: note.created.map(day) ?? today(), position: "")
        data.category = category
        data.importJob = importJob
        return (data, warnings)
    }
}

/// Hands a source to the job's task (it is read there, on its worker's thread, one step at a time
/// and nowhere else).
final class NoteSourceBox: JobInput, @unchecked Sendable {
    var source: (any NoteSource)?
    init(_ source: any NoteSource) { self.source = source }

    /// The next notes (each with the progress after it), at most `count`; none at the end.
    func take(_ count: Int) -> [(Result<ImportedNote, NoteProblem>, progress: (done: Int64, total: Int64?))] {
        var notes: [(Result<ImportedNote, NoteProblem>, progress: (done: Int64, total: Int64?))] = []
        while notes.count < count, let next = source?.next() { notes.append((next, source?.progress ?? (0, nil))) }
        return notes
    }

    var progress: (done: Int64, total: Int64?) { source?.progress ?? (0, nil) }

    func close() { source = nil }
}

/// Google Keep's notes in a Takeout zip: every `Keep/*.json`, its images read from beside it. Notes
/// in Keep's trash are skipped.
struct KeepTakeout: NoteSource {
    let archive: Archive
    let notes: [Entry]
    let maxPhotoBytes: Int
    var index = 0

    init(file: URL, maxPhotoBytes: Int) throws(BusError) {
        do {
            archive = try Archive(url: file, accessMode: .read)
        } catch {
            throw BusError.invalid("This is not a Google Takeout zip: it cannot be opened as a zip file.", field: "file")
        }
        notes = archive.filter { entry in
            entry.type == .file && entry.path.lowercased().hasSuffix(".json") && entry.path.split(separator: "/").dropLast().last == "Keep"
        }
        guard !notes.isEmpty else {
            throw BusError.invalid("This zip holds no Google Keep notes: Takeout puts them in Takeout/Keep/*.json. "
                                   + "Export Keep from takeout.google.com and upload the zip as it comes.", field: "file")
        }
        self.maxPhotoBytes = maxPhotoBytes
    }

    var progress: (done: Int64, total: Int64?) { (Int64(index), Int64(notes.count)) }

    mutating func next() -> Result<ImportedNote, NoteProblem>? {
        guard index < notes.count else { return nil }
        let entry = notes[index]
        index += 1
        let keep: KeepNote
        do {
            keep = try KeepNote.parse(try CappedZip.read(entry, from: archive, limit: Self.maxNoteBytes))
        } catch let problem as NoteProblem {
            return .failure(NoteProblem(index: index, title: entry.path, message: problem.message))
        } catch is CappedZip.TooLarge {
            return .failure(NoteProblem(index: index, title: entry.path,
                                        message: "it is larger than \(Self.maxNoteBytes >> 20) MB, the most a Keep note may be; it was left out"))
        } catch {
            return .failure(NoteProblem(index: index, title: entry.path, message: "it could not be read from the zip: the file is damaged there"))
        }
        if keep.trashed { return .failure(NoteProblem(index: index, title: keep.title, message: "in Keep's trash", skipped: true)) }
        var note = ImportedNote(index: index, title: keep.title, text: keep.text, created: keep.created, tags: keep.labels)
        if let image = keep.images.first {
            let archive = self.archive
            let found = KeepNote.candidates(for: image.path, beside: entry.path).lazy.compactMap { archive[$0] }.first
            if let found {
                do {
                    let bytes = try CappedZip.read(found, from: archive, limit: maxPhotoBytes)
                    note.photo = .init(bytes: bytes, mimeType: image.mimeType)
                } catch {
                    note.warnings.append("its image \(image.path) is larger than \(maxPhotoBytes >> 20) MB or unreadable and was left out")
                }
            } else {
                note.warnings.append("its image \(image.path) is not in the zip")
            }
        }
        return .success(note)
    }

    /// Largest note JSON read (its text is then cut to the notes plugin's rules); the inflating
    /// stops there whatever the zip's header claims.
    static let maxNoteBytes = 8 << 20
}
