import AppHost
import AppHostTestKit
import AudioAPI
import Bus
import Foundation
import HTTPTypes
import StorageAPI
import Testing

extension AppHost {
    fileprivate func captionBlobExists(_ sha256: String) async throws -> Bool {
        try await bus.request(StatBlob(sha256: sha256)).blob != nil
    }
}

/// A tone as the web client uploads a recording: 16-bit mono WAV at 16 kHz.
private func captionWAV(seconds: Double) -> Data {
    WAVFormat.encode((0..<Int(seconds * 16000)).map { Int16(12000 * sin(2 * .pi * 330 * Double($0) / 16000)) }, sampleRate: 16000)
}

@Suite("iRemember: a caption recorded in a voice (the audio plugin)")
struct AlbumVoiceTests {
    let photos: Photos
    init() throws { photos = try Photos() }

    static let yaml = TestApp.yaml(app: "iremember-test", extraPlugins: IRemember.plugins() + "  audio: { max_seconds: 120, max_upload_bytes: 5242880 }\n")

    @Test("record a caption on a photo: served as Ogg Opus, on the photo with its length; replaced, deleted; another account gets 404")
    func flow() async throws {
        let jpeg = try await photos.jpeg(seed: 21)
        try await IRemember.run(yaml: Self.yaml) { client, host in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            #expect(try await client.send(.get, "/api/v1/album/photos/\(id)/voice", token: token).status == 404, "no caption yet")
            let attached = try await client.upload(.put, "/api/v1/album/photos/\(id)/voice", bytes: captionWAV(seconds: 2), contentType: "audio/wav", token: token)
            #expect(attached.status == 200, "\(attached.text)")
            let sha = try #require(attached.json["voice"] as? String)
            #expect(attached.json["voiceMs"] as? Int == 2000)
            let photo = try await client.send(.get, "/api/v1/album/photos/\(id)", token: token)
            #expect(photo.json["voice"] as? String == sha)
            let ogg = try await client.send(.get, "/api/v1/album/photos/\(id)/voice", token: token)
            #expect(ogg.status == 200 && ogg.body.prefix(4) == Data("OggS".utf8) && ogg.contentType == "audio/ogg; codecs=opus")

            // Someone else's photo is not there for them: 404 before the body is read.
            let other = try await client.getStarted()
            #expect(try await client.send(.get, "/api/v1/album/photos/\(id)/voice", token: other).status == 404)
            #expect(try await client.upload(.put, "/api/v1/album/photos/\(id)/voice", bytes: captionWAV(seconds: 1), contentType: "audio/wav",
                                            token: other).status == 404)
            #expect(try await client.send(.delete, "/api/v1/album/photos/\(id)/voice", token: other).status == 404)

            // Not a WAV: refused before decoding, with a reason.
            let junk = try await client.upload(.put, "/api/v1/album/photos/\(id)/voice", bytes: Data("not a recording at all, really".utf8),
                                               contentType: "audio/wav", token: token)
            #expect([415, 422].contains(junk.status), "\(junk.status) \(junk.text)")
            #expect(junk.json["detail"] as? String != nil)

            let again = try await client.upload(.put, "/api/v1/album/photos/\(id)/voice", bytes: captionWAV(seconds: 1), contentType: "audio/wav", token: token)
            #expect(again.status == 200 && again.json["voice"] as? String != sha)
            #expect(try await host.captionBlobExists(sha) == false, "the replaced recording's file is gone")
            let deleted = try await client.send(.delete, "/api/v1/album/photos/\(id)/voice", token: token)
            #expect(deleted.status == 200 && deleted.json["voice"] == nil)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(id)/voice", token: token).status == 404)
        }
    }

    @Test("without an audio section the route says recorded captions are off (404 audio_off)")
    func off() async throws {
        let jpeg = try await photos.jpeg(seed: 22)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let reply = try await client.upload(.put, "/api/v1/album/photos/\(id)/voice", bytes: captionWAV(seconds: 1), contentType: "audio/wav", token: token)
            #expect(reply.status == 404 && reply.json["reason"] as? String == "audio_off", "\(reply.text)")
        }
    }
}
