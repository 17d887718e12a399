import Audio
import AudioAPI
import Bus
import COpus
import Foundation
import Testing

/// An Ogg file read back page by page, as a player would: the capture pattern, the CRC recomputed,
/// the flags, the sequence, and the packets re-joined from the lacing.
struct OggPage {
    var flags: UInt8
    var granule: Int64
    var serial: UInt32
    var sequence: UInt32
    var packets: [Data]
    /// The last packet continues on the next page.
    var continued: Bool

    static func read(_ file: Data) throws -> [OggPage] {
        let bytes = [UInt8](file)
        var pages: [OggPage] = []
        var offset = 0
        func le(_ at: Int, _ count: Int) -> UInt64 { (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        while offset < bytes.count {
            try #require(bytes.count - offset >= 27, "a page header at \(offset)")
            #expect(Array(bytes[offset..<offset + 4]) == Array("OggS".utf8), "the capture pattern at \(offset)")
            #expect(bytes[offset + 4] == 0, "version 0")
            let count = Int(bytes[offset + 26])
            let table = Array(bytes[offset + 27..<offset + 27 + count])
            let length = 27 + count + table.reduce(0) { $0 + Int($1) }
            try #require(offset + length <= bytes.count, "the page at \(offset) is whole")
            var page = Data(bytes[offset..<offset + length])
            let stored = UInt32(le(offset + 22, 4))
            for index in 22..<26 { page[index] = 0 }
            #expect(OggWriter.crc(page) == stored, "the CRC of page \(pages.count)")
            var packets: [Data] = []
            var current = Data()
            var at = offset + 27 + count
            for lace in table {
                current.append(contentsOf: bytes[at..<at + Int(lace)])
                at += Int(lace)
                if lace < 255 {
                    packets.append(current)
                    current = Data()
                }
            }
            pages.append(OggPage(flags: bytes[offset + 5], granule: Int64(bitPattern: le(offset + 6, 8)), serial: UInt32(le(offset + 14, 4)),
                                 sequence: UInt32(le(offset + 18, 4)), packets: packets, continued: table.last == 255))
            offset += length
        }
        return pages
    }
}

/// A tone, 16-bit. @param seconds its length
func tone(hertz: Double, seconds: Double, rate: Int, amplitude: Double = 0.5) -> [Int16] {
    (0..<Int(seconds * Double(rate))).map { Int16(amplitude * 32767 * sin(2 * .pi * hertz * Double($0) / Double(rate))) }
}

/// The strongest of `candidates` (Hz) in `samples` at `rate` (Goertzel).
func loudest(_ samples: ArraySlice<Float>, rate: Int, among candidates: [Double]) -> Double {
    func power(_ hertz: Double) -> Double {
        let coefficient = 2 * cos(2 * .pi * hertz / Double(rate))
        var (s1, s2) = (0.0, 0.0)
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            (s2, s1) = (s1, s0)
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }
    return candidates.max { power($0) < power($1) } ?? 0
}

@Suite("Audio: WAV in, Ogg Opus out (RFC 7845, RFC 3533)")
struct OggOpusTests {
    static let limits = AudioLimits(maxBytes: 10 << 20, maxSeconds: 300)

    @Test("2 s of a 440 Hz tone at 16 kHz: OpusHead and OpusTags pages, audio pages with CRCs and granules, decoded back by libopus to the same tone",
          arguments: [16000, 48000, 8000])
    func roundTrip(rate: Int) throws {
        let samples = tone(hertz: 440, seconds: 2, rate: rate)
        let (ogg, milliseconds) = try AudioService.encode(WAVFormat.encode(samples, sampleRate: rate), limits: Self.limits, bitrate: 24000)
        #expect(milliseconds == 2000)
        let pages = try OggPage.read(ogg)
        try #require(pages.count >= 4, "head, tags and audio pages: \(pages.count)")

        // RFC 3533: one stream, pages in sequence, begins on the first and ends on the last.
        #expect(Set(pages.map(\.serial)).count == 1)
        #expect(pages.map(\.sequence) == (0..<UInt32(pages.count)).map { $0 })
        #expect(pages[0].flags == 0x02 && pages.dropFirst().allSatisfy { $0.flags & 0x02 == 0 }, "BOS on the first page only")
        #expect(pages.last?.flags == 0x04 && pages.dropLast().allSatisfy { $0.flags & 0x04 == 0 }, "EOS on the last page only")
        #expect(pages.allSatisfy { !$0.continued }, "every packet ends on its page")

        // RFC 7845 §5.1: the identification header, alone on the first page.
        try #require(pages[0].packets.count == 1 && pages[0].granule == 0)
        let head = [UInt8](pages[0].packets[0])
        #expect(head.count == 19 && Array(head[0..<8]) == Array("OpusHead".utf8))
        #expect(head[8] == 1 && head[9] == 1, "version 1, one channel")
        let preSkip = Int(head[10]) | Int(head[11]) << 8
        let inputRate = Int(head[12]) | Int(head[13]) << 8 | Int(head[14]) << 16 | Int(head[15]) << 24
        #expect(preSkip > 0 && preSkip < 48000 / 10, "the encoder's delay at 48 kHz: \(preSkip)")
        #expect(inputRate == rate)
        #expect(head[16] == 0 && head[17] == 0 && head[18] == 0, "no gain, mapping family 0")
        // §5.2: the comment header, alone on the second page.
        try #require(pages[1].packets.count == 1 && pages[1].granule == 0)
        let tags = pages[1].packets[0]
        #expect(tags.prefix(8) == Data("OpusTags".utf8))
        #expect(String(decoding: tags.dropFirst(12).prefix(OpusEncoding.vendor.utf8.count), as: UTF8.self) == OpusEncoding.vendor)

        // Granules: rising, each page's the end of its last packet; the last trims to the input's length.
        let audio = Array(pages.dropFirst(2))
        #expect(zip(audio, audio.dropFirst()).allSatisfy { $0.granule <= $1.granule }, "granule positions never fall")
        #expect(audio.last?.granule == Int64(preSkip + 2 * 48000), "the end: pre-skip plus two seconds at 48 kHz")

        // Decoded by libopus: each packet 20 ms, the granules agree, and the tone is 440 Hz.
        var error: Int32 = 0
        let decoder = try #require(opus_decoder_create(48000, 1, &error))
        defer { opus_decoder_destroy(decoder) }
        var pcm: [Float] = []
        var frame = [Float](repeating: 0, count: 5760)
        var decodedBefore = 0
        for page in audio {
            for packet in page.packets {
                let count = opus_decode_float(decoder, [UInt8](packet), Int32(packet.count), &frame, 5760, 0)
                try #require(count == 960, "a 20 ms packet")
                pcm += frame[0..<Int(count)]
            }
            decodedBefore = pcm.count
            if page.flags & 0x04 == 0 { #expect(Int64(decodedBefore) == page.granule, "page \(page.sequence)'s granule is what was decoded so far") }
        }
        #expect(pcm.count >= preSkip + 2 * 48000)
        let played = pcm[preSkip..<preSkip + 2 * 48000]
        let middle = played[played.startIndex + 24000..<played.startIndex + 72000]
        #expect(loudest(middle, rate: 48000, among: [220, 330, 440, 550, 880]) == 440)
        let rms = (middle.reduce(0.0) { $0 + Double($1 * $1) } / Double(middle.count)).squareRoot()
        #expect(abs(rms - 0.5 / 2.squareRoot()) < 0.08, "the tone's loudness kept: RMS \(rms)")
    }

    @Test("the same recording makes the same file (a blob named by its content is the same blob)")
    func deterministic() throws {
        let wav = WAVFormat.encode(tone(hertz: 300, seconds: 0.5, rate: 16000), sampleRate: 16000)
        #expect(try AudioService.encode(wav, limits: Self.limits, bitrate: 24000).0 == AudioService.encode(wav, limits: Self.limits, bitrate: 24000).0)
    }

    @Test("a recording of one sample, and one of many pages of large packets: the lacing holds")
    func edges() throws {
        let one = try AudioService.encode(WAVFormat.encode([1000], sampleRate: 48000), limits: Self.limits, bitrate: 24000)
        let pages = try OggPage.read(one.0)
        #expect(pages.last?.granule == Int64(Int(pages[0].packets[0][10]) | Int(pages[0].packets[0][11]) << 8) + 1)
        var noise = SystemRandomNumberGenerator()
        let loud = (0..<48000 * 3).map { _ in Int16.random(in: -20000...20000, using: &noise) }
        let big = try AudioService.encode(WAVFormat.encode(loud, sampleRate: 48000), limits: Self.limits, bitrate: 128_000)
        let bigPages = try OggPage.read(big.0)
        #expect(bigPages.dropFirst(2).reduce(0) { $0 + $1.packets.count } == 150 + 1, "3 s of 20 ms packets, and the one that flushes the delay")
    }

    @Test("refusals carry a stable code and reason", arguments: [
        ("text", "unsupported_media_type", "not_wav"), ("stereo", "unsupported_media_type", "wav_format"),
        ("8-bit", "unsupported_media_type", "wav_format"), ("44.1 kHz", "unsupported_media_type", "wav_format"),
        ("too long", "too_large", "too_long"), ("empty", "invalid", "empty"), ("cut short", "invalid", "wav_malformed"),
    ])
    func refusals(kind: String, code: String, reason: String) throws {
        // Half a second, inside the limit, but for the refusal that is about the length.
        var wav = WAVFormat.encode(tone(hertz: 440, seconds: kind == "too long" ? 2 : 0.5, rate: 16000), sampleRate: 16000)
        let limits = AudioLimits(maxBytes: 10 << 20, maxSeconds: 1)
        switch kind {
        case "text": wav = Data("just words, named voice.wav".utf8)
        case "stereo": wav[22] = 2
        case "8-bit": wav[34] = 8
        case "44.1 kHz": wav = WAVFormat.encode([0, 1, 2], sampleRate: 44100)
        case "empty": wav = WAVFormat.encode([], sampleRate: 16000)
        case "cut short": wav = WAVFormat.encode(tone(hertz: 440, seconds: 0.5, rate: 16000), sampleRate: 16000).prefix(4000)
        default: break
        }
        do {
            _ = try AudioService.encode(wav, limits: limits, bitrate: 24000)
            Issue.record("\(kind) was taken")
        } catch {
            #expect(error.code.rawValue == code, "\(kind): \(error)")
            #expect(error.details["reason"] == reason, "\(kind): \(error)")
            #expect(error.message.count > 40, "a sentence that says what to do: \(error.message)")
        }
    }
}
