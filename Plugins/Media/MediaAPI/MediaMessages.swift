public import Bus
public import Foundation
public import StorageAPI

/// Checks an upload (byte limit, real format, pixel limit, readable), keeps the original bytes
/// unchanged as a blob, and answers what it is. Publishes ``ImageIngested``. Repeatable: an image
/// is named by its content, so a second intake of the same bytes is the first one again.
public struct IngestImage: BusRequest {
    public static let name: MessageName = "media.image.ingest.v1"
    public typealias Reply = IngestedImage
    public static var repeatable: Bool { true }
    /// The time an intake gets: a burst of 24-megapixel uploads queues for the decoders.
    public static let timeout: Duration = .seconds(30)
    public var owner: String
    /// The upload: inline when small, else a blob the caller put (``of(_:owner:geotagsItself:on:)``).
    public var image: BlobPayload
    /// The caller geotags what it makes of the image (an album photo), so the image itself is not
    /// geotagged from its EXIF as well: one place, listed once, gone with the photo.
    public var geotagsItself: Bool
    public init(owner: String, image: BlobPayload, geotagsItself: Bool = false) {
        self.owner = owner
        self.image = image
        self.geotagsItself = geotagsItself
    }

    /// The intake of an upload's bytes, put as a blob first when large (so that a media worker on
    /// another machine can take it).
    public static func of(_ bytes: Data, owner: String, geotagsItself: Bool = false, on bus: any MessageBus) async throws(BusError) -> IngestImage {
        IngestImage(owner: owner, image: try await BlobPayload.wrap(bytes, in: BusBlobStore(bus: bus)), geotagsItself: geotagsItself)
    }
}

public struct IngestedImage: Codable, Sendable, Equatable {
    /// SHA-256 of the original, its blob address.
    public var sha256: String
    public var size: Int
    public var info: ImageInfo
    public init(sha256: String, size: Int, info: ImageInfo) {
        self.sha256 = sha256
        self.size = size
        self.info = info
    }
}

/// A named rendition (declared in the app's YAML) of an ingested image, made once and cached.
/// The name ``original`` answers the original bytes as they were uploaded.
public struct RenderImage: BusRequest {
    public static let original = "original"
    public static let name: MessageName = "media.image.render.v1"
    public typealias Reply = RenderedImage
    public static var repeatable: Bool { true }
    public var sha256: String
    public var rendition: String
    public init(sha256: String, rendition: String) {
        self.sha256 = sha256
        self.rendition = rendition
    }
}

public struct RenderedImage: Codable, Sendable, Equatable {
    /// SHA-256 of the rendition's bytes (its own blob).
    public var sha256: String
    public var format: ImageFormat
    /// The bytes, inline when small, else by reference to the blob: read them with ``bytes(on:)``.
    public var image: BlobPayload
    public init(sha256: String, format: ImageFormat, image: BlobPayload) {
        self.sha256 = sha256
        self.format = format
        self.image = image
    }

    /// The image's bytes, from storage when they came by reference.
    public func bytes(on bus: any MessageBus) async throws(BusError) -> Data {
        try await image.bytes(from: BusBlobStore(bus: bus))
    }
}

/// Published after an image is ingested, so that geo and album can react without media knowing them.
public struct ImageIngested: BusEvent {
    public static let name: MessageName = "media.image.ingested.v1"
    public var owner: String
    public var image: IngestedImage
    /// See ``IngestImage/geotagsItself``.
    public var geotagsItself: Bool
    public init(owner: String, image: IngestedImage, geotagsItself: Bool = false) {
        self.owner = owner
        self.image = image
        self.geotagsItself = geotagsItself
    }
}

/// The mean colour of an image (a camera frame), measured without storing it.
public struct MeasureColour: BusRequest {
    public static let name: MessageName = "media.image.measure-colour.v1"
    public typealias Reply = MeanColour
    public static var repeatable: Bool { true }
    /// The frame: inline when small, else a blob (collected after storage's grace, held by nothing).
    public var frame: BlobPayload
    public init(frame: BlobPayload) { self.frame = frame }

    public static func of(_ bytes: Data, on bus: any MessageBus) async throws(BusError) -> MeasureColour {
        MeasureColour(frame: try await BlobPayload.wrap(bytes, in: BusBlobStore(bus: bus)))
    }
}

/// Mean sRGB components, each 0...1 (gamma-encoded, as stored).
public struct MeanColour: Codable, Sendable, Equatable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

/// The limits intake applies, so that a route can refuse an oversized body before reading it.
public struct GetMediaLimits: BusRequest {
    public static let name: MessageName = "media.limits.get.v1"
    public typealias Reply = MediaLimits
    public static var repeatable: Bool { true }
    /// Quick: answered from the plugin's configuration, read once at start.
    public static var quick: Bool { true }
    public init() {}
}

/// Crops, rotates and/or resizes an ingested image into a new one (its own blob, the original
/// untouched), answered like an intake.
public struct EditImage: BusRequest {
    public static let name: MessageName = "media.image.edit.v1"
    public typealias Reply = IngestedImage
    public static var repeatable: Bool { true }
    public var owner: String
    public var sha256: String
    public var edit: ImageEdit
    /// See ``IngestImage/geotagsItself``.
    public var geotagsItself: Bool
    public init(owner: String, sha256: String, edit: ImageEdit, geotagsItself: Bool = false) {
        self.owner = owner
        self.sha256 = sha256
        self.edit = edit
        self.geotagsItself = geotagsItself
    }
}

/// The size an image is seen at (EXIF orientation applied) — the original's, or a rendition's.
public struct DescribeImage: BusRequest {
    public static let name: MessageName = "media.image.describe.v1"
    public static var repeatable: Bool { true }
    public struct Reply: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }
    public var sha256: String
    /// A declared rendition's name; nil for the original.
    public var rendition: String?
    public init(sha256: String, rendition: String? = nil) {
        self.sha256 = sha256
        self.rendition = rendition
    }
}

/// An image (original or rendition) with a transparent PNG laid over it, as a new PNG. The overlay
/// is the image's size as ``DescribeImage`` answers it.
public struct CompositeImage: BusRequest {
    public static let name: MessageName = "media.image.composite.v1"
    public typealias Reply = RenderedImage
    public static var repeatable: Bool { true }
    public var sha256: String
    public var rendition: String?
    /// The overlay PNG, inline when small, else a blob.
    public var overlay: BlobPayload
    public init(sha256: String, rendition: String? = nil, overlay: BlobPayload) {
        self.sha256 = sha256
        self.rendition = rendition
        self.overlay = overlay
    }
}

/// Every media message, for name checks.
public enum MediaMessages {
    public static let all: [any BusMessage.Type] = [
        IngestImage.self, RenderImage.self, ImageIngested.self, GetMediaLimits.self, EditImage.self, DescribeImage.self,
        CompositeImage.self, MeasureColour.self,
    ]
}
