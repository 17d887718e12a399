import Bus
import Foundation
import Logging
import MediaAPI
import NotesAPI
import NotesFormats
import OrderKeys
import PluginKit
import StorageAPI
import ZIPFoundation

/// Evernote and Google Keep imports, as background jobs.
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
    /// A running job records its progress several times a second; one silent for this long belongs
    /// to a process that stopped.
    static let staleAfter: TimeInterval = 15

    let service: NotesService
    let blobs: any BlobStore
    let logger: Logger
    let maxPhotoBytes: Int
    let background: BackgroundWork
    let active = RunningJobs()

    var store: any RecordStore & RecordSearching { service.store }
    var bus: any MessageBus { service.bus }

    // MARK: Jobs

    /// Copies the file out of its parts (and lets go of them), checks it is what it claims,
    /// records the job and starts it.
    func start(_ request: StartNoteImport) async throws(BusError) -> NoteImportJob {
        let job = NoteImportJob(id: "ji_" + NotesService.randomID(), state: .running, format: request.format, startedAt: Date())
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quire-notes-import-" + job.id)
        let file = scratch.appendingPathComponent("upload")
        try await request.file.copyOut(to: file, scratch: scratch, from: blobs, on: bus)
        let source: any NoteSource
        do {
            source = try open(file, format: request.format, size: request.file.size)
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        _ = try await store.insert(job, into: Self.jobs, id: job.id, owner: request.owner)
        let box = NoteSourceBox(source)
        active.insert(job.id)
        let started = background.start { [self] in
            await run(job, source: box, owner: request.owner)
            active.remove(job.id)
            try? FileManager.default.removeItem(at: scratch)
        }
        guard started else {
            active.remove(job.id)
            try? FileManager.default.removeItem(at: scratch)
            throw BusError(.unavailable, "The server is shutting down; start the import again in a moment.", details: ["retryAfter": "5"])
        }
        return job
    }

    func job(owner: String, id: String) async throws(BusError) -> NoteImportJob {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: Self.jobs, id: id, owner: owner) else {
            throw BusError(.notFound, "No import job '\(id)'.", details: ["id": id])
        }
        return try record.decode(NoteImportJob.self)
    }

    private func open(_ file: URL, format: NoteImportFormat, size: Int) throws(BusError) -> any NoteSource {
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
        do {
            let page = try await store.query(RecordQuery(collection: Self.jobs, owner: nil,
                                                         filters: [Filter("state", .eq, .string(NoteImportJob.State.running.rawValue))], limit: 1000))
            let stale = Date().addingTimeInterval(-Self.staleAfter)
            for record in page.records where record.updatedAt < stale && !active.contains(record.id) {
                var job = try record.decode(NoteImportJob.self)
                logger.warning("notes: an import was interrupted by a restart; rolling it back", metadata: ["job": "\(job.id)"])
                try await rollBack(job.id, owner: record.owner)
                job.state = .failed
                job.imported = 0
                job.photos = 0
                job.failure = "The server stopped during the import; nothing of it was kept. Run the import again."
                job.finishedAt = Date()
                _ = try await store.replace(job, in: Self.jobs, id: job.id, owner: record.owner)
            }
        } catch {
            logger.error("notes: rolling back interrupted imports failed", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
        }
    }

    /// Deletes the notes an import wrote (their photos go with them).
    func rollBack(_ jobID: String, owner: String) async throws(BusError) {
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

    private func run(_ start: NoteImportJob, source box: NoteSourceBox, owner: String) async {
        var job = start
        do {
            try await importNotes(&job, source: &box.source, owner: owner)
            job.state = .succeeded
        } catch {
            job.state = .failed
            job.failure = "The import stopped and was rolled back, nothing of it was kept: \(error.message)"
            logger.error("notes: an import failed", metadata: ["job": "\(job.id)", "code": "\(error.code.rawValue)", "error": "\(error.message)"])
            do {
                try await rollBack(job.id, owner: owner)
            } catch {
                logger.error("notes: rolling back an import failed (it is retried at the next start)", metadata: ["job": "\(job.id)"])
                return
            }
            job.imported = 0
            job.photos = 0
        }
        job.finishedAt = Date()
        do {
            _ = try await store.replace(job, in: Self.jobs, id: job.id, owner: owner)
        } catch {
            logger.error("notes: recording the end of an import failed", metadata: ["job": "\(job.id)", "error": "\(error.message)"])
        }
    }

    private func importNotes(_ job: inout NoteImportJob, source: inout any NoteSource, owner: String) async throws(BusError) {
        var batch: [(id: String, data: NoteData)] = []
        var lastProgress = Date()
        // After the user's last note, in the file's order.
        let last = try await store.query(RecordQuery(collection: NotesService.collection, owner: owner,
                                                     order: [SortKey("position", descending: true)], limit: 1))
        var lastPosition = try last.records.first.map { record throws(BusError) in try record.decode(NoteData.self).position }

        func report(_ problem: NoteImportJob.Problem, _ job: inout NoteImportJob) {
            job.problemCount += 1
            if job.problems.count < Self.maxReportedProblems { job.problems.append(problem) }
        }
        func flush(_ job: inout NoteImportJob) async throws(BusError) {
            guard !batch.isEmpty else { return }
            // Keys after the last note: a fresh prefix each batch, spread within it.
            guard let prefix = OrderKey.between(lastPosition, nil) else { throw BusError(.internal, "No order key after the last note.") }
            let keys = OrderKey.spread(batch.count).map { prefix + $0 }
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
            lastPosition = keys.last
            job.imported += batch.count
            batch.removeAll()
        }

        while let next = source.next() {
            if Task.isCancelled { throw BusError(.unavailable, "The server is shutting down.") }
            job.notesRead += 1
            let progress = source.progress
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
                        job.photos += 1
                    } catch where [BusError.Code.invalid, .tooLarge, .unsupportedMedia].contains(error.code) {
                        warnings.append("its image was left out: \(error.message)")
                    }
                }
                if !warnings.isEmpty {
                    report(.init(note: note.index, title: data.title, message: "Imported, but " + warnings.joined(separator: "; ") + ".", imported: true), &job)
                }
                batch.append(("n_" + NotesService.randomID(), data))
                if batch.count >= Self.batchSize { try await flush(&job) }
            }
            if Date().timeIntervalSince(lastProgress) > 0.25 {
                _ = try await store.replace(job, in: Self.jobs, id: job.id, owner: owner)
                lastProgress = Date()
            }
        }
        try await flush(&job)
        (job.progressDone, job.progressTotal) = source.progress
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

