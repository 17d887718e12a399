
/// Image formats Quire accepts, recognised from the bytes, never from a name or a declared type.
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg, png, webp, gif, heif, avif
}

/// What an image says about itself: size, orientation and the EXIF facts apps use.
public struct ImageInfo: Codable, Sendable, Equatable {
    public var format: ImageFormat
    /// As stored, before EXIF orientation.
    public var width: Int
    public var height: Int
    /// EXIF orientation 1–8 (1 when absent).
    public var orientation: Int
    /// `DateTimeOriginal` as ISO 8601 local time, with its offset when the file has one.
    public var takenAt: String?
    public var gps: GPS?
    public var camera: Camera?

    public struct GPS: Codable, Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double?
        public init(latitude: Double, longitude: Double, altitude: Double?) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }
    }

    public struct Camera: Codable, Sendable, Equatable {
        public var make: String?
        public var model: String?
        public init(make: String?, model: String?) {
            self.make = make
            self.model = model
        }
    }

    public init(format: ImageFormat, width: Int, height: Int, orientation: Int, takenAt: String?, gps: GPS?, camera: Camera?) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.takenAt = takenAt
        self.gps = gps
        self.camera = camera
    }
}

/// Limits applied before any pixel is decoded.
public struct MediaLimits: Sendable, Equatable {
    /// Largest upload accepted (AR Notebook's 10 MiB by default).
    public var maxBytes: Int
    /// Largest width × height accepted: refuses decompression bombs.
    public var maxPixels: Int

    public init(maxBytes: Int = 10 << 20, maxPixels: Int = 100_000_000) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
    }
}
