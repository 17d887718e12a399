public import Bus

/// Image formats Quire accepts, recognised from the bytes, never from a name or a declared type.
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg, png, webp, gif, heif, avif

    /// The media type to serve it with.
    public var mimeType: String { "image/\(rawValue)" }

    /// The format of an image from its first bytes (32 suffice), nil when it is none Quire reads.
    public static func sniff(_ head: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(head.prefix(32))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return .avif }
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heif }
        }
        return nil
    }
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
public struct MediaLimits: Codable, Sendable, Equatable {
    /// Largest upload accepted (AR Notebook's 10 MiB by default).
    public var maxBytes: Int
    /// Largest width × height accepted: refuses decompression bombs.
    public var maxPixels: Int

    public init(maxBytes: Int = 10 << 20, maxPixels: Int = 100_000_000) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
    }
}

/// An edit asked of an image: crop (pixels, in the image as seen), then rotate clockwise, then resize.
public struct ImageEdit: Codable, Sendable, Equatable {
    public struct Rect: Codable, Sendable, Equatable {
        public var x, y, width, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    public struct Size: Codable, Sendable, Equatable {
        public var width, height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// A part of the image in fractions of its width and height (0...1): what a crop frame over a
    /// picture of any size gives.
    public struct Fractions: Codable, Sendable, Equatable {
        public var x, y, width, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    public var crop: Rect?
    /// 0, 90, 180 or 270 degrees clockwise.
    public var rotate: Int
    public var resize: Size?
    /// Degrees clockwise, -45...45, applied first: the picture is turned and cropped to the largest
    /// rectangle of its own proportions inside it, so no empty corners show.
    public var straighten: Double?
    /// Applied after `rotate`, on the picture as it then looks.
    public var cropFractions: Fractions?

    public init(crop: Rect? = nil, rotate: Int = 0, resize: Size? = nil, straighten: Double? = nil, cropFractions: Fractions? = nil) {
        self.crop = crop
        self.rotate = rotate
        self.resize = resize
        self.straighten = straighten
        self.cropFractions = cropFractions
    }

    public func validate() throws(BusError) {
        guard [0, 90, 180, 270].contains(rotate) else {
            throw BusError.invalid("Rotate by 0, 90, 180 or 270 degrees.", field: "rotate")
        }
        // Bounded so that x + width cannot overflow: no image is 1,000,000 pixels on a side.
        if let crop, !(0...1_000_000).contains(crop.x) || !(0...1_000_000).contains(crop.y)
            || !(1...1_000_000).contains(crop.width) || !(1...1_000_000).contains(crop.height) {
            throw BusError.invalid("A crop has x and y from 0 and a width and height from 1, each at most 1000000 pixels.", field: "crop")
        }
        if let resize, !(1...10_000).contains(resize.width) || !(1...10_000).contains(resize.height) {
            throw BusError.invalid("A resize is 1 to 10000 pixels on each side.", field: "resize")
        }
        if let straighten, !straighten.isFinite || !(-45...45).contains(straighten) {
            throw BusError.invalid("Straighten by -45 to 45 degrees.", field: "straighten")
        }
        if let part = cropFractions {
            let values = [part.x, part.y, part.width, part.height]
            guard values.allSatisfy({ $0.isFinite }), part.x >= 0, part.y >= 0, part.width > 0, part.height > 0,
                  part.x + part.width <= 1.000001, part.y + part.height <= 1.000001 else {
                throw BusError.invalid("A crop is {x, y, width, height} in fractions of the picture: x and y from 0, width and height above 0, "
                                       + "and it stays inside the picture (x + width and y + height at most 1).", field: "crop")
            }
        }
    }
}
