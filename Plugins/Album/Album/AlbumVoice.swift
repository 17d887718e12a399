import AudioAPI
import Bus
import Foundation
import HTTPKit
import Hummingbird
import StorageAPI

/// A photo's caption recorded in a voice (the user's, or a relative's): a WAV the phone made of what
/// it recorded, checked and encoded to Ogg Opus by the audio plugin (`audio:` in the app's YAML),
/// held by the photo as a blob field, so replacing or deleting it (or the photo) lets go of the old
/// file. Napkin Notes' voice notes take the same path (NoteVoice.swift).
extension AlbumService {
    /// The app's audio limits, or 404 `audio_off` when the app has no audio plugin.
    func audioLimits() async throws(BusError) -> AudioLimits {
        do {
            return try await bus.request(GetAudioLimits())
        } catch where error.code == .noHandler {
            throw BusError(.notFound, "Recorded captions are not switched on in this app; its YAML turns them on with an audio: section.",
                           details: ["reason": "audio_off"])
        }
    }

    /// `upload`: the WAV inline, or the blob it was streamed into. `by`: the caregiver whose voice it is
    /// (nil: the user's own).
    func attachVoice(owner: String, id: String, upload: BlobPayload, expectedVersion: Int64?, by: Contributor? = nil) async throws(BusError) -> Record {
        let audio = try await bus.request(IngestAudio(owner: owner, audio: upload), timeout: IngestAudio.timeout)
        return try await changeVoice(owner: owner, id: id, expectedVersion: expectedVersion, voice: audio.sha256, ms: audio.durationMs, by: by)
    }

    func removeVoice(owner: String, id: String, expectedVersion: Int64?) async throws(BusError) -> Record {
        try await changeVoice(owner: owner, id: id, expectedVersion: expectedVersion, voice: nil, ms: nil, by: nil)
    }

    /// The recorded caption: its Ogg Opus bytes and their SHA-256.
    func voice(owner: String, id: String) async throws(BusError) -> (Data, String) {
        let data = try await photo(owner: owner, id: id).decode(PhotoData.self)
        guard let sha256 = data.voice else {
            throw BusError(.notFound, "This photo has no recorded caption; record one on the photo (PUT /api/v1/album/photos/\(id)/voice).",
                           details: ["reason": "no_voice"])
        }
        return (try await BusBlobStore(bus: bus).get(sha256), sha256)
    }

    private func changeVoice(owner: String, id: String, expectedVersion: Int64?, voice: String?, ms: Int?,
                             by: Contributor?) async throws(BusError) -> Record {
        let committed = try await commit(owner: owner, id: id, expectedVersion: expectedVersion) { current throws(BusError) in
            guard var photo = current else { throw BusError(.notFound, "This photo is not in your album: it was deleted, maybe on another device.") }
            photo.voice = voice
            photo.voiceMs = ms
            photo.voiceBy = by
            return photo
        }
        guard let record = committed.record else { throw BusError(.internal, "The photo was not stored.") }
        return record
    }
}

/// The HTTP side of recorded captions: the owner's own photo only (every route reads the photo as
/// the caller's first, so another account's id answers 404 before a byte of the body is read).
enum AlbumVoiceRoutes {
    static func add(to routes: PluginRoutes, service: AlbumService) throws {
        try routes.add(.put, "photos/{id}/voice", summary: "Record the caption in a voice: a 16-bit mono PCM WAV as the body (size- and length-checked "
                       + "before it is decoded); stored as Ogg Opus, replacing the old one. If-Match") { request, context, identity in
            var request = request
            let id = try AlbumPlugin.id(context)
            let expectedVersion = try request.ifMatchVersion()
            let limits = try await service.audioLimits()
            _ = try await service.photo(owner: identity.accountID, id: id)  // 404 before the body is read
            let intake = AudioUpload.intake(what: "a recorded caption", reservation: "this recording", limits: limits, on: service.bus)
            let record = try await request.withBudgetedUpload(intake, limit: limits.maxBytes) { upload in
                try await service.attachVoice(owner: identity.accountID, id: id, upload: upload, expectedVersion: expectedVersion)
            }
            return try PhotoJSON.response(record)
        }
        try routes.add(.delete, "photos/{id}/voice", summary: "Delete the recorded caption. If-Match") { request, context, identity in
            try PhotoJSON.response(try await service.removeVoice(owner: identity.accountID, id: try AlbumPlugin.id(context),
                                                                 expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.get, "photos/{id}/voice", summary: "The recorded caption (audio/ogg, Opus; byte ranges answered)") { request, context, identity in
            let (bytes, sha256) = try await service.voice(owner: identity.accountID, id: try AlbumPlugin.id(context))
            return AudioResponse.ogg(bytes, tag: sha256, request: request)
        }
    }
}
