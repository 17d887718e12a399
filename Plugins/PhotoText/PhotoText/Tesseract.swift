import Bus
import CTesseract
import Foundation
import PhotoTextAPI

/// Tesseract through its C API (see `CTesseract/shim.h`): the image's size from its header first,
/// then decoded by Leptonica, turned upright, read.
public enum Tesseract {
    /// Tesseract's version, as the library says it.
    public static var version: String { String(cString: quire_tess_version()) }

    /// The text in an encoded image (PNG, JPEG, WebP, TIFF, GIF).
    /// - Parameter orientation: EXIF orientation (1...8); the mirrored ones are turned as their unmirrored peers.
    public static func recognise(_ bytes: Data, orientation: Int = 1, languages: [String], dataPath: String?, maxPixels: Int)
        throws(BusError) -> RecognisedPhotoText {
        let started = ContinuousClock.now
        quire_lept_quiet()
        let languageList = languages.joined(separator: "+")
        var width: Int32 = 0, height: Int32 = 0
        let headerRead = bytes.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return -1 }
            return quire_lept_size(base, raw.count, &width, &height)
        }
        guard headerRead == 0, width > 0, height > 0 else {
            throw BusError(.unsupportedMedia, "The photo could not be read as an image (its header is not PNG, JPEG, WebP, TIFF or GIF); its text was not read.",
                           details: ["reason": "not_an_image"])
        }
        let pixels = Int(width) * Int(height)
        guard pixels <= maxPixels else {
            throw BusError(.tooLarge, "The photo has \(width)×\(height) pixels; its text is read up to \(maxPixels) pixels (photo-text: max_pixels).",
                           details: ["reason": "too_many_pixels", "limit": "max_pixels", "maxPixels": String(maxPixels)])
        }
        let quads: Int32 = switch orientation {
        case 5, 6: 1
        case 3, 4: 2
        case 7, 8: 3
        default: 0
        }
        let image = bytes.withUnsafeBytes { raw -> UnsafeMutableRawPointer? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            return quire_lept_read(base, raw.count, quads)
        }
        guard let image else {
            throw BusError(.unsupportedMedia, "The photo's pixels could not be decoded (a damaged or unusual file); its text was not read.",
                           details: ["reason": "not_an_image"])
        }
        defer { quire_lept_free(image) }
        var status: Int32 = 0, confidence: Int32 = 0
        let text = quire_tess_recognise(image, dataPath, languageList, &status, &confidence)
        defer { quire_tess_free_text(text) }
        guard let text else {
            if status == -1 {
                throw BusError(.unavailable, "Tesseract could not load the languages \(languageList) from \(dataPath ?? "its data directory"); "
                               + "install them (apt-get install tesseract-ocr-<language>) or change photo-text: languages.",
                               details: ["reason": "languages_missing"])
            }
            throw BusError(.internal, "Tesseract could not read this photo; its text was not recognised.", details: ["reason": "recognition_failed"])
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        return RecognisedPhotoText(text: tidy(String(cString: text)), languages: languageList, confidence: Int(confidence),
                                   milliseconds: milliseconds)
    }

    /// Lines trimmed, runs of empty lines made one, the form feed Tesseract ends a page with dropped.
    public static func tidy(_ raw: String) -> String {
        var lines: [String] = []
        for line in raw.replacingOccurrences(of: "\u{0C}", with: "").split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(trimmed)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
