import AudioAPI
import Bus
import Foundation
import HTTPKit
import Hummingbird
import StorageAPI

/// A word's pronunciation recorded on the phone (Foreign Note): a WAV the phone made of what it
/// recorded, checked and encoded to Ogg Opus by the audio plugin (`audio:` in the app's YAML) and
/// held by the entry as a blob field, so replacing or deleting it lets go of the old file. Napkin
/// Notes' voice notes and iRemember's recorded captions take the same path.
struct Pronunciations: Sendable {
    typealias C = VocabularyCollections
    let service: VocabularyService
    let bus: any MessageBus

    /// The app's audio limits, or 404 `audio_off` when the app has no audio plugin.
    func limits() async throws(BusError) -> AudioLimits {
        do {
            return try await bus.request(GetAudioLimits())
        } catch where error.code == .noHandler {
            throw BusError(.notFound, "Recorded pronunciations are not switched on in this app; its YAML turns them on with an audio: section.",
                           details: ["reason": "audio_off"])
        }
    }

    func attach(owner: String, id: String, upload: BlobPayload) async throws(BusError) -> Record {
        let audio = try await bus.request(IngestAudio(owner: owner, audio: upload), timeout: IngestAudio.timeout)
        return try await set(owner: owner, id: id, sha256: audio.sha256, ms: audio.durationMs)
    }

    /// The recording replaces the entry's old one whatever was edited meanwhile: it is one field,
    /// and the other fields are kept as they are now.
    func set(owner: String, id: String, sha256: String?, ms: Int?) async throws(BusError) -> Record {
        var lastError: BusError?
        for _ in 0..<5 {
            let existing = try await service.entry(owner: owner, id: id)
            var data = try existing.decode(EntryData.self)
            data.pronunciation = sha256
            data.pronunciationMs = ms
            do {
                return try await service.store.replace(data, in: C.entries, id: id, owner: owner, expectedVersion: existing.version)
            } catch where error.code == .preconditionFailed || error.code == .conflict {
                lastError = error
            }
        }
        throw lastError ?? BusError(.conflict, "The word kept changing while its pronunciation was saved; try again.")
    }

    /// The recorded pronunciation: its Ogg Opus bytes and their SHA-256.
    func recording(owner: String, id: String) async throws(BusError) -> (Data, String) {
        let data = try await service.entry(owner: owner, id: id).decode(EntryData.self)
        guard let sha256 = data.pronunciation else {
            throw BusError(.notFound, "This word has no recorded pronunciation; record one on the word (PUT /api/v1/vocabulary/entries/\(id)/pronunciation).",
                           details: ["reason": "no_pronunciation"])
        }
        return (try await BusBlobStore(bus: bus).get(sha256), sha256)
    }
}

/// The HTTP side: the caller's own entry only (read first, so another account's id answers 404
/// before a byte of the body is read).
enum PronunciationRoutes {
    static func add(to routes: PluginRoutes, service: VocabularyService, bus: any MessageBus) throws {
        let pronunciations = Pronunciations(service: service, bus: bus)
        try routes.add(.put, "entries/{id}/pronunciation", summary: "Record the word's pronunciation: a 16-bit mono PCM WAV as the body (size- and "
                       + "length-checked before it is decoded); stored as Ogg Opus, replacing the old one") { request, context, identity in
            var request = request
            let id = try VocabularyRoutes.id(context)
            let limits = try await pronunciations.limits()
            _ = try await service.entry(owner: identity.accountID, id: id)  // 404 before the body is read
            let intake = AudioUpload.intake(what: "a recorded pronunciation", reservation: "this recording", limits: limits, on: bus)
            let record = try await request.withBudgetedUpload(intake, limit: limits.maxBytes) { upload in
                try await pronunciations.attach(owner: identity.accountID, id: id, upload: upload)
            }
            return try .json(try EntryJSON(record))
        }
        try routes.add(.delete, "entries/{id}/pronunciation", summary: "Delete the word's recorded pronunciation") { _, context, identity in
            try .json(try EntryJSON(try await pronunciations.set(owner: identity.accountID, id: try VocabularyRoutes.id(context), sha256: nil, ms: nil)))
        }
        try routes.add(.get, "entries/{id}/pronunciation", summary: "The recorded pronunciation (audio/ogg, Opus; byte ranges answered)") {
            request, context, identity in
            let (bytes, sha256) = try await pronunciations.recording(owner: identity.accountID, id: try VocabularyRoutes.id(context))
            return AudioResponse.ogg(bytes, tag: sha256, request: request)
        }
    }
}
