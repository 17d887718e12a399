import Bus
import Foundation
import HTTPKit
import Logging
import NotesAPI
import PhotoTextAPI
import PluginKit
import StorageAPI

/// The text in a note's photo (`notes: { photo_text: true }`, with the `photo-text` plugin): once a
/// photo is attached, a background job (the runner's, on the server's one job queue) has the
/// photo-text plugin read it with Tesseract and keeps the text on the note (`photoText`, searched
/// with the note). The note says where it is (`photoTextState`: `reading`, `read`, `failed`); a
/// failure (a photo too large, Tesseract unable) leaves the note as it was, and the job's record
/// says why (`GET /notes/{id}/photo-text`).
struct NotePhotoText: Sendable {
    static let jobs = "notes.photo_text_jobs"
    static let jobsSchema = CollectionSchema(name: jobs, indexes: [IndexSpec(name: "state", fields: ["state"])])

    let service: NotesService
    let records: JobRecords<PhotoTextJob>
    let runner: JobRunner<PhotoTextJob>
    let logger: Logger

    init(service: NotesService, logger: Logger, background: BackgroundWork, queue: JobQueue) {
        self.service = service
        self.logger = logger
        let records = JobRecords<PhotoTextJob>(store: service.store, collection: Self.jobs)
        self.records = records
        // A job waits on one request (Tesseract) of up to RecognisePhotoText.timeout: it is taken for
        // a stopped process's only after that.
        runner = JobRunner(name: "notes.photo-text",
                           ledger: JobLedger(save: { job, owner, new async throws(BusError) in try await records.save(job, id: job.id, owner: owner, new: new) },
                                             silent: { seconds async throws(BusError) in try await records.silent(for: seconds) }),
                           rollBack: { jobID, owner async throws(BusError) in try await Self.markFailed(jobID, owner: owner, records: records, service: service) },
                           queue: queue, background: background, clock: service.clock, logger: logger,
                           settings: .init(staleAfter: 660, noun: "text recognition"))
    }

    /// Starts reading the note's new photo: the note says `reading` at once, then `read` (with
    /// `photoText`) or `failed`. Never throws: a full queue or a storage error leaves the note
    /// `failed` and is logged, the photo stays.
    func start(owner: String, noteID: String, photo: String, orientation: Int) async -> Record? {
        let job = PhotoTextJob(id: "jt_" + service.randomID(), state: .running, noteID: noteID, photo: photo, orientation: orientation,
                               startedAt: service.clock.now())
        do throws(BusError) {
            let ticket = try runner.queue.reserve(owner: owner)
            let marked = try await setState(owner: owner, noteID: noteID, photo: photo, job: job.id, state: .reading, text: nil)
            _ = try await runner.start(job, owner: owner, ticket: ticket, prepare: { () throws(BusError) in NoInput() }, work: { [self] run, _ async throws(BusError) in
                try await read(run)
            })
            return marked
        } catch {
            logger.warning("notes: the text of a photo could not be queued for reading", metadata: ["note": "\(noteID)", "error": "\(error.message)"])
            var failed = job
            failed.phase = .failed
            failed.failed("The photo's text could not be queued for reading: \(error.message)", code: error.code)
            failed.finishedAt = service.clock.now()
            try? await records.save(failed, id: failed.id, owner: owner, new: true)
            return try? await setState(owner: owner, noteID: noteID, photo: photo, job: job.id, state: .failed, text: nil)
        }
    }

    func job(owner: String, noteID: String) async throws(BusError) -> PhotoTextJob {
        let data = try await service.note(owner: owner, id: noteID).decode(NoteData.self)
        guard let id = data.photoTextJob else {
            throw BusError(.notFound, "Note '\(noteID)' has no photo whose text was read; attach a photo and its text is read by itself.",
                           details: ["reason": "no_photo_text"])
        }
        return try await records.get(id: id, owner: owner)
    }

    func recover() async {
        await runner.recover()
    }

    // MARK: Running

