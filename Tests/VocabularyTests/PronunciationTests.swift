import AppHost
import AppHostTestKit
import AudioAPI
import Bus
import Foundation
import HTTPTypes
import Synchronization
import Testing
import ZIPFoundation

/// A tone as the web client uploads a recording: 16-bit mono WAV at 16 kHz.
private func wordWAV(seconds: Double) -> Data {
    WAVFormat.encode((0..<Int(seconds * 16000)).map { Int16(12000 * sin(2 * .pi * 250 * Double($0) / 16000)) }, sampleRate: 16000)
}

/// A copy of `package` with its `media` map replaced by `map` (and, when given, an extra file).
private func withMedia(_ package: Data, map: Data, extra: (name: String, data: Data)? = nil) throws -> Data {
    let source = try Archive(data: package, accessMode: .read)
    let copy = try Archive(accessMode: .create)
    for entry in source where entry.path != "media" {
        var bytes = Data()
        _ = try source.extract(entry) { bytes.append($0) }
        let held = bytes
        try copy.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(held.count)) { position, size in
            held.subdata(in: Int(position)..<Int(position) + size)
        }
    }
    for (name, data) in [("media", map)] + (extra.map { [($0.name, $0.data)] } ?? []) {
        try copy.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count)) { position, size in
            data.subdata(in: Int(position)..<Int(position) + size)
        }
    }
    guard let bytes = copy.data else { throw TestAppFailure("the package was not written") }
    return bytes
}

@Suite("Foreign Note: a recorded pronunciation (the audio plugin) and Anki's [sound:…] media")
struct PronunciationTests {
    static let yaml = TestApp.yaml(extraPlugins: "  vocabulary: { undo_seconds: 1 }\n  audio: { max_seconds: 30, max_upload_bytes: 3145728 }\n")

    @Test("record, fetch as Ogg Opus, export to .apkg as [sound:…] with its media, import into another account: the same bytes")
    func apkgRoundTrip() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let pomme = try await api.make("entries", ["collection": french, "word": "la pomme", "definitions": ["apple"], "languages": ["fr"]], token: token)
            _ = try await api.make("entries", ["collection": french, "word": "le pain", "definitions": ["bread"]], token: token)
            let recorded = try await api.upload(.put, "/api/v1/vocabulary/entries/\(pomme)/pronunciation", bytes: wordWAV(seconds: 1.5),
                                                contentType: "audio/wav", token: token)
            #expect(recorded.status == 200, "\(recorded.text)")
            #expect(recorded.json["pronunciationMs"] as? Int == 1500)
            let sha = try #require(recorded.json["pronunciation"] as? String)
            let ogg = try await api.send(.get, "/api/v1/vocabulary/entries/\(pomme)/pronunciation", token: token)
            #expect(ogg.status == 200 && ogg.body.prefix(4) == Data("OggS".utf8) && ogg.contentType == "audio/ogg; codecs=opus")

            let package = try await api.send(.get, "/api/v1/vocabulary/export?format=apkg", token: token).body
            let archive = try Archive(data: package, accessMode: .read)
            var mapBytes = Data()
            _ = try archive.extract(try #require(archive["media"])) { mapBytes.append($0) }
            let map = try #require(try JSONSerialization.jsonObject(with: mapBytes) as? [String: String])
            let name = "quire-\(sha.prefix(16)).ogg"
            #expect(map == ["0": name], "\(map)")
            var file = Data()
            _ = try archive.extract(try #require(archive["0"])) { file.append($0) }
            #expect(file == ogg.body, "the package holds the recording's bytes")

            let (bob, _) = try await api.signUp("bob")
            let job = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package, contentType: "application/zip", token: bob), token: bob)
            #expect(job["state"] == "succeeded" && job.json["imported"] as? Int == 2, "\(job.text)")
            let hit = try #require(try await api.search("pomme", token: bob).first)
            #expect(hit["word"] as? String == "la pomme", "the [sound:…] tag is not part of the word")
            let id = try #require(hit["id"] as? String)
            let entry = try await api.send(.get, "/api/v1/vocabulary/entries/\(id)", token: bob)
            #expect(entry.json["pronunciationMs"] as? Int == 1500, "its length read from the Ogg file: \(entry.text)")
            let back = try await api.send(.get, "/api/v1/vocabulary/entries/\(id)/pronunciation", token: bob)
            #expect(back.status == 200 && back.body == ogg.body, "the import brings back the same audio bytes")
            let pain = try #require(try await api.search("pain", token: bob).first)
            #expect(pain["pronunciation"] == nil)