/// Hands a source to the job's task (it is read there and nowhere else).
final class NoteSourceBox: @unchecked Sendable {
    var source: any NoteSource
    init(_ source: any NoteSource) { self.source = source }
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
            keep = try KeepNote.parse(try extract(entry, limit: 8 << 20))
        } catch let problem as NoteProblem {
            return .failure(NoteProblem(index: index, title: entry.path, message: problem.message))
        } catch {
            return .failure(NoteProblem(index: index, title: entry.path, message: "it could not be read from the zip (\(error))"))
        }
        if keep.trashed { return .failure(NoteProblem(index: index, title: keep.title, message: "in Keep's trash", skipped: true)) }
        var note = ImportedNote(index: index, title: keep.title, text: keep.text, created: keep.created, tags: keep.labels)
        if let image = keep.images.first {
            let archive = self.archive
            let found = KeepNote.candidates(for: image.path, beside: entry.path).lazy.compactMap { archive[$0] }.first
            if let found {
                do {
                    let bytes = try extract(found, limit: maxPhotoBytes)
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

    /// An entry's bytes, refused past `limit` whatever its header claims.
    func extract(_ entry: Entry, limit: Int) throws -> Data {
        guard entry.uncompressedSize <= UInt64(limit) else { throw KeepTooLarge() }
        var data = Data()
        _ = try archive.extract(entry, skipCRC32: false) { chunk in
            guard data.count + chunk.count <= limit else { throw KeepTooLarge() }
            data.append(chunk)
        }
        return data
    }

    struct KeepTooLarge: Error {}
}