    private func read(_ run: JobRun<PhotoTextJob>) async throws(BusError) {
        let (owner, job) = (run.owner, run.job)
        let read: RecognisedPhotoText
        do {
            read = try await service.bus.request(RecognisePhotoText(owner: owner, sha256: job.photo, orientation: job.orientation),
                                                 timeout: RecognisePhotoText.timeout)
        } catch where error.code == .noHandler {
            throw BusError(.notFound, "Text in photos needs the photo-text plugin: add a photo-text: { languages: [eng] } section to the app's YAML.",
                           details: ["reason": "photo_text_off"])
        }
        try run.checkCancelled()
        _ = try await setState(owner: owner, noteID: job.noteID, photo: job.photo, job: job.id, state: .read, text: read.text)
        run.job.characters = read.text.count
        run.job.confidence = read.confidence
        run.job.milliseconds = read.milliseconds
        run.job.languages = read.languages
    }

    /// Writes the note's photo-text state, when the note still holds that photo and this job's
    /// reading of it (a newer photo, or a newer reading, wins).
    @discardableResult
    private func setState(owner: String, noteID: String, photo: String, job: String, state: PhotoTextState, text: String?) async throws(BusError) -> Record? {
        var applied = false
        let edited = try await service.modify(owner: owner, id: noteID, expectedVersion: nil) { data in
            guard data.photo == photo, state == .reading || data.photoTextJob == job else { return }
            data.photoTextJob = job
            data.photoTextState = state.rawValue
            data.photoText = text.flatMap { $0.isEmpty ? nil : $0 }
            applied = true
        }
        guard applied else { return nil }
        await service.bus.publish(NoteChanged(owner: owner, noteID: noteID, kind: .edited, version: edited.record.version))
        return edited.record
    }

    /// A job that failed (or that a stopped process left): its note says `failed` when it still waits on it.
    static func markFailed(_ jobID: String, owner: String, records: JobRecords<PhotoTextJob>, service: NotesService) async throws(BusError) {
        let job = try await records.get(id: jobID, owner: owner)
        do {
            let edited = try await service.modify(owner: owner, id: job.noteID, expectedVersion: nil) { data in
                guard data.photoTextJob == jobID, data.photoTextState == PhotoTextState.reading.rawValue else { return }
                data.photoTextState = PhotoTextState.failed.rawValue
            }
            await service.bus.publish(NoteChanged(owner: owner, noteID: job.noteID, kind: .edited, version: edited.record.version))
        } catch where error.code == .notFound {
            return  // the note is gone: nothing waits on the text
        }
    }
}

extension NoteData {
    /// A new photo, or none: the old photo's text goes with it.
    mutating func forgetPhotoText() {
        photoText = nil
        photoTextState = nil
        photoTextJob = nil
    }
}

/// Where a note's photo's text is.
enum PhotoTextState: String, Sendable {
    case reading, read, failed
}

/// A text recognition's record (`notes.photo_text_jobs`): its note and photo, and how it went.
struct PhotoTextJob: SucceededOrFailedJob, Equatable {
    enum State: String, Codable, Sendable {
        case running, succeeded, failed
    }

    var id: String
    var state: State
    var queued: Bool?
    var noteID: String
    var photo: String
    var orientation: Int
    var startedAt: Date
    var finishedAt: Date?
    /// What went wrong (a sentence for the user) and its stable code.
    var failure: String?
    var code: String?
    var characters: Int?
    var confidence: Int?
    var milliseconds: Int?
    var languages: String?

    mutating func failed(_ message: String, code: BusError.Code) {
        failure = message
        self.code = code.rawValue
    }

    mutating func rolledBack(interrupted: Bool) {}
}

/// The job reads the photo from storage by itself: no input to hand it.
struct NoInput: JobInput {
    func close() {}
}

/// The HTTP side: how the reading of a note's photo went.
enum NotePhotoTextRoutes {
    static func add(to routes: PluginRoutes, photoText: NotePhotoText?) throws {
        try routes.add(.get, "{id}/photo-text", summary: "How the reading of the note's photo's text went (with notes: photo_text): its job's state, failure and counts") {
            _, context, identity in
            guard let photoText else {
                throw BusError(.notFound, "Text in photos is not switched on in this app; its YAML turns it on with notes: { photo_text: true } and a photo-text: section.",
                               details: ["reason": "photo_text_off"])
            }
            return try .json(try await photoText.job(owner: identity.accountID, noteID: try NotesPlugin.id(context)))
        }
    }
}
