import AudioAPI
import Bus
import Foundation
import HTTPKit
import Hummingbird
import NotesAPI
import StorageAPI

/// A note's voice recording (the seed's "voice recording integration"): a WAV the phone made of
/// what it recorded, encoded to Ogg Opus by the audio plugin and held by the note as a blob field,
/// so replacing or deleting it (or the note) lets go of the old file.
extension NotesService {
    /// The app's audio limits, or 404 when the app has no audio plugin.
    func audioLimits() async throws(BusError) -> AudioLimits {
        do {
            return try await bus.request(GetAudioLimits())
        } catch where error.code == .noHandler {
            throw BusError(.notFound, "Voice notes are not switched on in this app; its YAML turns them on with an audio: section.",
                           details: ["reason": "audio_off"])
        }
    }

    /// `upload`: the WAV inline, or the blob it was streamed into (released when refused).
    func attachVoice(owner: String, id: String, upload: BlobPayload, expectedVersion: Int64?) async throws(BusError) -> Record {
        let audio = try await bus.request(IngestAudio(owner: owner, audio: upload), timeout: IngestAudio.timeout)
        return try await changeVoice(owner: owner, id: id, expectedVersion: expectedVersion) {
            $0.voice = audio.sha256
            $0.voiceMs = audio.durationMs
        }
    }

    func removeVoice(owner: String, id: String, expectedVersion: Int64?) async throws(BusError) -> Record {
        try await changeVoice(owner: owner, id: id, expectedVersion: expectedVersion) {
            $0.voice = nil
            $0.voiceMs = nil
        }
    }

    /// The note's recording: its Ogg Opus bytes and their SHA-256.
    func voice(owner: String, id: String) async throws(BusError) -> (Data, String) {
        let data = try await note(owner: owner, id: id).decode(NoteData.self)
        guard let sha256 = data.voice else {
            throw BusError(.notFound, "Note '\(id)' has no voice recording; record one with PUT /api/v1/notes/\(id)/voice.")
        }
        return (try await BusBlobStore(bus: bus).get(sha256), sha256)
    }

    private func changeVoice(owner: String, id: String, expectedVersion: Int64?, _ change: (inout NoteData) -> Void) async throws(BusError) -> Record {
        let updated = try await modify(owner: owner, id: id, expectedVersion: expectedVersion, change).record
        await bus.publish(NoteChanged(owner: owner, noteID: id, kind: .edited, version: updated.version))
        return updated
    }
}

/// The HTTP side of voice notes.
enum NoteVoiceRoutes {
    static func add(to routes: PluginRoutes, service: NotesService) throws {
        try routes.add(.put, "{id}/voice", summary: "Attach a voice recording (a 16-bit mono PCM WAV as the body; stored as Ogg Opus; replaces the old one)") {
            request, context, identity in
            var request = request
            let id = try NotesPlugin.id(context)
            let expectedVersion = try request.ifMatchVersion()
            let limits = try await service.audioLimits()
            _ = try await service.note(owner: identity.accountID, id: id)  // 404 before the body is read
            let intake = AudioUpload.intake(what: "a voice recording", reservation: "this recording", limits: limits, on: service.bus)
            let record = try await request.withBudgetedUpload(intake, limit: limits.maxBytes) { upload in
                try await service.attachVoice(owner: identity.accountID, id: id, upload: upload, expectedVersion: expectedVersion)
            }
            return NoteJSON.response(record)
        }
        try routes.add(.delete, "{id}/voice", summary: "Delete the note's voice recording") { request, context, identity in
            NoteJSON.response(try await service.removeVoice(owner: identity.accountID, id: try NotesPlugin.id(context),
                                                            expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.get, "{id}/voice", summary: "The voice recording (audio/ogg, Opus; byte ranges answered)") { request, context, identity in
            let (bytes, sha256) = try await service.voice(owner: identity.accountID, id: try NotesPlugin.id(context))
            return AudioResponse.ogg(bytes, tag: sha256, request: request)
        }
    }
}
