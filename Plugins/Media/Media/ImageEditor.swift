public import Bus
import CVips
public import Foundation
public import MediaAPI

/// Crop to a rectangle, rotate by 90° steps and resize, on request — in that order, on the image as
/// it is seen (EXIF orientation applied first). Makes a new image; the original is untouched.
public enum ImageEditor {
    public static func edit(_ bytes: Data, _ edit: ImageEdit, output: Thumbnailer.Output, quality: Int = 90,
                            limits: MediaLimits = MediaLimits()) throws(BusError) -> Data {
        try edit.validate()
        guard (1...100).contains(quality) else { throw BusError.invalid("Quality is 1 to 100.", field: "quality") }
        _ = try ImageInspector.open(bytes, limits: limits)
        try Vips.ensureStarted()
        let loaded = bytes.withUnsafeBytes { quire_vips_image_from_buffer_random($0.baseAddress, $0.count) }
        guard let loaded else { throw BusError.invalid("The image cannot be read: \(Vips.lastError()).") }
        var image = try step(VipsImageRef(loaded)) { quire_vips_autorot($0, &$1) }
        if let crop = edit.crop {
            guard crop.x + crop.width <= image.width, crop.y + crop.height <= image.height else {
                throw BusError.invalid("The crop \(crop.width)×\(crop.height) at (\(crop.x), \(crop.y)) is outside the "
                                       + "\(image.width)×\(image.height) image.", field: "crop")
            }
            image = try step(image) { quire_vips_extract_area($0, &$1, Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height)) }
        }
        let angle: VipsAngle? = switch edit.rotate {
        case 90: VIPS_ANGLE_D90
        case 180: VIPS_ANGLE_D180
        case 270: VIPS_ANGLE_D270
        default: nil
        }
        if let angle { image = try step(image) { quire_vips_rot($0, &$1, Int32(angle.rawValue)) } }
        if let resize = edit.resize {
            let source = image
            image = try step(image) {
                quire_vips_resize($0, &$1, Double(resize.width) / Double(source.width), Double(resize.height) / Double(source.height))
            }
        }
        return try Thumbnailer.save(image, output: output, quality: quality)
    }

    private static func step(_ input: VipsImageRef,
                             _ operation: (UnsafeMutablePointer<VipsImage>, inout UnsafeMutablePointer<VipsImage>?) -> Int32)
        throws(BusError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        guard operation(input.pointer, &out) == 0, let out else {
            throw BusError.invalid("The image cannot be edited: \(Vips.lastError()).")
        }
        return VipsImageRef(out)
    }
}
