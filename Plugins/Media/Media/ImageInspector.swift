public import Bus
import CVips
public import Foundation
public import MediaAPI

/// Reads an image's format, size and EXIF without decoding its pixels, refusing what is too big,
/// too many pixels, not an image or unreadable — each with a sentence saying which.
public enum ImageInspector {
    public static func inspect(_ bytes: Data, limits: MediaLimits = MediaLimits()) throws(BusError) -> ImageInfo {
        let (format, image) = try open(bytes, limits: limits)
        let make = image.string("exif-ifd0-Make"), model = image.string("exif-ifd0-Model")
        return ImageInfo(
            format: format, width: image.width, height: image.height,
            orientation: image.int("orientation").flatMap { (1...8).contains($0) ? $0 : nil } ?? 1,
            takenAt: takenAt(image), gps: gps(image),
            camera: make == nil && model == nil ? nil : ImageInfo.Camera(make: make, model: model))
    }

    /// Checks size, format and pixel count, and opens the image header.
    /// Checks the limits, then decodes every pixel once: a file whose header reads but whose data is
    /// damaged is refused here, at intake, not when someone first views it.
    public static func verify(_ bytes: Data, limits: MediaLimits = MediaLimits()) throws(BusError) -> ImageInfo {
        let info = try inspect(bytes, limits: limits)
        let status = bytes.withUnsafeBytes { quire_vips_decode_all($0.baseAddress, $0.count) }
        guard status == 0 else {
            throw BusError.invalid("The \(info.format.rawValue.uppercased()) image is damaged: \(Vips.lastError()).")
        }
        return info
    }

    /// ``inspect(_:limits:)`` of an image file, read by libvips from the file (never whole in memory).
    public static func inspect(file path: URL, limits: MediaLimits = MediaLimits()) throws(BusError) -> ImageInfo {
        let (format, image) = try open(file: path, limits: limits)
        let make = image.string("exif-ifd0-Make"), model = image.string("exif-ifd0-Model")
        return ImageInfo(
            format: format, width: image.width, height: image.height,
            orientation: image.int("orientation").flatMap { (1...8).contains($0) ? $0 : nil } ?? 1,
            takenAt: takenAt(image), gps: gps(image),
            camera: make == nil && model == nil ? nil : ImageInfo.Camera(make: make, model: model))
    }

    /// ``verify(_:limits:)`` of an image file: the limits, then every pixel decoded once, streaming.
    public static func verify(file path: URL, limits: MediaLimits = MediaLimits()) throws(BusError) -> ImageInfo {
        let info = try inspect(file: path, limits: limits)
        guard quire_vips_decode_all_file(path.path) == 0 else {
            throw BusError.invalid("The \(info.format.rawValue.uppercased()) image is damaged: \(Vips.lastError()).")
        }
        return info
    }

    static func open(file path: URL, limits: MediaLimits) throws(BusError) -> (ImageFormat, VipsImageRef) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path.path)[.size] as? Int) ?? nil
        guard let size else { throw BusError(.notFound, "The image's file is gone; send it again.") }
        guard size <= limits.maxBytes else {
            throw BusError(.tooLarge, "The image is \(size) bytes; the limit is \(limits.maxBytes).")
        }
        let head = (try? FileHandle(forReadingFrom: path)).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 32)
        } ?? Data()
        guard let format = ImageSniffer.format(of: head) else {
            throw BusError(.unsupportedMedia, "This is not an image Quire reads (JPEG, PNG, WebP, GIF, HEIC or AVIF), whatever its name says.")
        }
        try Vips.ensureStarted()
        guard let pointer = quire_vips_image_from_file(path.path) else {
            throw BusError.invalid("The \(format.rawValue.uppercased()) image cannot be read: \(Vips.lastError()).")
        }
        let image = VipsImageRef(pointer)
        guard image.width > 0, image.height > 0, image.width * image.height <= limits.maxPixels else {
            throw BusError.invalid("The image is \(image.width)×\(image.height) pixels; the limit is \(limits.maxPixels) pixels.")
        }
        return (format, image)
    }

    static func open(_ bytes: Data, limits: MediaLimits) throws(BusError) -> (ImageFormat, VipsImageRef) {
        guard bytes.count <= limits.maxBytes else {
            throw BusError(.tooLarge, "The image is \(bytes.count) bytes; the limit is \(limits.maxBytes).")
        }
        guard let format = ImageSniffer.format(of: bytes) else {
            throw BusError(.unsupportedMedia, "This is not an image Quire reads (JPEG, PNG, WebP, GIF, HEIC or AVIF), whatever its name says.")
        }
        try Vips.ensureStarted()
        let pointer = bytes.withUnsafeBytes { buffer in
            quire_vips_image_from_buffer(buffer.baseAddress, buffer.count)
        }
        guard let pointer else {
            throw BusError.invalid("The \(format.rawValue.uppercased()) image cannot be read: \(Vips.lastError()).")
        }
        let image = VipsImageRef(pointer)
        guard image.width > 0, image.height > 0, image.width * image.height <= limits.maxPixels else {
            throw BusError.invalid("The image is \(image.width)×\(image.height) pixels; the limit is \(limits.maxPixels) pixels.")
        }
        return (format, image)
    }

    /// `2024:05:06 07:08:09` (+ `+02:00`) → `2024-05-06T07:08:09+02:00`.
    static func takenAt(_ image: VipsImageRef) -> String? {
        guard let raw = image.string("exif-ifd2-DateTimeOriginal"), raw.count >= 19 else { return nil }
        let parts = raw.split(whereSeparator: { $0 == ":" || $0 == " " })
        guard parts.count >= 6, parts.allSatisfy({ Int($0) != nil }) else { return nil }
        var text = "\(parts[0])-\(parts[1])-\(parts[2])T\(parts[3]):\(parts[4]):\(parts[5])"
        if let offset = image.string("exif-ifd2-OffsetTimeOriginal"), offset.count == 6,
           offset.first == "+" || offset.first == "-" {
            text += offset
        }
        return text
    }

    static func gps(_ image: VipsImageRef) -> ImageInfo.GPS? {
        guard let latitude = degrees(image.string("exif-ifd3-GPSLatitude")),
              let longitude = degrees(image.string("exif-ifd3-GPSLongitude")) else { return nil }
        let south = image.string("exif-ifd3-GPSLatitudeRef")?.uppercased().hasPrefix("S") == true
        let west = image.string("exif-ifd3-GPSLongitudeRef")?.uppercased().hasPrefix("W") == true
        var altitude = rationals(image.string("exif-ifd3-GPSAltitude"))?.first
        if altitude != nil, image.string("exif-ifd3-GPSAltitudeRef") == "1" { altitude = -(altitude ?? 0) }
        return ImageInfo.GPS(latitude: south ? -latitude : latitude, longitude: west ? -longitude : longitude, altitude: altitude)
    }

    /// `51/1 30/1 2612/100` → 51.507255…
    static func degrees(_ text: String?) -> Double? {
        guard let values = rationals(text), values.count == 3 else { return nil }
        return values[0] + values[1] / 60 + values[2] / 3600
    }

    static func rationals(_ text: String?) -> [Double]? {
        guard let text else { return nil }
        var values: [Double] = []
        for part in text.split(separator: " ") {
            let fraction = part.split(separator: "/")
            guard fraction.count == 2, let top = Double(fraction[0]), let bottom = Double(fraction[1]), bottom != 0 else { return nil }
            values.append(top / bottom)
        }
        return values.isEmpty ? nil : values
    }
}
