import AudioAPI
import Foundation
import HTTPKit
import Hummingbird

/// A caregiver records a photo's caption in their voice, in the album they help with, as its owner
/// does (AlbumVoice.swift: the same intake, checked before it is decoded; `audio:` on, else 404
/// `audio_off`). Only under `helping/{owner}/…`, each request checking the grant first.
extension AlbumPlugin {
    func caregivingVoiceRoutes(_ routes: PluginRoutes, _ caregiving: CaregivingService) throws {
        let service = self.service
        try routes.add(.put, "helping/{owner}/photos/{id}/voice", summary: "A caregiver records the photo's caption in their voice (a 16-bit mono "
                       + "PCM WAV, as PUT /photos/{id}/voice); the photo keeps whose voice it is (voiceBy). If-Match") { request, context, identity in
            var request = request
            let owner = try Self.owner(context)
            let grant = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            let id = try Self.id(context)
            let expectedVersion = try request.ifMatchVersion()
            let limits = try await service.audioLimits()
            _ = try await service.photo(owner: owner, id: id)  // 404 before the body is read
            let intake = AudioUpload.intake(what: "a recorded caption", reservation: "this recording", limits: limits, on: service.bus)
            let record = try await request.withBudgetedUpload(intake, limit: limits.maxBytes) { upload in
                try await service.attachVoice(owner: owner, id: id, upload: upload, expectedVersion: expectedVersion,
                                           by: Contributor(account: identity.accountID, name: grant.name))
            }
            return try PhotoJSON.response(record)
        }
        try routes.add(.get, "helping/{owner}/photos/{id}/voice", summary: "A caregiver: the photo's recorded caption (audio/ogg, Opus)") {
            request, context, identity in
            let owner = try Self.owner(context)
            _ = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            let (bytes, sha256) = try await service.voice(owner: owner, id: try Self.id(context))
            return AudioResponse.ogg(bytes, tag: sha256, request: request)
        }
    }
}
