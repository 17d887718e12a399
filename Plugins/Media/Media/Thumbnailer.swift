public import Bus
import CVips
public import Foundation
public import MediaAPI

/// Renditions: thumbnails (cover-crop or contain) and format conversion, EXIF orientation applied,
/// metadata stripped. The input passes ``ImageInspector``'s checks first, so nothing is decoded that
/// is too large, too many pixels or not an image.
public enum Thumbnailer {
    public enum Fit: String, Sendable, CaseIterable {
        /// Fill the box, cropping the overflow around the centre (Napkin's 44×44 list icon).
        case cover
        /// Fit inside the box, keeping the whole picture.
        case contain
    }

    public enum Output: String, Sendable, CaseIterable {
        case jpeg, webp, png
    }

    /// A thumbnail within `width`×`height`, never enlarged.
    public static func thumbnail(_ bytes: Data, width: Int, height: Int, fit: Fit, output: Output = .jpeg, quality: Int = 82,
                                 limits: MediaLimits = MediaLimits()) throws(BusError) -> Data {
        guard (1...10_000).contains(width), (1...10_000).contains(height) else {
            throw BusError.invalid("A thumbnail is 1 to 10000 pixels on each side.", field: "size")
        }
        guard (1...100).contains(quality) else { throw BusError.invalid("Quality is 1 to 100.", field: "quality") }
        _ = try ImageInspector.open(bytes, limits: limits)
        let crop = fit == .cover ? Int32(VIPS_INTERESTING_CENTRE.rawValue) : Int32(VIPS_INTERESTING_NONE.rawValue)
        var out: UnsafeMutablePointer<VipsImage>?
        let status = bytes.withUnsafeBytes { buffer in
            quire_vips_thumbnail_buffer(UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count, &out,
                                        Int32(width), Int32(height), crop)
        }
        guard status == 0, let out else {
            throw BusError.invalid("The image cannot be decoded: \(Vips.lastError()).")
        }
        return try save(VipsImageRef(out), output: output, quality: quality)
    }

    /// ``thumbnail(_:width:height:fit:output:quality:limits:)`` of an image file: libvips reads the
    /// file itself with shrink-on-load, so neither the file nor the full-size pixels are held.
    public static func thumbnail(file path: URL, width: Int, height: Int, fit: Fit, output: Output = .jpeg, quality: Int = 82,
                                 limits: MediaLimits = MediaLimits()) throws(BusError) -> Data {
        guard (1...10_000).contains(width), (1...10_000).contains(height) else {
            throw BusError.invalid("A thumbnail is 1 to 10000 pixels on each side.", field: "size")
        }
        guard (1...100).contains(quality) else { throw BusError.invalid("Quality is 1 to 100.", field: "quality") }
        _ = try ImageInspector.open(file: path, limits: limits)
        guard !path.path.contains("[") else { throw BusError(.internal, "An image file's name cannot hold '['.") }
        let crop = fit == .cover ? Int32(VIPS_INTERESTING_CENTRE.rawValue) : Int32(VIPS_INTERESTING_NONE.rawValue)
        var out: UnsafeMutablePointer<VipsImage>?
        let status = quire_vips_thumbnail_file(path.path + "[fail_on=truncated]", &out, Int32(width), Int32(height), crop)
        guard status == 0, let out else {
            throw BusError.invalid("The image cannot be decoded: \(Vips.lastError()).")
        }
        return try save(VipsImageRef(out), output: output, quality: quality)
    }

    /// The whole image in another format, EXIF orientation applied.
    public static func convert(_ bytes: Data, output: Output, quality: Int = 90,
                               limits: MediaLimits = MediaLimits()) throws(BusError) -> Data {
        let (_, image) = try ImageInspector.open(bytes, limits: limits)
        let side = max(image.width, image.height)
        // A "thumbnail" as large as the image only decodes, orients and re-encodes it.
        return try thumbnail(bytes, width: side, height: side, fit: .contain, output: output, quality: quality, limits: limits)
    }

    /// The mean colour of an image as sRGB components from 0 to 1 (alpha ignored; grey images give
    /// equal components), measured on a small thumbnail: what a camera frame's light is judged by.
    public static func meanColour(_ bytes: Data, limits: MediaLimits = MediaLimits()) throws(BusError) -> MeanColour {
        _ = try ImageInspector.open(bytes, limits: limits)
        var out: UnsafeMutablePointer<VipsImage>?
        let status = bytes.withUnsafeBytes { buffer in
            quire_vips_thumbnail_buffer(UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count, &out, 64, 64,
                                        Int32(VIPS_INTERESTING_NONE.rawValue))
        }
        guard status == 0, let out else { throw BusError.invalid("The image cannot be decoded: \(Vips.lastError()).") }
        let image = VipsImageRef(out)
        let bands = Int(vips_image_get_bands(image.pointer))
        let format = vips_image_get_format(image.pointer)
        guard (1...4).contains(bands), format == VIPS_FORMAT_UCHAR || format == VIPS_FORMAT_USHORT else {
            throw BusError(.unsupportedMedia, "The frame's pixel format cannot be measured; send an ordinary JPEG, PNG or WebP.")
        }
        var size = 0
        guard let memory = vips_image_write_to_memory(image.pointer, &size) else {
            throw BusError.invalid("The image cannot be decoded: \(Vips.lastError()).")
        }
        defer { g_free(memory) }
        let wide = format == VIPS_FORMAT_USHORT
        let scale = wide ? 65535.0 : 255.0
        let pixels = size / (bands * (wide ? 2 : 1))
        guard pixels > 0 else { throw BusError.invalid("The image has no pixels.") }
        var sums = [0.0, 0.0, 0.0]
        let colourBands = bands >= 3 ? 3 : 1
        for pixel in 0..<pixels {
            for band in 0..<colourBands {
                let index = pixel * bands + band
                let value = wide ? Double(memory.load(fromByteOffset: index * 2, as: UInt16.self)) : Double(memory.load(fromByteOffset: index, as: UInt8.self))
                sums[band] += value
            }
        }
        let means = sums.map { $0 / Double(pixels) / scale }
        return colourBands == 3 ? MeanColour(red: means[0], green: means[1], blue: means[2]) : MeanColour(red: means[0], green: means[0], blue: means[0])
    }

    static func save(_ image: VipsImageRef, output: Output, quality: Int) throws(BusError) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch output {
        case .jpeg: quire_vips_jpegsave_buffer(image.pointer, &buffer, &length, Int32(quality))
        case .webp: quire_vips_webpsave_buffer(image.pointer, &buffer, &length, Int32(quality))
        case .png: quire_vips_pngsave_buffer(image.pointer, &buffer, &length)
        }
        guard status == 0, let buffer else {
            throw BusError.invalid("The image cannot be encoded as \(output.rawValue): \(Vips.lastError()).")
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
