import AppHost
import AppHostTestKit
import AudioAPI
import Bus
import Foundation
import HTTPTypes
import StorageAPI
import Testing

/// A 440 Hz tone as the web client uploads a recording: 16-bit mono WAV.
func voiceWAV(seconds: Double, rate: Int = 16000) -> Data {
    WAVFormat.encode((0..<Int(seconds * Double(rate))).map { Int16(12000 * sin(2 * .pi * 440 * Double($0) / Double(rate))) }, sampleRate: rate)
}

@Suite("Napkin Notes: a voice note over HTTP (the audio plugin)")
struct NoteVoiceTests {
    /// Napkin Notes' plugins with audio on (`audio:` as in config/apps/napkin-notes.yaml), in memory or
    /// on files (then the upload is spooled beside the blobs and its head checked as it arrives).
    static func yaml(audio: String = "{ max_seconds: 300 }", storage: String = "memory") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-voice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let backend = storage == "memory" ? "{ backend: memory, blob_grace_seconds: 0 }"
            : "{ backend: sqlite, path: \(directory.path)/notes.sqlite, blobs: \(directory.path)/blobs, blob_grace_seconds: 0 }"
        return TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  audio: \(audio)\n", storage: backend)
    }

    @Test("record, attach, fetch it as Ogg Opus (whole and by range), replace it, delete it: the old files are gone",
          arguments: ["memory", "sqlite"])
    func flow(storage: String) async throws {
        try await TestApp.run(yaml: try Self.yaml(storage: storage)) { api, host in
            let (token, _) = try await api.signUp("ada")
            let features = try await api.send(.get, "/api/v1/manifest").text
            #expect(features.contains("\"audio\""), "the app says voice notes are on: \(features)")
            let id = try #require(try await api.createNote(["title": "lecture"], token: token)["id"])
            let wav = voiceWAV(seconds: 2)
            let attached = try await api.upload(.put, "/api/v1/notes/\(id)/voice", bytes: wav, contentType: "audio/wav", token: token)
            #expect(attached.status == 200, "\(attached.text)")
            let sha = try #require(attached["voice"])
            #expect(attached.json["voiceMs"] as? Int == 2000)
            #expect(try await host.blobExists(BlobRef.of(wav).sha256) == false, "the WAV is not kept, only the Ogg file")

            let ogg = try await api.send(.get, "/api/v1/notes/\(id)/voice", token: token)
            #expect(ogg.status == 200)
            #expect(ogg.contentType == "audio/ogg; codecs=opus")
            #expect(ogg.headers[.acceptRanges] == "bytes")
            #expect(ogg.body.prefix(4) == Data("OggS".utf8) && ogg.body.count < wav.count / 4, "Opus: \(ogg.body.count) bytes of \(wav.count)")
            #expect(BlobRef.of(ogg.body).sha256 == sha)
            let tail = try await api.send(.get, "/api/v1/notes/\(id)/voice", token: token, headers: [.range: "bytes=-100"])
            #expect(tail.status == 206 && tail.body == ogg.body.suffix(100))
            #expect(tail.headers[.contentRange] == "bytes \(ogg.body.count - 100)-\(ogg.body.count - 1)/\(ogg.body.count)")
            let start = try await api.send(.get, "/api/v1/notes/\(id)/voice", token: token, headers: [.range: "bytes=0-3"])
            #expect(start.status == 206 && start.body == Data("OggS".utf8))
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/voice", token: token, headers: [.range: "bytes=999999-"]).status == 416)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/voice", token: token, headers: [.ifNoneMatch: "\"\(sha)\""]).status == 304)

            let again = try await api.upload(.put, "/api/v1/notes/\(id)/voice", bytes: voiceWAV(seconds: 1), contentType: "audio/wav", token: token)
            #expect(again.status == 200 && again["voice"] != sha)
            #expect(try await host.blobExists(sha) == false, "the replaced recording's file is gone")
            let deleted = try await api.send(.delete, "/api/v1/notes/\(id)/voice", token: token)
            #expect(deleted.status == 200 && deleted.json["voice"] == nil)
            #expect(try await host.blobExists(try #require(again["voice"])) == false)
            let gone = try await api.send(.get, "/api/v1/notes/\(id)/voice", token: token)
            #expect(gone.status == 404 && (gone["detail"] ?? "").contains("PUT /api/v1/notes/\(id)/voice"))
        }
    }

    @Test("refused uploads: a stable code and reason, a sentence, and the note unchanged", arguments: [
        ("memory", "text"), ("memory", "stereo"), ("memory", "too long"), ("memory", "too big"), ("memory", "empty body"), ("memory", "no samples"),
        ("sqlite", "text"), ("sqlite", "stereo"), ("sqlite", "too long"), ("sqlite", "too big"), ("sqlite", "jpeg"),
    ])
    func refused(storage: String, kind: String) async throws {
        var bytes = voiceWAV(seconds: 3)
        let (status, code, reason): (Int, String, String?)
        switch kind {
        case "text": (bytes, status, code, reason) = (Data("this is not a recording, whatever it is called".utf8), 415, "unsupported_media_type", "not_wav")
        case "jpeg": (bytes, status, code, reason) = (Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(count: 400), 415, "unsupported_media_type", "not_wav")
        case "stereo":
            bytes[22] = 2
            (status, code, reason) = (415, "unsupported_media_type", "wav_format")
        case "too long": (status, code, reason) = (413, "too_large", "too_long")
        case "too big": (bytes, status, code, reason) = (voiceWAV(seconds: 4), 413, "too_large", nil)
        case "no samples": (bytes, status, code, reason) = (WAVFormat.encode([], sampleRate: 16000), 422, "invalid", "empty")
        default: (bytes, status, code, reason) = (Data(), 400, "bad_request", nil)
        }
        let body = bytes
        try await TestApp.run(yaml: try Self.yaml(audio: "{ max_seconds: 2, max_upload_bytes: 120000 }", storage: storage)) { api, host in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote([:], token: token)["id"])
            let reply = try await api.upload(.put, "/api/v1/notes/\(id)/voice", bytes: body, contentType: "audio/wav", token: token)
            #expect(reply.status == status, "\(kind): \(reply.text)")
            #expect(reply.contentType == "application/problem+json")
            #expect(reply["code"] == code, "\(kind): \(reply.text)")
            if let reason { #expect(reply["reason"] == reason, "\(kind): \(reply.text)") }
            #expect((reply["detail"] ?? "").count > 30, "a sentence: \(reply["detail"] ?? "")")
            #expect(try await host.blobExists(BlobRef.of(body).sha256) == false, "nothing of it kept")
            #expect(try await api.send(.get, "/api/v1/notes/\(id)", token: token).json["voice"] == nil)
        }
    }

    @Test("another user cannot fetch, replace or delete a note's recording; signed out, 401")
    func otherUser() async throws {
        try await TestApp.run(yaml: try Self.yaml()) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let id = try #require(try await api.createNote([:], token: ada)["id"])
            #expect(try await api.upload(.put, "/api/v1/notes/\(id)/voice", bytes: voiceWAV(seconds: 1), token: ada).status == 200)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/voice", token: bob).status == 404)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/voice", token: bob, headers: [.range: "bytes=0-3"]).status == 404)
            #expect(try await api.upload(.put, "/api/v1/notes/\(id)/voice", bytes: voiceWAV(seconds: 1), token: bob).status == 404)
            #expect(try await api.send(.delete, "/api/v1/notes/\(id)/voice", token: bob).status == 404)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/voice").status == 401)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/voice", token: ada).status == 200, "still ada's")
        }
    }

    @Test("an app without the audio plugin: 404 that says how to switch voice notes on")
    func switchedOff() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote([:], token: token)["id"])
            let reply = try await api.upload(.put, "/api/v1/notes/\(id)/voice", bytes: voiceWAV(seconds: 1), token: token)
            #expect(reply.status == 404 && reply.text.contains("audio:"), "\(reply.text)")
        }
    }
}
