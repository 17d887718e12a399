import Bus
import CVips
import Foundation
import Logging

/// Where libvips' own warnings go.
let vipsLogger = Logger(label: "quire.media.libvips")

/// The process's libvips: initialised once, on first use.
enum Vips {
    private static let started: Bool = {
        guard vips_init("quire") == 0 else { return false }
        // libvips' operation cache keeps recent results (up to 100 MB) to answer the same call on
        // the same input again; Quire never repeats one (each upload is a new buffer, each
        // rendition is cached as a blob), so the cache only holds memory: 8 concurrent 24 MP
        // uploads peaked at 157 MB with it.
        // One worker thread per pipeline: an image's decode holds one set of tile buffers, and
        // the media gate (`concurrency`) bounds how many pipelines run at once.
        quire_vips_limit_memory(1)
        // libvips prints its warnings ("error in tile …", "Corrupt JPEG data …") on stderr through
        // GLib; route them to the log instead. A warning that made an operation fail is in that
        // operation's error already, so they are debug-level detail.
        let levels = GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue | G_LOG_LEVEL_INFO.rawValue)
        g_log_set_handler("VIPS", levels, { _, _, message, _ in
            vipsLogger.debug("libvips said", metadata: ["message": "\(message.map { String(cString: $0) } ?? "")"])
        }, nil)
        return true
    }()

    /// - Throws: `unavailable` when libvips could not start.
    static func ensureStarted() throws(BusError) {
        guard started else {
            throw BusError(.unavailable, "The image library (libvips) could not start: \(lastError())")
        }
    }

    /// libvips' error text (and clears it).
    static func lastError() -> String {
        let text = vips_error_buffer().map { String(cString: $0) } ?? ""
        vips_error_clear()
        return text.split(separator: "\n").first.map(String.init) ?? "unknown error"
    }
}

/// An owned `VipsImage`, released when the value goes.
final class VipsImageRef {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { quire_object_unref(pointer) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }

    func int(_ field: String) -> Int? {
        guard vips_image_get_typeof(pointer, field) != 0 else { return nil }
        var value: Int32 = 0
        return vips_image_get_int(pointer, field, &value) == 0 ? Int(value) : nil
    }

    /// A metadata string; for EXIF fields, the raw value before libvips' " (description…)".
    func string(_ field: String) -> String? {
        guard vips_image_get_typeof(pointer, field) != 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, field, &value) == 0, let value else { return nil }
        let text = String(cString: value)
        if let cut = text.range(of: " (") { return String(text[..<cut.lowerBound]).trimmingCharacters(in: .whitespaces) }
        return text.trimmingCharacters(in: .whitespaces)
    }
}
