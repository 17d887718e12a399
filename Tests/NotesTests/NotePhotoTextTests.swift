import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// Napkin's text in photos (`notes: { photo_text: true }` with the photo-text plugin) over HTTP:
/// a photo of known text attached, the background job reads it with Tesseract, the note keeps it
/// and the search finds the note by a word only in the photo; a photo too large for it leaves the
/// note as it was and the job says why. And "Share to Napkin"'s server side.
@Suite("Napkin Notes: the text in photos (Tesseract, a background job) and the share target")
struct NotePhotoTextTests {
    /// The image PhotoTextTests reads too (Tests/PhotoTextTests/Fixtures/make_fixtures.py).
    static func receipt() throws -> Data {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: tests.appendingPathComponent("PhotoTextTests/Fixtures/receipt.png"))
    }

    static func yaml(photoText: String = "{ languages: [eng] }", notes: String = "{ search: true, photo_text: true }") -> String {
        TestApp.yaml(extraPlugins: TestApp.napkinPlugins(notes: notes) + "  photo-text: \(photoText)\n")
    }

    func note(_ api: APIClient, _ token: String, _ body: [String: any Sendable]) async throws -> String {
        let reply = try await api.send(.post, "/api/v1/notes", json: body, token: token)
        guard reply.status == 201, let id = reply["id"] else { throw TestAppFailure("POST note: \(reply.status) \(reply.text)") }
        return id
    }

    /// The note once its photo's reading has ended (at most a minute).
    func read(_ api: APIClient, _ token: String, _ id: String) async throws -> APIClient.Reply {
        for _ in 0..<600 {
            let shown = try await api.send(.get, "/api/v1/notes/\(id)", token: token)
            if shown["photoTextState"] != "reading" { return shown }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestAppFailure("the photo's text was still being read after a minute")
    }

    @Test("a photo's text is read after it is attached, kept with the note, searched, and forgotten with the photo")
    func readsAndSearches() async throws {
        try await TestApp.run(yaml: Self.yaml()) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let manifest = try await api.send(.get, "/api/v1/manifest").text
            #expect(manifest.contains("\"photo-text\""), "the app says photos' text is read: \(manifest)")
            let id = try await note(api, token, ["title": "Saturday", "text": "bread and cake"])
            let other = try await note(api, token, ["title": "Rhubarb plans", "text": "plant it"])
            let attached = try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: try Self.receipt(), contentType: "image/png", token: token)
            #expect(attached.status == 200, "\(attached.text)")
            #expect(attached["photoTextState"] == "reading", "the note says its photo is being read: \(attached.text)")

            let read = try await read(api, token, id)
            #expect(read["photoTextState"] == "read", "\(read.text)")
            let text = read["photoText"] ?? ""
            #expect(text.contains("Harbour Bakery") && text.contains("Rhubarb crumble"), "read: \(text)")
            let job = try await api.send(.get, "/api/v1/notes/\(id)/photo-text", token: token)
            #expect(job.status == 200 && job["state"] == "succeeded", "\(job.text)")
            #expect((job.json["characters"] as? Int ?? 0) > 20 && job["languages"] == "eng", "\(job.text)")

            // "Harbour" is only in the photo: the search finds the note by it; "rhubarb" finds both, the title's first.
            let hits = try await api.send(.get, "/api/v1/notes/search?q=harbour", token: token).items
            #expect(hits.compactMap { ($0["note"] as? [String: any Sendable])?["id"] as? String } == [id], "\(hits)")
            let both = try await api.send(.get, "/api/v1/notes/search?q=rhubarb", token: token).items
            #expect(both.compactMap { ($0["note"] as? [String: any Sendable])?["id"] as? String } == [other, id], "\(both)")

            // Another user neither sees the job nor finds the note.
            let (eve, _) = try await api.signUp("eve")
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/photo-text", token: eve).status == 404)
            #expect(try await api.send(.get, "/api/v1/notes/search?q=harbour", token: eve).items.isEmpty)

            // The photo removed: its text goes with it, and the search no longer finds the note by it.
            let removed = try await api.send(.delete, "/api/v1/notes/\(id)/photo", token: token)
            #expect(removed.status == 200 && removed.json["photoText"] == nil && removed.json["photoTextState"] == nil, "\(removed.text)")
            #expect(try await api.send(.get, "/api/v1/notes/search?q=harbour", token: token).items.isEmpty)
        }
    }

    @Test("a photo too large to read: the note keeps its photo, says failed, and the job records why")
    func tooLarge() async throws {
        try await TestApp.run(yaml: Self.yaml(photoText: "{ languages: [eng], max_pixels: 10000 }")) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try await note(api, token, ["title": "big"])
            let attached = try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: try Self.receipt(), contentType: "image/png", token: token)
            #expect(attached.status == 200)
            let read = try await read(api, token, id)
            #expect(read["photoTextState"] == "failed" && read["photo"] == attached["photo"] && read.json["photoText"] == nil, "\(read.text)")
            #expect(read["title"] == "big")
            let job = try await api.send(.get, "/api/v1/notes/\(id)/photo-text", token: token)
            #expect(job["state"] == "failed" && job["code"] == "too_large", "\(job.text)")
            #expect((job["failure"] ?? "").contains("max_pixels"), "\(job.text)")
            // The photo itself is served as ever.
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/photo", token: token).status == 200)
        }
    }

    @Test("photo_text without the photo-text plugin: the job fails saying which section to add; without the switch nothing is read")
    func switches() async throws {
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: TestApp.napkinPlugins(notes: "{ photo_text: true }"))) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try await note(api, token, ["title": "no plugin"])
            _ = try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: try Self.receipt(), contentType: "image/png", token: token)
            #expect(try await read(api, token, id)["photoTextState"] == "failed")
            let job = try await api.send(.get, "/api/v1/notes/\(id)/photo-text", token: token)
            #expect((job["failure"] ?? "").contains("photo-text: { languages: [eng] }"), "\(job.text)")
        }
        try await TestApp.run(yaml: Self.yaml(notes: "{ search: true }")) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try await note(api, token, ["title": "off"])
            let attached = try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: try Self.receipt(), contentType: "image/png", token: token)
            #expect(attached.status == 200 && attached.json["photoTextState"] == nil, "\(attached.text)")
            let off = try await api.send(.get, "/api/v1/notes/\(id)/photo-text", token: token)
            #expect(off.status == 404 && (off["detail"] ?? "").contains("photo_text: true"), "\(off.text)")
        }
    }

    @Test("share target: the manifest offers it with web: share_target; a share no service worker took is sent back to the app")
    func shareTarget() async throws {
        let web = "  web: { share_target: true }\n"
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + web)) { api, _ in
            let manifest = try await api.send(.get, "/manifest.webmanifest").json
            let target = try #require(manifest["share_target"] as? [String: any Sendable], "\(manifest)")
            #expect(target["action"] as? String == "/share-target" && target["method"] as? String == "POST")
            #expect(target["enctype"] as? String == "multipart/form-data")
            let params = try #require(target["params"] as? [String: any Sendable])
            #expect(params["title"] as? String == "title" && params["text"] as? String == "text" && params["url"] as? String == "url")
            let files = params["files"] as? [[String: any Sendable]] ?? []
            #expect(files.first?["name"] as? String == "photo" && files.first?["accept"] as? [String] == ["image/*"])

            let boundary = "quire-share-test"
            let form = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nA link\r\n--\(boundary)--\r\n".utf8)
            let missed = try await api.upload(.post, "/share-target", bytes: form, contentType: "multipart/form-data; boundary=\(boundary)")
            #expect(missed.status == 303 && missed.headers[.location] == "/#/share?missed=1", "\(missed.status) \(missed.text)")
        }
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  web: {}\n")) { api, _ in
            let manifest = try await api.send(.get, "/manifest.webmanifest").json
            #expect(manifest["share_target"] == nil, "off unless the YAML says so")
            let off = try await api.send(.post, "/share-target")
            #expect(off.status == 404 && (off["detail"] ?? "").contains("share_target: true"), "\(off.status) \(off.text)")
        }
    }
}
