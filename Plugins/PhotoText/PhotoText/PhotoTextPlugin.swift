public import AppConfig
public import Bus
import Foundation
public import PhotoTextAPI
public import PluginKit
import StorageAPI

/// The `photo-text` plugin: the text in a photo, recognised on the server by Tesseract (Debian's
/// `libtesseract-dev`, and `tesseract-ocr-<lang>` for each language). Napkin Notes reads its notes'
/// photos with it (`notes: { photo_text: true }`), as a background job.
///
/// ```yaml
/// photo-text: { languages: [eng] }
/// ```
public struct PhotoTextPlugin: Plugin {
    public struct Config: Sendable {
        public var languages: [String]
        /// Where the trained data is; nil: Tesseract's own place (or `TESSDATA_PREFIX`).
        public var dataPath: String?
        public var maxPixels: Int
        public var concurrency: Int

        public init(languages: [String] = ["eng"], dataPath: String? = nil, maxPixels: Int = 40_000_000, concurrency: Int = 1) {
            self.languages = languages
            self.dataPath = dataPath
            self.maxPixels = maxPixels
            self.concurrency = concurrency
        }
    }

    public static let descriptor = PluginDescriptor(
        id: "photo-text",
        summary: "The text in photos, recognised on the server by Tesseract (libtesseract), in the configured languages",
        dependencies: ["storage"],
        settings: [
            SettingDescription("languages", "list of Tesseract language codes", default: "[eng]",
                               "Languages the text is read in (each needs Debian's tesseract-ocr-<code>, e.g. tesseract-ocr-deu)"),
            SettingDescription("data_path", "directory", default: "Tesseract's own",
                               "Where the languages' .traineddata files are (Debian: /usr/share/tesseract-ocr/5/tessdata)"),
            SettingDescription("max_pixels", "int 1...200000000", default: "40000000",
                               "Largest photo read, in pixels (from its header, before decoding); larger ones are not read"),
            SettingDescription("concurrency", "int 1...64", default: "1", "Photos read at once (each takes a core while it runs)"),
        ])

    /// Where Debian's packages put the trained data.
    public static let debianDataPath = "/usr/share/tesseract-ocr/5/tessdata"

    public static func configure(_ section: ConfigSection) -> Config {
        let languages = section.stringList("languages", default: ["eng"])
        let dataPath = section.string("data_path").flatMap { $0.isEmpty ? nil : $0 }
        if languages.isEmpty { section.report("languages", "name at least one language, e.g. [eng]") }
        let lookIn = dataPath ?? ProcessInfo.processInfo.environment["TESSDATA_PREFIX"] ?? debianDataPath
        for language in languages {
            guard !language.isEmpty, language.utf8.allSatisfy({ (97...122).contains($0) || $0 == 95 || (48...57).contains($0) }) else {
                section.report("languages", "\"\(language)\" is not a Tesseract language code such as eng, deu or chi_sim")
                continue
            }
            if !FileManager.default.fileExists(atPath: "\(lookIn)/\(language).traineddata") {
                section.report("languages", "no trained data for \"\(language)\" in \(lookIn); install it: apt-get install tesseract-ocr-\(language.replacingOccurrences(of: "_", with: "-"))")
            }
        }
        return Config(languages: languages, dataPath: dataPath, maxPixels: section.int("max_pixels", default: 40_000_000, in: 1...200_000_000),
                      concurrency: section.int("concurrency", default: 1, in: 1...64))
    }

    let service: PhotoTextService

    public init(config: Config, context: PluginContext) async throws {
        service = PhotoTextService(blobs: BusBlobStore(bus: context.bus), config: config,
                                   gate: BlockingGate(limit: config.concurrency, label: "quire.photo-text"))
    }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(RecognisePhotoText.self) { request, _ in try await service.recognise(request) }
        try bus.handle(GetPhotoTextSettings.self) { _, _ in
            PhotoTextSettings(languages: service.config.languages, maxPixels: service.config.maxPixels)
        }
    }
}

/// Reads the image's blob and has Tesseract read it, off the cooperative pool.
public struct PhotoTextService: Sendable {
    let blobs: any BlobStore
    public let config: PhotoTextPlugin.Config
    let gate: BlockingGate

    public init(blobs: any BlobStore, config: PhotoTextPlugin.Config, gate: BlockingGate) {
        self.blobs = blobs
        self.config = config
        self.gate = gate
    }

    public func recognise(_ request: RecognisePhotoText) async throws(BusError) -> RecognisedPhotoText {
        let bytes: Data
        do {
            bytes = try await blobs.get(request.sha256)
        } catch {
            throw BusError(.notFound, "The photo to read is not in storage any more (\(error.message)); upload it again.")
        }
        let config = self.config
        return try await gate.run { () throws(BusError) -> RecognisedPhotoText in
            try Tesseract.recognise(bytes, orientation: request.orientation, languages: config.languages, dataPath: config.dataPath,
                                    maxPixels: config.maxPixels)
        }
    }
}
