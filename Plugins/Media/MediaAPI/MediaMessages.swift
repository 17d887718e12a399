public import Bus
public import Foundation

/// Checks an upload (byte limit, real format, pixel limit, readable), keeps the original bytes
/// unchanged as a blob, and answers what it is. Publishes ``ImageIngested``.
public struct IngestImage: BusRequest {
    public static let name: MessageName = "media.image.ingest.v1"
    public typealias Reply = IngestedImage
    public var owner: String
    public var bytes: Data
    public init(owner: String, bytes: Data) {
        self.owner = owner
        self.bytes = bytes
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
public struct RenderImage: BusRequest {
    public static let name: MessageName = "media.image.render.v1"
    public typealias Reply = RenderedImage
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
    public var bytes: Data
    public init(sha256: String, format: ImageFormat, bytes: Data) {
        self.sha256 = sha256
        self.format = format
        self.bytes = bytes
    }
}

/// Published after an image is ingested, so that geo and album can react without media knowing them.
public struct ImageIngested: BusEvent {
    public static let name: MessageName = "media.image.ingested.v1"
    public var owner: String
    public var image: IngestedImage
    public init(owner: String, image: IngestedImage) {
        self.owner = owner
        self.image = image
    }
}

/// Every media message, for name checks.
public enum MediaMessages {
    public static let all: [any BusMessage.Type] = [IngestImage.self, RenderImage.self, ImageIngested.self]
}
