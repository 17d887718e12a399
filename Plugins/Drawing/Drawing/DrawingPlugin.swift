public import AppConfig
public import Bus
import DrawingAPI
import Foundation
import MediaAPI
public import PluginKit
import StorageAPI

/// The `drawing` plugin: drawings kept as blobs, rendered with cairo, laid over images through media.
///
/// ```yaml
/// drawing: { width: 1024, height: 768, max_bytes: 8388608 }
/// ```
public struct DrawingPlugin: Plugin {
    public struct Config: Sendable {
        public var width: Int
        public var height: Int
        public var maxBytes: Int
        public var concurrency: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "drawing",
        summary: "Drawings (strokes with pressure, pen and eraser, texts) stored as blobs, rendered to PNG or SVG with cairo",
        dependencies: ["storage"],
        settings: [
            SettingDescription("width", "int 1...8192", default: "1024", "Canvas width when a render names no size"),
            SettingDescription("height", "int 1...8192", default: "768", "Canvas height when a render names no size"),
            SettingDescription("max_bytes", "int 1024...268435456", default: "8388608", "Largest drawing document (JSON) accepted"),
            SettingDescription("concurrency", "int 1...64", default: "cores", "Renders at once"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        Config(width: section.int("width", default: 1024, in: 1...DrawingLimits.maxCanvasSide),
               height: section.int("height", default: 768, in: 1...DrawingLimits.maxCanvasSide),
               maxBytes: section.int("max_bytes", default: 8 << 20, in: 1024...(256 << 20)),
               concurrency: section.int("concurrency", default: ProcessInfo.processInfo.activeProcessorCount, in: 1...64))
    }

    let service: DrawingService

    public init(config: Config, context: PluginContext) async throws {
        service = DrawingService(blobs: BusBlobStore(bus: context.bus), bus: context.bus, config: config,
                                 gate: BlockingGate(limit: config.concurrency, label: "quire.drawing"))
    }

    public static func features(for config: Config) -> [String] { ["drawings", "render:png", "render:svg"] }
    public var features: [String] { Self.features(for: service.config) }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(SaveDrawing.self) { request, _ in try await service.save(request.document) }
        try bus.handle(LoadDrawing.self) { request, _ in
            let bytes = try await service.canonical(request.sha256)
            return bytes.count <= BlobPayload.inlineLimit ? .inline(bytes) : .stored(BlobRef(sha256: request.sha256, size: bytes.count))
        }
        try bus.handle(RenderDrawing.self) { request, _ in try await service.render(request) }
        try bus.handle(GetDrawingLimits.self) { _, _ in .init(maxBytes: service.config.maxBytes) }
    }
}

struct DrawingService: Sendable {
    let blobs: any BlobStore
    let bus: any MessageBus
    let config: DrawingPlugin.Config
    let gate: BlockingGate

    /// Checks and keeps a drawing in canonical form. A document that came by reference is let go
    /// of once it is kept (or refused), unless it is that very blob.
    func save(_ document: BlobPayload) async throws(BusError) -> SavedDrawing {
        do {
            let saved = try await keep(document)
            if document.blob != saved.sha256 { await document.release(on: bus) }
            return saved
        } catch {
            await document.release(on: bus)
            throw error
        }
    }

    private func keep(_ document: BlobPayload) async throws(BusError) -> SavedDrawing {
        guard document.size <= config.maxBytes else {
            throw BusError(.tooLarge, "A drawing is limited to \(config.maxBytes) bytes of JSON; this one has \(document.size).")
        }
        let drawing: Drawing
        do {
            drawing = try JSONDecoder().decode(Drawing.self, from: try await document.bytes(from: blobs))
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError.invalid("The drawing is not a drawing document: \(error).", field: "drawing")
        }
        try drawing.validate()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes: Data
        do {
            bytes = try encoder.encode(drawing)
        } catch {
            throw BusError(.internal, "The drawing could not be encoded: \(error).")
        }
        guard bytes.count <= config.maxBytes else {
            throw BusError(.tooLarge, "A drawing is limited to \(config.maxBytes) bytes of JSON; this one has \(bytes.count).")
        }
        let blob = try await blobs.put(bytes)
        return SavedDrawing(sha256: blob.sha256, strokes: drawing.strokes.count, texts: drawing.texts.count)
    }

    /// A saved drawing's JSON, checked to read as a drawing.
    func canonical(_ sha256: String) async throws(BusError) -> Data {
        try await stored(sha256).bytes
    }

    func load(_ sha256: String) async throws(BusError) -> Drawing {
        try await stored(sha256).drawing
    }

    /// A saved drawing's bytes and what they read as.
    private func stored(_ sha256: String) async throws(BusError) -> (bytes: Data, drawing: Drawing) {
        let bytes = try await blobs.get(sha256)
        do {
            return (bytes, try JSONDecoder().decode(Drawing.self, from: bytes))
        } catch {
            throw BusError(.internal, "The stored drawing '\(sha256)' cannot be read: \(error).")
        }
    }

    func render(_ request: RenderDrawing) async throws(BusError) -> RenderedDrawing {
        let drawing = if let sha256 = request.sha256 { try await load(sha256) } else { Drawing.empty }
        if let over = request.over {
            guard request.format == .png else {
                throw BusError.invalid("A drawing laid over an image is rendered as PNG.", field: "format")
            }
            let size = try await bus.request(DescribeImage(sha256: over.sha256, rendition: over.rendition))
            let layer = try await gate.run { () throws(BusError) in
                try DrawingRenderer.render(drawing, width: size.width, height: size.height, as: .png)
            }
            let composite = try await bus.request(CompositeImage(sha256: over.sha256, rendition: over.rendition,
                                                                 overlay: try await BlobPayload.wrap(layer, in: blobs)), timeout: .seconds(30))
            return RenderedDrawing(format: .png, width: size.width, height: size.height, image: composite.image)
        }
        let width = request.width ?? config.width, height = request.height ?? config.height
        let output: DrawingRenderer.Output = request.format == .svg ? .svg : .png
        let bytes = try await gate.run { () throws(BusError) in
            try DrawingRenderer.render(drawing, width: width, height: height, as: output)
        }
        return RenderedDrawing(format: request.format, width: width, height: height, image: try await BlobPayload.wrap(bytes, in: blobs))
    }
}
