import AppConfig
import Bus
import BusInProcess
import BusTestKit
import Drawing
import DrawingAPI
import Foundation
import Logging
import Media
import MediaAPI
import PluginKit
import Storage
import StorageAPI
import Testing

/// The drawing plugin on an in-process bus, with storage and media behind it as an app runs them.
@Suite("Drawing plugin")
struct DrawingPluginTests {
    let bus = PatientBus(wrapping: InProcessBus())
    let blobs = InMemoryBlobStore()

    init() async throws {
        try StoragePlugin.register(records: InMemoryRecordStore(), blobs: blobs, on: bus)
        let root = try YAMLLoader.parse("""
            app: t
            plugins:
              media: { renditions: [{ name: display, width: 320, height: 320 }] }
              drawing: { width: 200, height: 100, max_bytes: 2048 }
            """, file: "t.yaml")
        let config = AppConfig(root: root, environment: [:])
        let media = MediaPlugin.configure(config.plugins[0].section)
        let drawing = DrawingPlugin.configure(config.plugins[1].section)
        try config.reader.finish()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let context = PluginContext(appName: "t", bus: bus, logger: logger)
        try await MediaPlugin(config: media, context: context).register(on: bus)
        try await DrawingPlugin(config: drawing, context: context).register(on: bus)
    }

    let sketch = Drawing(strokes: [.init(color: "#ff0000", width: 0.05, points: [.init(x: 0.1, y: 0.5), .init(x: 0.9, y: 0.5)])],
                         texts: [.init(text: "hello", x: 0.1, y: 0.3)])

    @Test("save stores one blob per distinct drawing; load gives it back")
    func saveLoad() async throws {
        let saved = try await bus.request(try await SaveDrawing.of(sketch, on: bus))
        #expect(saved.strokes == 1 && saved.texts == 1)
        #expect(try await bus.request(try await SaveDrawing.of(sketch, on: bus)) == saved, "same drawing, same blob")
        #expect(try await LoadDrawing.drawing(saved.sha256, on: bus) == sketch)
    }

    @Test("an invalid or oversized drawing is refused and stores nothing")
    func refused() async throws {
        let bad = Drawing(strokes: [.init(width: 2, points: [.init(x: 0, y: 0)])])
        await #expect(throws: BusError.self) { try await bus.request(try await SaveDrawing.of(bad, on: bus)) }
        let long = Drawing(texts: (0..<40).map { .init(text: "a long annotation \($0)", x: 0.1, y: 0.1) })
        do {
            _ = try await bus.request(try await SaveDrawing.of(long, on: bus))
            Issue.record("a drawing over max_bytes was saved")
        } catch {
            #expect(error.code == .tooLarge)
        }
        #expect(try await blobs.blobs(putBefore: Date().addingTimeInterval(60)).isEmpty)
    }

    @Test("render: the default size, a requested size, SVG, and the empty drawing for none")
    func render() async throws {
        let saved = try await bus.request(try await SaveDrawing.of(sketch, on: bus))
        let png = try await bus.request(RenderDrawing(sha256: saved.sha256))
        #expect(png.width == 200 && png.height == 100)
        #expect(try Pixels(png: try await png.bytes(on: bus)).alpha(100, 50) == 255)
        let large = try await bus.request(RenderDrawing(sha256: saved.sha256, width: 800, height: 600))
        #expect(try Pixels(png: try await large.bytes(on: bus)).width == 800)
        let svg = try await bus.request(RenderDrawing(sha256: saved.sha256, format: .svg))
        #expect(String(decoding: try await svg.bytes(on: bus), as: UTF8.self).contains("<svg"))
        #expect(try Pixels(png: try await bus.request(RenderDrawing(sha256: nil)).bytes(on: bus)).isBlank)
    }

    @Test("a drawing's aspect is saved with it, and the plugin's renders keep it: a circle is a circle at any size")
    func aspect() async throws {
        let circle = DrawingTests.circle(on: (358, 506), steps: 36)  // within the test's max_bytes
        let saved = try await bus.request(try await SaveDrawing.of(circle, on: bus))
        #expect(try await LoadDrawing.drawing(saved.sha256, on: bus) == circle)
        for (width, height) in [(nil, nil), (844, 390)] as [(Int?, Int?)] {
            let png = try await bus.request(RenderDrawing(sha256: saved.sha256, width: width, height: height))
            let (minX, minY, maxX, maxY) = DrawingTests.box(try Pixels(png: try await png.bytes(on: bus)))
            #expect(abs((maxX - minX) - (maxY - minY)) <= 2, "square at \(png.width)×\(png.height): \((minX, minY, maxX, maxY))")
        }
    }

    @Test("render over an image's rendition: a new PNG at the rendition's size; the original is untouched")
    func over() async throws {
        let photo = try PhotoFixture().rotatedPhoto()
        let image = try await bus.request(try await IngestImage.of(photo, owner: "ada", on: bus))
        let saved = try await bus.request(try await SaveDrawing.of(sketch, on: bus))
        let result = try await bus.request(RenderDrawing(sha256: saved.sha256, over: .init(sha256: image.sha256, rendition: "display")))
        let info = try ImageInspector.inspect(try await result.bytes(on: bus))
        #expect(info.format == .png && info.width == 240 && info.height == 320, "the display rendition, orientation applied")
        #expect(try await blobs.get(image.sha256) == photo)
        await #expect(throws: BusError.self) {
            try await bus.request(RenderDrawing(sha256: saved.sha256, format: .svg, over: .init(sha256: image.sha256, rendition: nil)))
        }
    }
}
