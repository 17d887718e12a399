public import AppConfig
public import Bus
import Foundation
import Logging
public import MediaAPI
public import PluginKit
import StorageAPI
public import ServiceLifecycle

/// The `media` plugin: image intake and renditions, on libvips.
///
/// ```yaml
/// media:
///   max_upload_bytes: 10485760
///   renditions:
///     - { name: list, width: 44, height: 44, fit: cover }
///     - { name: display, width: 1024, height: 1024, fit: contain, format: webp, quality: 80 }
/// ```
public struct MediaPlugin: Plugin {
    public struct Rendition: Sendable, Equatable {
        public var name: String
        public var width: Int
        public var height: Int
        public var fit: Thumbnailer.Fit
        public var format: Thumbnailer.Output
        public var quality: Int

        /// What the cache key of a rendition depends on.
        var signature: String { "\(width)x\(height)-\(fit.rawValue)-\(format.rawValue)-q\(quality)" }
    }

    public struct Config: Sendable {
        public var limits: MediaLimits
        public var renditions: [Rendition]
        public var concurrency: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "media",
        summary: "Image intake (real format, size and pixel limits, EXIF) and cached renditions, on libvips",
        dependencies: ["storage"],
        settings: [
            SettingDescription("max_upload_bytes", "int 1...1073741824", default: "10485760", "Largest upload; larger is refused with 413 before decoding"),
            SettingDescription("max_pixels", "int 1...1000000000", default: "100000000", "Largest width × height; refuses decompression bombs"),
            SettingDescription("renditions", "list of {name, width, height, fit: cover | contain, format: jpeg | webp | png, quality}", default: "[]",
                               "Named renditions clients may ask for"),
            SettingDescription("concurrency", "int 1...64", default: "cores", "Images decoded at once; bounds memory under a burst of uploads"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        var renditions: [Rendition] = []
        for item in section.sectionList("renditions") {
            let name = item.requiredString("name")
            if renditions.contains(where: { $0.name == name }) { item.report("name", "duplicate rendition name \"\(name)\"") }
            if name == RenderImage.original { item.report("name", "\"original\" is the uploaded image itself; pick another name") }
            renditions.append(Rendition(
                name: name,
                width: item.int("width", default: 256, in: 1...10_000),
                height: item.int("height", default: 256, in: 1...10_000),
                fit: Thumbnailer.Fit(rawValue: item.choice("fit", ["cover", "contain"], default: "contain")) ?? .contain,
                format: Thumbnailer.Output(rawValue: item.choice("format", ["jpeg", "webp", "png"], default: "jpeg")) ?? .jpeg,
                quality: item.int("quality", default: 82, in: 1...100)))
        }
        return Config(
            limits: MediaLimits(maxBytes: section.int("max_upload_bytes", default: 10 << 20, in: 1...(1 << 30)),
                                maxPixels: section.int("max_pixels", default: 100_000_000, in: 1...1_000_000_000)),
            renditions: renditions,
            concurrency: section.int("concurrency", default: ProcessInfo.processInfo.activeProcessorCount, in: 1...64))
    }

    let service: MediaService
    let deleted: EventSubscription<BlobDeleted>

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        try await store.declare(MediaService.renditionsSchema)
        service = MediaService(records: store, blobs: BusBlobStore(bus: context.bus), bus: context.bus, config: config,
                               gate: BlockingGate(limit: config.concurrency, label: "quire.media"))
        deleted = context.bus.subscribe(to: BlobDeleted.self)
    }

    public static func features(for config: Config) -> [String] { ["images"] + config.renditions.map { "rendition:\($0.name)" } }
    public var features: [String] { Self.features(for: service.config) }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(IngestImage.self) { request, _ in
            try await service.ingest(request.image, owner: request.owner, geotagsItself: request.geotagsItself)
        }
        try bus.handle(RenderImage.self) { request, _ in try await service.render(request.sha256, rendition: request.rendition) }
        try bus.handle(GetMediaLimits.self) { _, _ in service.config.limits }
        try bus.handle(MeasureColour.self) { request, _ in try await service.measureColour(request.frame) }
        try bus.handle(EditImage.self) { request, _ in
            try await service.edit(request.sha256, request.edit, owner: request.owner, geotagsItself: request.geotagsItself)
        }
        try bus.handle(DescribeImage.self) { request, _ in try await service.describe(request.sha256, rendition: request.rendition) }
        try bus.handle(CompositeImage.self) { request, _ in
            try await service.composite(request.sha256, rendition: request.rendition, overlay: request.overlay)
        }
    }

    public var services: [any Service] { [RenditionJanitor(service: service, deleted: deleted)] }

    /// Other plugins name renditions in their settings (share-link's `rendition`).
    public static func declaredNames(_ config: Config) -> [String: Set<String>] {
        ["rendition": Set(config.renditions.map(\.name))]
    }
}

/// When storage deletes an original, its renditions' cache records go too.
struct RenditionJanitor: Service {
    let service: MediaService
    let deleted: EventSubscription<BlobDeleted>

    func run() async throws {
        for await event in deleted.cancelOnGracefulShutdown() {
            await service.forget(source: event.sha256)
        }
    }
}
