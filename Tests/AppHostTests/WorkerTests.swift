import AppConfig
import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import Logging
import PluginCatalog
import PluginKit
import Testing

/// The NATS server `tools/test` starts; without one these are skipped (`QUIRE_REQUIRE_NATS` makes that a failure there).
private enum WorkerNATS {
    static let url = ProcessInfo.processInfo.environment["QUIRE_TEST_NATS_URL"]
    static var available: Bool { url != nil || ProcessInfo.processInfo.environment["QUIRE_REQUIRE_NATS"] != nil }
}

@Suite("Workers: plugins another process runs", .enabled(if: WorkerNATS.available, "no NATS server: run tools/test, or tools/nats start"))
struct WorkerTests {
    /// Napkin Notes with media and drawing remote, on one SQLite file and blob folder (what a
    /// cluster's nodes share on PostgreSQL), its own subjects on the test NATS server.
    func yaml(directory: URL, prefix: String) throws -> String {
        guard let url = WorkerNATS.url else { throw TestAppFailure("QUIRE_TEST_NATS_URL is not set: start a server with eval \"$(tools/nats start)\"") }
        return """
            app: napkin-notes
            server: { host: 127.0.0.1, port: 0 }
            bus: { transport: nats, url: '\(url)', subject_prefix: \(prefix), remote: [media, drawing] }
            plugins:
              storage: { backend: sqlite, path: '\(directory.path)/napkin.sqlite', blobs: '\(directory.path)/blobs' }
              auth: { bcrypt_cost: 4, secret: test-secret-0123456789-0123456789-0123456789 }
            \(TestApp.napkinPlugins())
            """
    }

    /// An image of noise, which no format compresses: over NATS' 1 MB as a file.
    func noise(width: Int, height: Int, in directory: URL) throws -> Data {
        for arguments in [["gaussnoise", directory.appendingPathComponent("n.v").path, "\(width)", "\(height)"],
                          ["cast", directory.appendingPathComponent("n.v").path, directory.appendingPathComponent("n.png").path, "uchar"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw TestAppFailure("vips \(arguments) failed") }
        }
        return try Data(contentsOf: directory.appendingPathComponent("n.png"))
    }

    @Test("a node with media and drawing remote: photos over NATS' limit and drawings go to the workers by blob reference, the manifest still lists them")
    func remoteMediaAndDrawing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = try yaml(directory: directory, prefix: "w" + String(UInt64.random(in: 0...UInt64.max), radix: 36))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        func config() throws -> AppConfig { AppConfig(root: try YAMLLoader.parse(text, file: "napkin.yaml"), environment: [:]) }
        let media = try await AppHost.worker(config: try config(), catalog: PluginCatalog.all, plugins: ["media"], logger: logger)
        let drawing = try await AppHost.worker(config: try config(), catalog: PluginCatalog.all, plugins: ["drawing"], logger: logger)
        #expect(media.plugins.map { type(of: $0).descriptor.id } == ["storage", "media"], "a worker runs its plugin and what it needs")
        #expect(media.routes.isEmpty)
        let photo = try noise(width: 1600, height: 1200, in: directory)
        try #require(photo.count > 1 << 20, "the photo must be over NATS' limit to prove anything")
        try await media.withServices {
            try await drawing.withServices {
                try await TestApp.run(yaml: text) { client, host in
                    #expect(!host.plugins.contains { ["media", "drawing"].contains(type(of: $0).descriptor.id) }, "remote plugins are not built here")
                    let manifest = try await client.send(.get, "/api/v1/manifest")
                    let plugins = manifest.json["plugins"] as? [[String: any Sendable]] ?? []
                    let features = plugins.first { $0["id"] as? String == "media" }?["features"] as? [String]
                    #expect(features == ["images", "rendition:list", "rendition:display"], "listed from its config")

                    let (token, _) = try await client.signUp("ada")
                    let note = try await client.send(.post, "/api/v1/notes", json: ["title": "far away", "text": ""], token: token)
                    let id = try #require(note["id"])
                    let attached = try await client.upload(.put, "/api/v1/notes/\(id)/photo", bytes: photo, contentType: "image/png", token: token)
                    #expect(attached.status == 200, "\(attached.text)")
                    let original = try await client.send(.get, "/api/v1/notes/\(id)/photo", token: token)
                    #expect(original.status == 200 && original.body == photo, "the original, byte for byte, by reference both ways")
                    let thumbnail = try await client.send(.get, "/api/v1/notes/\(id)/photo/list", token: token)
                    #expect(thumbnail.status == 200 && thumbnail.contentType == "image/jpeg")

                    let sketch = ##"{"strokes": [{"color": "#ff0000", "width": 0.05, "points": [{"x": 0.1, "y": 0.5}, {"x": 0.9, "y": 0.5}]}]}"##
                    let saved = try await client.send(.put, "/api/v1/notes/\(id)/drawing", json: sketch, token: token)
                    #expect(saved.status == 200, "\(saved.text)")
                    let rendered = try await client.send(.get, "/api/v1/notes/\(id)/drawing/image?size=2000x1500", token: token)
                    #expect(rendered.status == 200 && rendered.contentType == "image/png")
                }
            }
        }
    }

    @Test("a worker refuses a plugin the app does not have, and a bus that is not NATS, saying what to do")
    func refusals() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let inProcess = AppConfig(root: try YAMLLoader.parse("app: a\nplugins: { storage: { backend: memory }, media: {} }\n", file: "a.yaml"),
                                  environment: [:])
        do {
            _ = try await AppHost.worker(config: inProcess, catalog: PluginCatalog.all, plugins: ["media"], logger: logger)
            Issue.record("expected a refusal")
        } catch let error as PluginSetupError {
            #expect(error.description.contains("transport: nats"))
        }
        let nats = AppConfig(root: try YAMLLoader.parse("app: a\nbus: { transport: nats, url: 'nats://127.0.0.1:1' }\nplugins: { storage: { backend: memory }, media: {} }\n",
                                                        file: "a.yaml"), environment: [:])
        do {
            _ = try await AppHost.worker(config: nats, catalog: PluginCatalog.all, plugins: ["drawing"], logger: logger)
            Issue.record("expected a refusal")
        } catch let error as PluginSetupError {
            #expect(error.description.contains("no plugin 'drawing'") && error.description.contains("storage, media"))
        }
    }
}
