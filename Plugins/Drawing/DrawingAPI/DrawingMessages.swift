public import Bus
public import Foundation
public import StorageAPI

/// Validates a drawing and stores it as a blob (canonical JSON, so the same drawing is one blob).
/// The caller's record holds the blob through a blob field (see storage's `blobFields`); clearing
/// a drawing is setting that field to null.
public struct SaveDrawing: BusRequest {
    public static let name: MessageName = "drawing.save.v1"
    public typealias Reply = SavedDrawing
    public static var repeatable: Bool { true }
    /// The drawing's JSON: inline when small, else a blob the caller put (a drawing may be 8 MB).
    public var document: BlobPayload
    public init(document: BlobPayload) { self.document = document }

    public static func of(_ drawing: Drawing, on bus: any MessageBus) async throws(BusError) -> SaveDrawing {
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(drawing)
        } catch {
            throw BusError(.internal, "The drawing could not be encoded: \(error).")
        }
        return SaveDrawing(document: try await BlobPayload.wrap(bytes, in: BusBlobStore(bus: bus)))
    }
}

public struct SavedDrawing: Codable, Sendable, Equatable {
    public var sha256: String
    public var strokes: Int
    public var texts: Int
    public init(sha256: String, strokes: Int, texts: Int) {
        self.sha256 = sha256
        self.strokes = strokes
        self.texts = texts
    }
}

/// A saved drawing's JSON, checked: inline when small, else by reference to its blob.
public struct LoadDrawing: BusRequest {
    public static let name: MessageName = "drawing.load.v1"
    public typealias Reply = BlobPayload
    public static var repeatable: Bool { true }
    public var sha256: String
    public init(sha256: String) { self.sha256 = sha256 }

    /// The drawing saved as `sha256`.
    public static func drawing(_ sha256: String, on bus: any MessageBus) async throws(BusError) -> Drawing {
        let bytes = try await bus.request(LoadDrawing(sha256: sha256)).bytes(from: BusBlobStore(bus: bus))
        do {
            return try JSONDecoder().decode(Drawing.self, from: bytes)
        } catch {
            throw BusError(.internal, "The stored drawing '\(sha256)' cannot be read: \(error).")
        }
    }
}

/// Renders a saved drawing (nil: the empty one) as PNG or SVG — alone at a size, or laid over an
/// image (an original or a rendition, through media) at that image's size as a separate layer.
public struct RenderDrawing: BusRequest {
    public static let name: MessageName = "drawing.render.v1"
    public typealias Reply = RenderedDrawing
    public static var repeatable: Bool { true }

    public enum Format: String, Codable, Sendable, CaseIterable { case png, svg }

    public struct Over: Codable, Sendable, Equatable {
        public var sha256: String
        public var rendition: String?
        public init(sha256: String, rendition: String?) {
            self.sha256 = sha256
            self.rendition = rendition
        }
    }

    public var sha256: String?
    public var format: Format
    /// The canvas; nil for the plugin's default size (ignored when `over` is set).
    public var width: Int?
    public var height: Int?
    public var over: Over?

    public init(sha256: String?, format: Format = .png, width: Int? = nil, height: Int? = nil, over: Over? = nil) {
        self.sha256 = sha256
        self.format = format
        self.width = width
        self.height = height
        self.over = over
    }
}

public struct RenderedDrawing: Codable, Sendable, Equatable {
    public var format: RenderDrawing.Format
    public var width: Int
    public var height: Int
    /// The bytes, inline when small, else by reference to a blob: read them with ``bytes(on:)``.
    public var image: BlobPayload
    public init(format: RenderDrawing.Format, width: Int, height: Int, image: BlobPayload) {
        self.format = format
        self.width = width
        self.height = height
        self.image = image
    }

    public func bytes(on bus: any MessageBus) async throws(BusError) -> Data {
        try await image.bytes(from: BusBlobStore(bus: bus))
    }
}

/// The largest drawing document the plugin accepts, so a route can cap the body it reads.
public struct GetDrawingLimits: BusRequest {
    public static let name: MessageName = "drawing.limits.get.v1"
    public static var repeatable: Bool { true }
    /// Quick: answered from the plugin's configuration, read once at start.
    public static var quick: Bool { true }
    public struct Reply: Codable, Sendable, Equatable {
        public var maxBytes: Int
        public init(maxBytes: Int) { self.maxBytes = maxBytes }
    }
    public init() {}
}

/// Every drawing message, for name checks.
public enum DrawingMessages {
    public static let all: [any BusMessage.Type] = [SaveDrawing.self, LoadDrawing.self, RenderDrawing.self, GetDrawingLimits.self]
}
