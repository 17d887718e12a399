public import Bus
import CVips
public import Foundation
public import MediaAPI

/// Straighten, crop to a rectangle, rotate by 90° steps, crop to fractions and resize, on request —
/// in that order, on the image as it is seen (EXIF orientation applied first). Makes a new image;
/// the original is untouched.
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
        if let degrees = edit.straighten, degrees != 0 {
            let (width, height) = (Double(image.width), Double(image.height))
            image = try step(image) { quire_vips_rotate($0, &$1, degrees) }
            let inner = straightened(width: width, height: height, degrees: degrees)
            let (left, top) = ((Double(image.width) - inner.width) / 2, (Double(image.height) - inner.height) / 2)
            image = try step(image) {
                quire_vips_extract_area($0, &$1, Int32(left.rounded(.up)), Int32(top.rounded(.up)),
                                        Int32(max(1, inner.width.rounded(.down) - 1)), Int32(max(1, inner.height.rounded(.down) - 1)))
            }
        }
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
        if let part = edit.cropFractions {
            let (width, height) = (Double(image.width), Double(image.height))
            let left = min(Int((part.x * width).rounded()), image.width - 1)
            let top = min(Int((part.y * height).rounded()), image.height - 1)
            let cropWidth = max(1, min(Int((part.width * width).rounded()), image.width - left))
            let cropHeight = max(1, min(Int((part.height * height).rounded()), image.height - top))
            image = try step(image) { quire_vips_extract_area($0, &$1, Int32(left), Int32(top), Int32(cropWidth), Int32(cropHeight)) }
        }
        if let resize = edit.resize {
            let source = image
            image = try step(image) {
                quire_vips_resize($0, &$1, Double(resize.width) / Double(source.width), Double(resize.height) / Double(source.height))
            }
        }
        return try Thumbnailer.save(image, output: output, quality: quality)
    }

    /// The largest rectangle of a `width`×`height` picture's proportions inside it turned by
    /// `degrees`: scaled by min(w / (w cos θ + h sin θ), h / (w sin θ + h cos θ)).
    static func straightened(width: Double, height: Double, degrees: Double) -> (width: Double, height: Double) {
        let angle = abs(degrees) * Double.pi / 180
        let (cosine, sine) = (cos(angle), sin(angle))
        let scale = min(width / (width * cosine + height * sine), height / (width * sine + height * cosine))
        return (width * scale, height * scale)
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
