import CQuireZlib
import Foundation
import Synchronization

/// The home-screen icon as PNG, in the app's own colour (its YAML's `theme_color`): what Android's
/// installer and iOS's `apple-touch-icon` want, where an SVG is not enough. The same picture as
/// `icon.svg` — a page with a folded corner and three lines — drawn full-bleed (a launcher cuts its
/// own shape; everything that matters is inside the maskable safe zone), three by three samples a
/// pixel for smooth edges. Drawn once when the plugin starts.
enum AppIcon {
    struct RGB: Equatable, Sendable {
        var red: UInt8
        var green: UInt8
        var blue: UInt8

        /// `#rrggbb`, or nil.
        init?(hex: String) {
            let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
            guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
            (red, green, blue) = (UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff))
        }

        init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
            (self.red, self.green, self.blue) = (red, green, blue)
        }
    }

    /// 180: iOS's `apple-touch-icon`; 192 and 512: the web app manifest's.
    static let sizes = [180, 192, 512]
    static let paper = RGB(0xff, 0xfa, 0xf0)
    static let fold = RGB(0xd9, 0xc7, 0xa0)

    /// The colour at a point of the 512×512 design.
    static func colour(x: Double, y: Double, accent: RGB) -> RGB {
        let lines: [(Double, Double, Double)] = [(190, 340, 250), (190, 340, 300), (190, 290, 350)]
        for (start, end, height) in lines {
            let nearest = min(max(x, start), end)
            if (x - nearest) * (x - nearest) + (y - height) * (y - height) <= 81 { return accent }
        }
        let inPage = x >= 150 && x <= 380 && y >= 120 && y <= 392
        let aboveFold = x > 320 && y < 120 + (x - 320)
        if inPage && !aboveFold {
            return x >= 320 && y <= 180 ? fold : paper
        }
        return accent
    }

    /// A `size`×`size` PNG (8-bit RGB), or nil if zlib fails.
    static func png(size: Int, accent: RGB) -> Data? {
        guard size > 0 else { return nil }
        let scale = 512 / Double(size)
        let offsets = [1.0 / 6, 0.5, 5.0 / 6]
        var raw = [UInt8]()
        raw.reserveCapacity(size * (size * 3 + 1))
        for row in 0..<size {
            raw.append(0) // filter: none
            for column in 0..<size {
                var sums = (0, 0, 0)
                for dy in offsets {
                    for dx in offsets {
                        let sample = colour(x: (Double(column) + dx) * scale, y: (Double(row) + dy) * scale, accent: accent)
                        sums = (sums.0 + Int(sample.red), sums.1 + Int(sample.green), sums.2 + Int(sample.blue))
                    }
                }
                raw += [UInt8(sums.0 / 9), UInt8(sums.1 / 9), UInt8(sums.2 / 9)]
            }
        }
        guard let compressed = zlib(raw) else { return nil }
        var header = Data()
        header.append(bigEndian: UInt32(size))
        header.append(bigEndian: UInt32(size))
        header.append(contentsOf: [8, 2, 0, 0, 0]) // 8 bits, RGB, deflate, no filter method, no interlace
        var png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", compressed)
        png.appendChunk("IEND", Data())
        return png
    }

    static func zlib(_ bytes: [UInt8]) -> Data? {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&out, &length, bytes, uLong(bytes.count), 9)
        guard status == Z_OK else { return nil }
        return Data(out.prefix(Int(length)))
    }
}

/// The icons of one app, drawn once each (on the first request for them, so starting stays quick).
final class IconCache: Sendable {
    let accent: AppIcon.RGB
    private let drawn = Mutex<[Int: WebAssets.Asset]>([:])

    init(accent: AppIcon.RGB) {
        self.accent = accent
    }

    func icon(_ size: Int) -> WebAssets.Asset? {
        if let kept = drawn.withLock({ $0[size] }) { return kept }
        guard let png = AppIcon.png(size: size, accent: accent) else { return nil }
        let asset = WebAssets.asset(png, type: "image/png")
        drawn.withLock { $0[size] = asset }
        return asset
    }
}

extension Data {
    fileprivate mutating func append(bigEndian value: UInt32) {
        append(contentsOf: [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)])
    }

    /// A PNG chunk: length, type, data, and the CRC-32 of type and data.
    fileprivate mutating func appendChunk(_ type: String, _ data: Data) {
        append(bigEndian: UInt32(data.count))
        let typed = Data(type.utf8) + data
        append(typed)
        let crc = typed.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> uLong in
            crc32(0, bytes.bindMemory(to: Bytef.self).baseAddress, uInt(bytes.count))
        }
        append(bigEndian: UInt32(truncatingIfNeeded: crc))
    }
}
