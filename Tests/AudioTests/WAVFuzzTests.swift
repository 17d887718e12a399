import AudioAPI
import Bus
import Foundation
import SeededRandom
import Testing

@Suite("Audio: the WAV reader under hostile headers")
struct WAVFuzzTests {
    static let limits = AudioLimits(maxBytes: 10 << 20, maxSeconds: 60)
    static let codes: Set<BusError.Code> = [.unsupportedMedia, .invalid, .tooLarge]
    static let valid = WAVFormat.encode((0..<800).map { Int16(truncatingIfNeeded: $0 * 37) }, sampleRate: 16000)

    /// Either refused with one of the stable codes and a reason, or read within the file's bytes.
    static func check(_ bytes: Data, _ label: String) {
        do {
            let format = try WAVFormat.parse(bytes, limits: limits)
            #expect(format.dataOffset >= 12 && format.dataOffset + format.dataBytes <= bytes.count, "\(label): the samples are inside the file")
            #expect(format.dataBytes > 0 && format.dataBytes % 2 == 0 && WAVFormat.sampleRates.contains(format.sampleRate), "\(label)")
            #expect(format.seconds <= Double(limits.maxSeconds), "\(label)")
            #expect(format.samples(of: bytes).count == format.sampleCount)
        } catch {
            #expect(codes.contains(error.code), "\(label): \(error)")
            #expect(error.details["reason"] != nil, "\(label): a reason")
        }
        do {
            try WAVFormat.checkHead(bytes.prefix(WAVFormat.headBytes), limits: limits)
        } catch {
            #expect(codes.contains(error.code), "\(label) (head): \(error)")
        }
    }

    @Test("the valid file is read: 800 samples at 16 kHz after a 44-byte header")
    func valid() throws {
        let format = try WAVFormat.parse(Self.valid, limits: Self.limits)
        #expect(format == WAVFormat(sampleRate: 16000, dataOffset: 44, dataBytes: 1600))
        #expect(format.samples(of: Self.valid)[1] == 37)
    }

    @Test("every truncation of a valid file: refused, or read inside what is left")
    func truncations() {
        for length in 0...Self.valid.count { Self.check(Self.valid.prefix(length), "first \(length) bytes") }
        // Not at the start of its buffer: a slice of a larger Data.
        let shifted = (Data([1, 2, 3]) + Self.valid).dropFirst(3)
        #expect((try? WAVFormat.parse(shifted, limits: Self.limits))?.sampleCount == 800)
        #expect((try? WAVFormat.parse(shifted, limits: Self.limits)).map { $0.samples(of: shifted)[1] } == 37)
    }

    @Test("20,000 random mutations of the header and chunk lengths (seeded): no crash, no read past the end, only stable codes")
    func mutations() {
        var random = SplitMix64(seed: 41)  // the same hostile inputs on every run, so a failure repeats
        let lengths = [4, 16, 40]  // the RIFF, fmt and data lengths
        for round in 0..<20_000 {
            var bytes = Self.valid
            switch round % 4 {
            case 0:  // a few random bytes of the header
                for _ in 0..<Int.random(in: 1...4, using: &random) { bytes[Int.random(in: 0..<44, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            case 1:  // a length set to something hostile
                let at = lengths.randomElement(using: &random) ?? 4
                let value = [0, 1, 2, 3, 0x7FFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFF8, UInt32(bytes.count), UInt32(bytes.count - 8), UInt32.random(in: 0...UInt32.max, using: &random)]
                    .randomElement(using: &random) ?? 0
                withUnsafeBytes(of: value.littleEndian) { for (index, byte) in $0.enumerated() { bytes[at + index] = byte } }
            case 2:  // a chunk inserted before the data, with a random length
                var chunk = Data("LIST".utf8)
                let size = UInt32.random(in: 0...64, using: &random) | (Bool.random(using: &random) ? 0 : 0xFFFF_0000)
                withUnsafeBytes(of: size.littleEndian) { chunk.append(contentsOf: $0) }
                chunk.append(Data(repeating: 0x41, count: Int.random(in: 0...70, using: &random)))
                bytes = bytes.prefix(36) + chunk + bytes.dropFirst(36)
            default:  // random bytes after a valid RIFF/WAVE/fmt start
                let tail = (0..<Int.random(in: 0...120, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes = bytes.prefix(Int.random(in: 12...36, using: &random)) + Data(tail)
            }
            Self.check(bytes, "round \(round)")
        }
    }

    @Test("hostile headers by hand: a second fmt, data before fmt, an odd data length, a chunk past the end, a huge RIFF length, WAVE_FORMAT_EXTENSIBLE, 12-bit, 0 Hz")
    func byHand() throws {
        func refused(_ bytes: Data, _ reason: WAVFormat.Reason, _ label: String) {
            #expect(throws: BusError.self, "\(label)") { try WAVFormat.parse(bytes, limits: Self.limits) }
            do { _ = try WAVFormat.parse(bytes, limits: Self.limits) } catch { #expect(error.details["reason"] == reason.rawValue, "\(label): \(error)") }
        }
        let fmt = Self.valid[12..<36], data = Self.valid[36...]
        func riff(_ body: Data) -> Data {
            var out = Data("RIFF".utf8)
            withUnsafeBytes(of: UInt32(body.count + 4).littleEndian) { out.append(contentsOf: $0) }
            return out + Data("WAVE".utf8) + body
        }
        refused(riff(fmt + fmt + data), .malformed, "a second fmt")
        refused(riff(Data("data".utf8) + Data([2, 0, 0, 0, 1, 2]) + fmt + data), .format, "data first: the head wants fmt first")
        var odd = Self.valid.prefix(44) + Data([7])
        odd[40] = 1; odd[41] = 0; odd[42] = 0; odd[43] = 0
        refused(odd, .malformed, "an odd data length")
        var past = Self.valid
        past[40] = 0xFF; past[41] = 0xFF; past[42] = 0xFF; past[43] = 0x7F
        refused(past, .malformed, "the data chunk runs past the end")
        var huge = Self.valid
        huge[4] = 0xFF; huge[5] = 0xFF; huge[6] = 0xFF; huge[7] = 0xFF
        refused(huge, .tooLong, "a RIFF length of 4 GB says more than 60 s: refused from the head")
        var extensible = Self.valid
        extensible[20] = 0xFE; extensible[21] = 0xFF
        refused(extensible, .format, "WAVE_FORMAT_EXTENSIBLE")
        var twelve = Self.valid
        twelve[34] = 12
        refused(twelve, .format, "12-bit")
        var zero = Self.valid
        for index in 24..<32 { zero[index] = 0 }
        refused(zero, .format, "0 Hz")
        refused(riff(fmt), .malformed, "no data chunk")
        // Chunks of other kinds before the data are skipped (a LIST of metadata, padded to even).
        let list = Data("LIST".utf8) + Data([3, 0, 0, 0, 0x61, 0x62, 0x63, 0])
        let withList = try WAVFormat.parse(riff(fmt + list + data), limits: Self.limits)
        #expect(withList.sampleCount == 800 && withList.dataOffset == 44 + list.count)
    }
}
