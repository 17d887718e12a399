public import Bus
import CVips
public import Foundation
public import MediaAPI

/// Lays a transparent overlay (a drawing) over a photo, as a separate layer: the photo's bytes are
/// read, never changed; the result is a new PNG.
public enum Compositor {
    /// The photo's size once EXIF orientation is applied — the size to render an overlay at.
    public static func orientedSize(of photo: Data, limits: MediaLimits = MediaLimits()) throws(BusError) -> (width: Int, height: Int) {
        let info = try ImageInspector.inspect(photo, limits: limits)
        return (5...8).contains(info.orientation) ? (info.height, info.width) : (info.width, info.height)
    }

    /// The photo (orientation applied) with `overlayPNG` drawn over it, as PNG. The overlay must be
    /// the photo's oriented size (see ``orientedSize(of:limits:)``).
    public static func composite(photo: Data, overlayPNG: Data, limits: MediaLimits = MediaLimits()) throws(BusError) -> Data {
        _ = try ImageInspector.open(photo, limits: limits)
        let base = try load(photo)
        var rotated: UnsafeMutablePointer<VipsImage>?
        guard quire_vips_autorot(base.pointer, &rotated) == 0, let rotated else {
            throw BusError.invalid("The photo cannot be decoded: \(Vips.lastError()).")
        }
        let oriented = VipsImageRef(rotated)
        let overlay = try load(overlayPNG)
        guard overlay.width == oriented.width, overlay.height == oriented.height else {
            throw BusError.invalid("The overlay is \(overlay.width)×\(overlay.height); the photo is \(oriented.width)×\(oriented.height).")
        }
        var out: UnsafeMutablePointer<VipsImage>?
        guard quire_vips_composite_over(oriented.pointer, overlay.pointer, &out) == 0, let out else {
            throw BusError.invalid("The drawing cannot be laid over the photo: \(Vips.lastError()).")
        }
        return try Thumbnailer.save(VipsImageRef(out), output: .png, quality: 100)
    }

    private static func load(_ bytes: Data) throws(BusError) -> VipsImageRef {
        try Vips.ensureStarted()
        let pointer = bytes.withUnsafeBytes { quire_vips_image_from_buffer_random($0.baseAddress, $0.count) }
        guard let pointer else { throw BusError.invalid("The image cannot be read: \(Vips.lastError()).") }
        return VipsImageRef(pointer)
    }
}
