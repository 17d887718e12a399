import CCairo
import Foundation

/// Writes premultiplied ARGB32 pixels as an RGBA PNG, quickly (issue 42): each row Sub-filtered
/// (a pixel minus the one to its left, so a run of one colour becomes zeros) and deflated by a
/// compressor of our own that only codes runs of one byte — a literal, then a match at distance 1
/// — with deflate's fixed Huffman codes.
///
/// A drawing is runs: transparent canvas, strokes' insides of one colour; what is left is edges,
/// which no compressor shrinks much. zlib at level 1 spent ~230 M instructions on a 1024×768
/// drawing looking for matches a drawing hardly has; this spends a fraction of that, and the file
/// is about a third larger (1.65 MB for 1,000 strokes, 1.24 MB before).
///
/// A row at a time (`quire_png_sub_row`, `quire_deflate_runs` in CCairo/png.h): each row is
/// filtered into one small buffer and deflated from there straight into the PNG's IDAT, so no
/// image-sized intermediate is written or read back.
enum PNGEncoder {
    static func encode(_ pixels: [UInt32], width: Int, height: Int) -> Data {
        let rowBytes = width * 4 + 1
        // Signature and IHDR (33 bytes), IDAT's length and type, the zlib header; at most 9 bits
        // a byte; the block's end, Adler-32, IDAT's CRC and IEND.
        let start = 33 + 8 + 2
        var png = Data(count: start + rowBytes * height * 9 / 8 + 16 + 4 + 4 + 12)
        var row = [UInt8](repeating: 0, count: rowBytes)
        let written = png.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) -> Int in
            guard let out = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            for (index, byte) in signature.enumerated() { out[index] = byte }
            var header = Data()
            header.append(bigEndian: UInt32(width))
            header.append(bigEndian: UInt32(height))
            header.append(contentsOf: [8, 6, 0, 0, 0])
            var ihdr = Data()
            chunk("IHDR", header, into: &ihdr)
            for (index, byte) in ihdr.enumerated() { out[8 + index] = byte }
            for (index, byte) in "IDAT".utf8.enumerated() { out[37 + index] = byte }
            out[41] = 0x78  // deflate, 32 kB window
            out[42] = 0x01  // no dictionary, fastest (the check bits make 0x7801 a multiple of 31)
            var stream = quire_deflate_stream(buffer: 0b011, filled: 3, position: start)  // BFINAL, BTYPE 01: fixed codes
            var adler = adler32(0, nil, 0)
            pixels.withUnsafeBufferPointer { pixels in
                row.withUnsafeMutableBufferPointer { row in
                    RunDeflate.literals.withUnsafeBufferPointer { literals in
                        RunDeflate.matches.withUnsafeBufferPointer { matches in
                          Self.reciprocals.withUnsafeBufferPointer { reciprocals in
                            guard let source = pixels.baseAddress, let filtered = row.baseAddress,
                                  let literals = literals.baseAddress, let matches = matches.baseAddress,
                                  let reciprocals = reciprocals.baseAddress, pixels.count >= width * height else { return }
                            for y in 0..<height {
                                quire_png_sub_row(source + y * width, Int32(width), filtered, reciprocals)
                                adler = adler32(adler, filtered, uInt(rowBytes))
                                quire_deflate_runs(filtered, rowBytes, out, &stream, literals, matches)
                            }
                          }
                        }
                    }
                }
            }
            // The block's end, the last bits, Adler-32 (big-endian).
            let end = RunDeflate.literals[256]
            stream.buffer |= UInt64(end & 0xFF_FFFF) << UInt64(stream.filled)
            stream.filled += Int32(end >> 24)
            var position = stream.position
            while stream.filled > 0 {
                out[position] = UInt8(truncatingIfNeeded: stream.buffer)
                position += 1
                stream.buffer >>= 8
                stream.filled -= 8
            }
            position = Self.store(UInt32(adler), at: position, in: out)
            // IDAT's length (what follows its type) and CRC (of its type and data).
            _ = Self.store(UInt32(position - 41), at: 33, in: out)
            position = Self.store(UInt32(crc32(0, out + 37, uInt(position - 37))), at: position, in: out)
            let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
            for byte in iend {
                out[position] = byte
                position += 1
            }
            return position
        }
        png.count = written
        return png
    }

    /// ⌈2²⁴ / alpha⌉ for alpha 1…255 (`quire_png_sub_row` unpremultiplies with them).
    private static let reciprocals: [UInt32] = (0...255).map { (alpha: Int) -> UInt32 in
        alpha == 0 ? 0 : UInt32((16_777_216 + alpha - 1) / alpha)
    }

    private static func store(_ value: UInt32, at position: Int, in out: UnsafeMutablePointer<UInt8>) -> Int {
        for index in 0..<4 { out[position + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
        return position + 4
    }

    /// The PNG around a zlib stream of rows: signature, IHDR (8 bits, RGBA, deflate, adaptive
    /// filtering, no interlace), one IDAT and IEND, each chunk with its CRC. ``PNGWriter`` (cairo's
    /// path, the tests' reference) wraps its stream here too.
    static func container(width: Int, height: Int, idat: Data) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian: UInt32(width))
        header.append(bigEndian: UInt32(height))
        header.append(contentsOf: [8, 6, 0, 0, 0])
        chunk("IHDR", header, into: &png)
        chunk("IDAT", idat, into: &png)
        chunk("IEND", Data(), into: &png)
        return png
    }

    private static func chunk(_ type: String, _ body: Data, into png: inout Data) {
        png.append(bigEndian: UInt32(body.count))
        let typed = Data(type.utf8) + body
        png.append(typed)
        let crc = typed.withUnsafeBytes { crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, uInt(typed.count)) }
        png.append(bigEndian: UInt32(crc))
    }
}

/// Deflate's fixed Huffman codes (RFC 1951 3.2.6) for a stream that codes each run of four or
/// more equal bytes as the byte and matches at distance 1, every other byte as a literal
/// (`quire_deflate_runs`). Any inflater reads it.
enum RunDeflate {
    /// Literal/length symbol → (code, bit-reversed for deflate's LSB-first packing; its length).
    private static let symbols: [(code: UInt64, bits: Int)] = (0..<288).map { symbol in
        let (code, bits): (Int, Int) = switch symbol {
        case 0...143: (0x30 + symbol, 8)
        case 144...255: (0x190 + symbol - 144, 9)
        case 256...279: (symbol - 256, 7)
        default: (0xC0 + symbol - 280, 8)
        }
        var reversed = 0
        for bit in 0..<bits where code >> bit & 1 == 1 { reversed |= 1 << (bits - 1 - bit) }
        return (UInt64(reversed), bits)
    }

    /// Literal/length symbol → its code | its bit count << 24.
    static let literals: [UInt32] = symbols.map { UInt32($0.code) | UInt32($0.bits) << 24 }

    /// Match length 3…258 → its symbol's code, extra bits and distance code 0 (distance 1, five
    /// zero bits), as one bit string | its bit count << 24.
    static let matches: [UInt32] = (0...258).map { length in
        guard length >= 3 else { return 0 }
        let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
        let extras = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        let index = bases.lastIndex { $0 <= length } ?? 0
        let symbol = symbols[257 + index]
        let code = symbol.code | UInt64(length - bases[index]) << symbol.bits
        return UInt32(code) | UInt32(symbol.bits + extras[index] + 5) << 24
    }
}

extension Data {
    fileprivate mutating func append(bigEndian value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
