import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import StorageAPI
import Testing

/// Images made with the `vips` command (installed by tools/setup).
final class Images: Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-notes-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A width × height image in the format of `name`'s extension; `seed` changes its pixels.
    func make(_ name: String, width: Int = 640, height: Int = 480, seed: Int = 0) throws -> Data {
        let xyz = directory.appendingPathComponent("xyz-\(name).v").path
        let out = directory.appendingPathComponent(name).path
        for arguments in [["xyz", xyz, "\(width)", "\(height)"], ["linear", xyz, out, "1", "\(seed)", "--uchar"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["vips"] + arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw TestAppFailure("vips \(arguments) failed") }
        }
        return try Data(contentsOf: URL(fileURLWithPath: out))
    }

    /// A black image: tiny as PNG however many pixels it has (a decompression bomb).
    func black(_ name: String, width: Int, height: Int) throws -> Data {
        let out = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vips", "black", out, "\(width)", "\(height)"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestAppFailure("vips black failed") }
        return try Data(contentsOf: URL(fileURLWithPath: out))
    }
}

extension AppHost {
    func blobExists(_ sha256: String) async throws -> Bool {
        try await bus.request(StatBlob(sha256: sha256)).blob != nil
    }
}

extension APIClient.Reply {
    /// Width and height read from a PNG's header.
    var pngSize: (Int, Int)? {
        guard body.count > 24, body.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        func be32(_ offset: Int) -> Int { body[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}

@Suite("Napkin Notes: photo and drawing over HTTP")
struct NoteAttachmentTests {
    let sketch = """
        {"strokes": [{"color": "#ff0000", "width": 0.05, "points": [{"x": 0.1, "y": 0.5}, {"x": 0.9, "y": 0.5, "pressure": 0.7}]}],
         "texts": [{"text": "milk", "x": 0.1, "y": 0.2}]}
        """

    @Test("create a note, attach a photo, see its 44x44 thumbnail, draw on the back, render it, clear it, replace the photo: the old blob is gone")
    func napkinFlow() async throws {
        let images = try Images()
        let first = try images.make("first.jpg", seed: 0), second = try images.make("second.png", seed: 40)
        try await TestApp.run { api, host in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote(["title": "shopping"], token: token)["id"])

            let attached = try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: first, contentType: "image/jpeg", token: token)
            #expect(attached.status == 200, "\(attached.text)")
            let firstSHA = try #require(attached["photo"])
            #expect(firstSHA == BlobRef.of(first).sha256)

            let thumbnail = try await api.send(.get, "/api/v1/notes/\(id)/photo/list", token: token)
            #expect(thumbnail.status == 200 && thumbnail.contentType == "image/jpeg")
            #expect(thumbnail.body.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
            let display = try await api.send(.get, "/api/v1/notes/\(id)/photo/display", token: token)
            #expect(display.contentType == "image/webp")
            let original = try await api.send(.get, "/api/v1/notes/\(id)/photo", token: token)
            #expect(original.body == first && original.contentType == "image/jpeg")
            let etag = try #require(original.headers[.eTag])
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/photo", token: token, headers: [.ifNoneMatch: etag]).status == 304)

            let drawn = try await api.send(.put, "/api/v1/notes/\(id)/drawing", json: sketch, token: token)
            #expect(drawn.status == 200, "\(drawn.text)")
            let drawingSHA = try #require(drawn["drawing"])
            let loaded = try await api.send(.get, "/api/v1/notes/\(id)/drawing", token: token)
            #expect((loaded.json["texts"] as? [[String: any Sendable]])?.first?["text"] as? String == "milk")
            let png = try await api.send(.get, "/api/v1/notes/\(id)/drawing/image?size=400x300", token: token)
            #expect(png.contentType == "image/png")
            #expect(png.pngSize.map { $0 == (400, 300) } == true)
            let svg = try await api.send(.get, "/api/v1/notes/\(id)/drawing/image?format=svg", token: token)
            #expect(svg.contentType == "image/svg+xml" && svg.text.contains("<svg"))

            let cleared = try await api.send(.delete, "/api/v1/notes/\(id)/drawing", token: token)
            #expect(cleared.status == 200 && cleared.json["drawing"] is NSNull)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/drawing", token: token).json["strokes"] as? [Any] != nil)
            #expect(try await host.blobExists(drawingSHA) == false, "the cleared drawing's blob is released")

            let replaced = try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: second, token: token)
            #expect(replaced["photo"] == BlobRef.of(second).sha256)
            #expect(try await host.blobExists(firstSHA) == false, "the old photo's blob is gone once unused")
            let newThumbnail = try await api.send(.get, "/api/v1/notes/\(id)/photo/list", token: token)
            #expect(newThumbnail.status == 200 && newThumbnail.body != thumbnail.body)
        }
    }