            // Someone else's word: 404 before the body is read.
            #expect(try await api.upload(.put, "/api/v1/vocabulary/entries/\(pomme)/pronunciation", bytes: wordWAV(seconds: 1),
                                         contentType: "audio/wav", token: bob).status == 404)
            #expect(try await api.send(.get, "/api/v1/vocabulary/entries/\(pomme)/pronunciation", token: bob).status == 404)
            // Not a WAV: refused with a reason before decoding.
            let junk = try await api.upload(.put, "/api/v1/vocabulary/entries/\(pomme)/pronunciation", bytes: Data("just some text, no sound in it".utf8),
                                            contentType: "audio/wav", token: token)
            #expect(junk.status == 415 && junk["reason"] == "not_wav", "\(junk.text)")
            let deleted = try await api.send(.delete, "/api/v1/vocabulary/entries/\(pomme)/pronunciation", token: token)
            #expect(deleted.status == 200 && deleted.json["pronunciation"] == nil)
        }
    }

    @Test("an import keeps a sound only where the app records pronunciations, and no longer than its max_seconds")
    func importLimits() async throws {
        let package: Data = try await { () async throws -> Data in
            let box = Mutex<Data?>(nil)
            try await TestApp.run(yaml: Self.yaml) { api, _ in
                let (token, _) = try await api.signUp("ada")
                let french = try await api.make("collections", ["name": "French"], token: token)
                let pomme = try await api.make("entries", ["collection": french, "word": "la pomme", "definitions": ["apple"]], token: token)
                #expect(try await api.upload(.put, "/api/v1/vocabulary/entries/\(pomme)/pronunciation", bytes: wordWAV(seconds: 1.5),
                                             contentType: "audio/wav", token: token).status == 200)
                let exported = try await api.send(.get, "/api/v1/vocabulary/export?format=apkg", token: token).body
                box.withLock { $0 = exported }
            }
            return try #require(box.withLock { $0 })
        }()
        for (audio, kept) in [("  audio: { max_seconds: 1 }\n", false), ("", false), ("  audio: { max_seconds: 2 }\n", true)] {
            try await TestApp.run(yaml: TestApp.yaml(extraPlugins: "  vocabulary: { undo_seconds: 1 }\n" + audio)) { api, _ in
                let (bob, _) = try await api.signUp("bob")
                let job = try await api.finishedImport(
                    try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package, contentType: "application/zip", token: bob), token: bob)
                #expect(job["state"] == "succeeded" && job.json["imported"] as? Int == 1, "\(audio): \(job.text)")
                let hit = try #require(try await api.search("pomme", token: bob).first)
                let entry = try await api.send(.get, "/api/v1/vocabulary/entries/\(hit["id"] as? String ?? "")", token: bob)
                #expect(entry["word"] == "la pomme")
                #expect((entry.json["pronunciation"] != nil) == kept, "\(audio.isEmpty ? "no audio section" : audio): \(entry.text)")
            }
        }
    }

    @Test("a hostile media map refuses the import cleanly (415 bad_media_map, nothing written)", arguments: [
        "not json", "array", "path", "dots", "missing file", "not a number", "name not text",
    ])
    func hostileMediaMap(kind: String) async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            _ = try await api.make("entries", ["collection": french, "word": "la pomme", "definitions": ["apple"]], token: token)
            let package = try await api.send(.get, "/api/v1/vocabulary/export?format=apkg", token: token).body
            let sound = (name: "0", data: Data("OggS".utf8) + Data(count: 60))
            let hostile: Data
            switch kind {
            case "not json": hostile = try withMedia(package, map: Data("{\"0\": ".utf8))
            case "array": hostile = try withMedia(package, map: Data("[\"a.ogg\"]".utf8))
            case "path": hostile = try withMedia(package, map: Data("{\"0\": \"../../etc/passwd\"}".utf8), extra: sound)
            case "dots": hostile = try withMedia(package, map: Data("{\"0\": \"..\"}".utf8), extra: sound)
            case "missing file": hostile = try withMedia(package, map: Data("{\"7\": \"a.ogg\"}".utf8))
            case "not a number": hostile = try withMedia(package, map: Data("{\"collection.anki2\": \"a.ogg\"}".utf8))
            default: hostile = try withMedia(package, map: Data("{\"0\": 12}".utf8), extra: sound)
            }
            let (bob, _) = try await api.signUp("bob")
            let reply = try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: hostile, contentType: "application/zip", token: bob)
            #expect(reply.status == 415, "\(kind): \(reply.status) \(reply.text)")
            #expect(reply["reason"] == "bad_media_map", "\(kind): \(reply.text)")
            #expect((reply["detail"] ?? "").contains("Export the deck again"), "\(kind): \(reply.text)")
            #expect(try await api.search("pomme", token: bob).isEmpty, "nothing written")
        }
    }
}
