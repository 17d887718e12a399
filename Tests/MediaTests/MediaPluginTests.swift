import AppConfig
import Bus
import BusInProcess
import BusTestKit
import Foundation
import Logging
import Media
import MediaAPI
import PluginKit
import Storage
import StorageAPI
import ServiceLifecycle
import Testing

/// The media plugin on a real in-process bus, with in-memory storage behind it.
struct MediaHarness {
    let bus: PatientBus
    let blobs = InMemoryBlobStore()
    let records = InMemoryRecordStore()
    let plugin: MediaPlugin

    /// - Parameter crossing: every media message through JSON with NATS' 1 MB limit, as between a
    ///   web node and a media worker; storage's blob messages stay in the process, as on a node.
    init(yaml: String = "renditions: [{ name: list, width: 44, height: 44, fit: cover }, { name: display, width: 300, height: 300, format: webp }]",
         crossing: Bool = false) async throws {
        bus = PatientBus(wrapping: crossing ? EncodingBus(sameProcess: [PutBlob.name, GetBlob.name]) : InProcessBus())
        let collector = BlobCollector(holds: records, blobs: blobs, bus: bus, grace: 0, logger: Logger(label: "test"))
        try StoragePlugin.register(records: records, blobs: blobs, collector: collector, on: bus)
        let root = try YAMLLoader.parse("app: t\nplugins:\n  media: \(yaml.isEmpty ? "{}" : "{ \(yaml) }")\n", file: "t.yaml")
        let config = AppConfig(root: root, environment: [:])
        let media = MediaPlugin.configure(config.plugins[0].section)
        try config.reader.finish()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        plugin = try await MediaPlugin(config: media, context: PluginContext(appName: "t", bus: bus, logger: logger))
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
        let image = try await harness.bus.request(try await IngestImage.of(photo, owner: "ada", on: harness.bus))
        #expect(image.info.width == 640 && image.info.format == .jpeg)
        #expect(try await harness.blobs.get(image.sha256) == photo, "the original, byte for byte")
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event?.owner == "ada" && event?.image == image)
    }

    @Test("an upload over the bus' limit goes to media by blob reference, and its renditions come back the same way")
    func largeUploadByReference() async throws {
        let harness = try await MediaHarness(yaml: "max_upload_bytes: 20000000, renditions: [{ name: big, width: 3000, height: 3000, format: png }]",
                                             crossing: true)
        let photo = try Fixtures().noise("large.png", width: 1600, height: 1200)
        try #require(photo.count > EncodingBus.defaultLimit, "the fixture must be over NATS' limit to prove anything")
        let request = try await IngestImage.of(photo, owner: "ada", on: harness.bus)
        #expect(request.image.data == nil && request.image.blob == BlobRef.of(photo).sha256, "sent by reference")
        let image = try await harness.bus.request(request)
        #expect(image.info.width == 1600 && image.sha256 == BlobRef.of(photo).sha256)
        let original = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: RenderImage.original))
        #expect(original.image.data == nil, "the original comes back by reference too")
        #expect(try await original.bytes(on: harness.bus) == photo)
        let big = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: "big"))
        #expect(try ImageInspector.inspect(try await big.bytes(on: harness.bus)).width == 1600)
        // Inline bytes that big would not cross.
        await #expect(throws: BusError.self) {
            _ = try await harness.bus.request(IngestImage(owner: "ada", image: .inline(photo)))
        }
        // Refused by reference: the blob it came in goes too.
        let junk = Data(repeating: 7, count: 400_000)
        let refused = try await IngestImage.of(junk, owner: "ada", on: harness.bus)
        #expect(refused.image.blob != nil)
        #expect(try await harness.blobs.stat(BlobRef.of(junk).sha256) != nil)
        await #expect(throws: BusError.self) { _ = try await harness.bus.request(refused) }
        #expect(try await harness.blobs.stat(BlobRef.of(junk).sha256) == nil, "a refused upload leaves no blob")
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
        await #expect(throws: BusError.self) { try await harness.bus.request(try await IngestImage.of(bytes, owner: "ada", on: harness.bus)) }
        #expect(try await harness.blobs.stat(BlobRef.of(bytes).sha256) == nil)
    }

    @Test("a rendition is made once, then served from its cache even if the original is gone")
    func renditionCache() async throws {
        let harness = try await MediaHarness()
        let fixtures = try Fixtures()
        let image = try await harness.bus.request(try await IngestImage.of(try fixtures.image("p.jpg", width: 640, height: 480), owner: "ada", on: harness.bus))
        let first = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: "list"))
        let info = try ImageInspector.inspect(try await first.bytes(on: harness.bus))
        #expect(info.width == 44 && info.height == 44 && first.format == .jpeg)
        try await harness.blobs.delete(image.sha256)
        let again = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: "list"))
        #expect(again == first)
        let display = try await harness.bus.request(RenderImage(sha256: first.sha256, rendition: "display"))
        #expect(display.format == .webp)
    }

    @Test("edit: crop, then rotate, then resize make a new image; the original is untouched")
    func edit() async throws {
        let harness = try await MediaHarness()
        let photo = try Fixtures().image("p.png", width: 640, height: 480)
        let image = try await harness.bus.request(try await IngestImage.of(photo, owner: "ada", on: harness.bus))
        let edit = ImageEdit(crop: .init(x: 100, y: 50, width: 300, height: 200), rotate: 90, resize: .init(width: 100, height: 150))
        let edited = try await harness.bus.request(EditImage(owner: "ada", sha256: image.sha256, edit: edit))
        #expect(edited.info.width == 100 && edited.info.height == 150 && edited.info.format == .png)
        #expect(edited.sha256 != image.sha256)
        #expect(try await harness.blobs.get(image.sha256) == photo)
        let rotatedOnly = try await harness.bus.request(EditImage(owner: "ada", sha256: image.sha256, edit: ImageEdit(rotate: 270)))
        #expect(rotatedOnly.info.width == 480 && rotatedOnly.info.height == 640)
        await #expect(throws: BusError.self) {
            try await harness.bus.request(EditImage(owner: "ada", sha256: image.sha256,
                                                    edit: ImageEdit(crop: .init(x: 600, y: 0, width: 100, height: 10))))
        }
        await #expect(throws: BusError.self) {
            try await harness.bus.request(EditImage(owner: "ada", sha256: image.sha256, edit: ImageEdit(rotate: 45)))
        }
    }

    @Test("describe gives the size a rendition is seen at; composite lays an overlay of that size over it")
    func describeAndComposite() async throws {
        let harness = try await MediaHarness()
        let image = try await harness.bus.request(try await IngestImage.of(try Fixtures().image("p.jpg", width: 640, height: 480), owner: "ada", on: harness.bus))
        let size = try await harness.bus.request(DescribeImage(sha256: image.sha256, rendition: "display"))
        #expect(size == .init(width: 300, height: 225))
        #expect(try await harness.bus.request(DescribeImage(sha256: image.sha256)) == .init(width: 640, height: 480))
        let overlay = try Fixtures().image("o.png", width: 300, height: 225)
        let composite = try await harness.bus.request(CompositeImage(sha256: image.sha256, rendition: "display", overlay: .inline(overlay)))
        let info = try ImageInspector.inspect(try await composite.bytes(on: harness.bus))
        #expect(info.format == .png && info.width == 300 && info.height == 225)
    }

    @Test("when storage deletes an original, its renditions and their blobs go too")
    func renditionsFollowTheOriginal() async throws {
        let harness = try await MediaHarness()
        let janitor = Task { for service in harness.plugin.services { try await service.run() } }
        defer { janitor.cancel() }
        let store = BusRecordStore(bus: harness.bus)
        try await store.declare(CollectionSchema(name: "t.holders", blobFields: ["photo"]))
        let image = try await harness.bus.request(try await IngestImage.of(try Fixtures().image("p.jpg", width: 640, height: 480), owner: "ada", on: harness.bus))
        _ = try await store.insert(["photo": image.sha256], into: "t.holders", id: "h", owner: "ada")
        let thumbnail = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: "list"))
        #expect(try await harness.blobs.stat(thumbnail.sha256) != nil)
        try await store.delete(from: "t.holders", id: "h", owner: "ada")
        #expect(try await harness.blobs.stat(image.sha256) == nil, "the original: deleted with its last holder")
        var waited = 0
        while try await harness.blobs.stat(thumbnail.sha256) != nil, waited < 200 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(try await harness.blobs.stat(thumbnail.sha256) == nil, "the thumbnail followed")
        let left = try await harness.records.query(RecordQuery(collection: "media.renditions", owner: nil))
        #expect(left.records.isEmpty)
    }

    @Test("an unknown rendition names the ones the app declares")
    func unknownRendition() async throws {
        let harness = try await MediaHarness()
        do {
            _ = try await harness.bus.request(RenderImage(sha256: String(repeating: "0", count: 64), rendition: "huge"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message.contains("original, list, display"))
        }
    }

    @Test("the rendition 'original' is the uploaded bytes with their real format")
    func original() async throws {
        let harness = try await MediaHarness()
        let photo = try Fixtures().image("p.webp", width: 64, height: 48)
        let image = try await harness.bus.request(try await IngestImage.of(photo, owner: "ada", on: harness.bus))
        let original = try await harness.bus.request(RenderImage(sha256: image.sha256, rendition: RenderImage.original))
        #expect(try await original.bytes(on: harness.bus) == photo && original.format == .webp && original.format.mimeType == "image/webp")
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