    @Test("a photo two notes share stays until the last one lets go; deleting a note releases its photo and drawing")
    func sharedPhoto() async throws {
        let photo = try Images().make("p.jpg")
        try await TestApp.run { api, host in
            let (token, _) = try await api.signUp("ada")
            let a = try #require(try await api.createNote([:], token: token)["id"])
            let b = try #require(try await api.createNote([:], token: token)["id"])
            for id in [a, b] { try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: photo, token: token) }
            let drawn = try await api.send(.put, "/api/v1/notes/\(a)/drawing", json: sketch, token: token)
            let sha = BlobRef.of(photo).sha256
            #expect(try await api.send(.delete, "/api/v1/notes/\(a)", token: token).status == 204)
            #expect(try await host.blobExists(sha), "b still holds it")
            #expect(try await host.blobExists(try #require(drawn["drawing"])) == false)
            #expect(try await api.send(.delete, "/api/v1/notes/\(b)/photo", token: token).status == 200)
            #expect(try await host.blobExists(sha) == false)
            #expect(try await api.send(.get, "/api/v1/notes/\(b)/photo", token: token).status == 404)
        }
    }

    @Test("refused uploads: a clear problem, and no blob left behind",
          arguments: [("text", 415), ("truncated", 422), ("bomb", 422), ("oversized", 413), ("form", 415), ("empty", 400)])
    func refused(_ kind: String, _ status: Int) async throws {
        let images = try Images()
        let photo = try images.make("p.jpg")
        let bytes: Data, contentType: String
        switch kind {
        case "text": (bytes, contentType) = (Data("just some text, named photo.jpg".utf8), "image/jpeg")
        case "truncated": (bytes, contentType) = (photo.prefix(photo.count / 2), "image/jpeg")
        case "bomb": (bytes, contentType) = (try images.black("bomb.png", width: 12_000, height: 10_000), "image/png")
        case "oversized": (bytes, contentType) = (Data(count: 200_001), "image/jpeg")
        case "form": (bytes, contentType) = (photo, "multipart/form-data; boundary=x")
        default: (bytes, contentType) = (Data(), "image/jpeg")
        }
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: TestApp.napkinPlugins(media: "max_upload_bytes: 200000, max_pixels: 100000000"))) {
            api, host in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote([:], token: token)["id"])
            let reply = try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: bytes, contentType: contentType, token: token)
            #expect(reply.status == status, "\(reply.text)")
            #expect(reply.contentType == "application/problem+json")
            #expect((reply["detail"] ?? "").count > 20, "a sentence: \(reply["detail"] ?? "")")
            #expect(try await host.blobExists(BlobRef.of(bytes).sha256) == false)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)", token: token).json["photo"] is NSNull)
        }
    }

    @Test("another user's note: every photo and drawing route answers 404")
    func otherUser() async throws {
        let photo = try Images().make("p.jpg")
        try await TestApp.run { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let id = try #require(try await api.createNote([:], token: ada)["id"])
            try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: photo, token: ada)
            #expect(try await api.upload(.put, "/api/v1/notes/\(id)/photo", bytes: photo, token: bob).status == 404)
            for path in ["photo", "photo/list", "drawing", "drawing/image"] {
                #expect(try await api.send(.get, "/api/v1/notes/\(id)/\(path)", token: bob).status == 404, "\(path)")
                #expect(try await api.send(.get, "/api/v1/notes/\(id)/\(path)").status == 401, "\(path) signed out")
            }
            #expect(try await api.send(.put, "/api/v1/notes/\(id)/drawing", json: sketch, token: bob).status == 404)
            #expect(try await api.send(.delete, "/api/v1/notes/\(id)/drawing", token: bob).status == 404)
        }
    }

    @Test("bad drawings and render parameters are refused naming what is wrong")
    func badDrawing() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote([:], token: token)["id"])
            let badColour = #"{"strokes": [{"color": "red", "width": 0.01, "points": [{"x": 0.1, "y": 0.1}]}]}"#
            let reply = try await api.send(.put, "/api/v1/notes/\(id)/drawing", json: badColour, token: token)
            #expect(reply.status == 422 && reply["field"] == "strokes[0].color", "\(reply.text)")
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/drawing/image?format=gif", token: token).status == 400)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/drawing/image?size=huge", token: token).status == 400)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/drawing/image?size=9000x10", token: token).status == 422)
            #expect(try await api.send(.get, "/api/v1/notes/\(id)/photo/poster", token: token).status == 404)
        }
    }
}
