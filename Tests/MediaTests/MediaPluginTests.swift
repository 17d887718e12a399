import AppConfig
import Bus
import BusInProcess
import Foundation
import Logging
import Media
import MediaAPI
import PluginKit
import Storage
import StorageAPI
import Testing

/// The media plugin on a real in-process bus, with in-memory storage behind it.
struct MediaHarness {
    let bus = InProcessBus()
    let blobs = InMemoryBlobStore()

    init(yaml: String = "renditions: [{ name: list, width: 44, height: 44, fit: cover }, { name: display, width: 300, height: 300, format: webp }]")
        async throws {
        try StoragePlugin.register(records: InMemoryRecordStore(), blobs: blobs, on: bus)
        let root = try YAMLLoader.parse("app: t\nplugins:\n  media: \(yaml.isEmpty ? "{}" : "{ \(yaml) }")\n", file: "t.yaml")
        let config = AppConfig(root: root, environment: [:])
        let media = MediaPlugin.configure(config.plugins[0].section)
        try config.reader.finish()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let plugin = try await MediaPlugin(config: media, context: PluginContext(appName: "t", bus: bus, logger: logger))
        try await plugin.register(on: bus)
    }
}

@Suite("Media plugin")
struct MediaPluginTests {
    @Test("ingest keeps the original bytes unchanged, answers what they are, and publishes media.image.ingested.v1")
    func ingest() async throws {
        let harness = try await MediaHarness()
        let fixtures = try Fixtures()
        let photo = try fixtures.image("p.jpg", width: 640, height: 480)
        let events = harness.bus.subscribe(to: ImageIngested.self)
        let image = try await harness.bus.request(IngestImage(owner: "ada", bytes: photo))
        #expect(image.info.width == 640 && image.info.format == .jpeg)
        #expect(try await harness.blobs.get(image.sha256) == photo, "the original, byte for byte")
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event?.owner == "ada" && event?.image == image)
    }

    @Test("a refused upload leaves no blob behind", arguments: ["text", "truncated", "too big"])
    func refusedLeavesNothing(_ kind: String) async throws {
        let harness = try await MediaHarness(yaml: "max_upload_bytes: 50000")
        let fixtures = try Fixtures()
        let photo = try fixtures.image("p.jpg", width: 640, height: 480)
        let big = try fixtures.image("big.png", width: 800, height: 800)
        let bytes = switch kind {
        case "text": Data("not an image".utf8)
        case "truncated": photo.prefix(photo.count / 2)
        default: big
        }
        await #expect(throws: BusError.self) { try await harness.bus.request(IngestImage(owner: "ada", bytes: bytes)) }
        #expect(try await harness.blobs.stat(BlobRef.of(bytes).sha256) == nil)
    }

    @Test("a rendition is made once, then served from its cache even if the original is gone")
    func renditionCache() async throws {
        let harness = try await MediaHarness()
        let fixtures = try Fixtures()
        let image = try await harness.bus.request(IngestImage(owner: "ada", bytes: try fixtures.image("p.jpg", width: 640, height: 480)))
        let first = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: "list"))
        let info = try ImageInspector.inspect(first.bytes)
        #expect(info.width == 44 && info.height == 44 && first.format == .jpeg)
        try await harness.blobs.delete(image.sha256)
        let again = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: "list"))
        #expect(again == first)
        let display = try await harness.bus.request(RenderImage(sha256: first.sha256, rendition: "display"))
        #expect(display.format == .webp)
    }

    @Test("an unknown rendition names the ones the app declares")
    func unknownRendition() async throws {
        let harness = try await MediaHarness()
        do {
            _ = try await harness.bus.request(RenderImage(sha256: String(repeating: "0", count: 64), rendition: "huge"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalid)
            #expect(error.message.contains("list, display"))
        }
    }

    @Test("rendition mistakes in YAML are reported with their line and column")
    func configErrors() throws {
        let yaml = "app: t\nplugins:\n  media:\n    renditions:\n      - { name: a, width: 0, fit: stretch }\n      - { name: a }\n"
        let config = AppConfig(root: try YAMLLoader.parse(yaml, file: "m.yaml"), environment: [:])
        _ = MediaPlugin.configure(config.plugins[0].section)
        let error = try #require(throws: ConfigError.self) { try config.reader.finish() }
        #expect(error.diagnostics.map(\.description) == [
            "m.yaml:5:27: plugins.media.renditions[0].width: expected a whole number between 1 and 10000, found 0",
            "m.yaml:5:35: plugins.media.renditions[0].fit: expected one of cover, contain, found \"stretch\"",
            "m.yaml:6:17: plugins.media.renditions[1].name: duplicate rendition name \"a\"",
        ])
    }
}
