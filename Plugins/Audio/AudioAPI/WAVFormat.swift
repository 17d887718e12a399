public import Bus
public import Foundation

/// The one WAV the audio capability takes: RIFF/WAVE, PCM (format 1), 16-bit, mono, at a rate Opus
/// encodes (8, 12, 16, 24 or 48 kHz) — what the web client makes of a recording
/// (`AudioContext.decodeAudioData`, resampled). Read strictly, from the first bytes on: a header that
/// is anything else is refused before the rest of the body is read (``checkHead(_:limits:)``), and the
/// whole file's chunks are walked within its length (``parse(_:limits:)``), never past it.
///
/// Refusals are ``BusError``s with a stable `code` and `details["reason"]`:
/// - `unsupported_media_type` + `not_wav`: not RIFF/WAVE at all;
/// - `unsupported_media_type` + `wav_format`: a WAV, but not 16-bit mono PCM at an Opus rate;
/// - `invalid` + `wav_malformed`: a chunk's length runs past the file, no `fmt ` or `data`, an odd data length;
/// - `invalid` + `empty`: no samples;
/// - `too_large` + `too_long`: longer than the app allows (`details["limit"]`: `max_seconds`).
public struct WAVFormat: Sendable, Equatable {
    public static let sampleRates: Set<Int> = [8000, 12000, 16000, 24000, 48000]
    /// Bytes of the head ``checkHead(_:limits:)`` reads: RIFF header, the `fmt ` chunk's header and
    /// its first fields up to the byte rate (a canonical WAV's first 32 bytes).
    public static let headBytes = 32

    public var sampleRate: Int
    /// Where the samples start in the file, and how many bytes of them there are.
    public var dataOffset: Int
    public var dataBytes: Int

    public var sampleCount: Int { dataBytes / 2 }
    public var seconds: Double { Double(sampleCount) / Double(sampleRate) }

    public init(sampleRate: Int, dataOffset: Int, dataBytes: Int) {
        self.sampleRate = sampleRate
        self.dataOffset = dataOffset
        self.dataBytes = dataBytes
    }

    /// The reasons in refusals' `details["reason"]`.
    public enum Reason: String, Sendable {
        case notWAV = "not_wav", format = "wav_format", malformed = "wav_malformed", empty, tooLong = "too_long"
    }

    static let what = "A voice recording"
    static let expected = "send a 16-bit mono PCM WAV at 8, 12, 16, 24 or 48 kHz (the app records one for you)"

    static func refusal(_ code: BusError.Code, _ reason: Reason, _ message: String, _ extra: [String: String] = [:]) -> BusError {
        BusError(code, message, details: extra.merging(["reason": reason.rawValue]) { first, _ in first })
    }

    /// Refuses, from the first ``headBytes`` bytes (fewer when the body is shorter), anything that is
    /// not the WAV taken: not RIFF/WAVE, the `fmt ` chunk not first, not PCM, not mono, not an Opus
    /// rate, a byte rate that does not match, or a RIFF length that says it is longer than allowed.
    public static func checkHead(_ head: Data, limits: AudioLimits) throws(BusError) {
        let bytes = [UInt8](head.prefix(headBytes))
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw refusal(.unsupportedMedia, .notWAV, "\(what) must be a WAV file (RIFF/WAVE); these bytes are not one, whatever their name or "
                          + "Content-Type says: \(expected).")
        }
        guard bytes.count >= headBytes, bytes[12..<16].elementsEqual("fmt ".utf8) else {
            throw refusal(.unsupportedMedia, .format, "\(what)'s WAV must start with its 'fmt ' chunk (a canonical WAV header): \(expected).")
        }
        let fmtSize = le32(bytes, 16), format = le16(bytes, 20), channels = le16(bytes, 22), rate = le32(bytes, 24), byteRate = le32(bytes, 28)
        guard fmtSize >= 16, fmtSize <= 64, format == 1, channels == 1, sampleRates.contains(rate), byteRate == rate * 2 else {
            throw refusal(.unsupportedMedia, .format, "\(what) must be 16-bit mono PCM at an Opus rate; this WAV is format \(format), "
                          + "\(channels) channel(s) at \(rate) Hz: \(expected).")
        }
        // The RIFF length bounds the samples: a header that announces more than the app allows is
        // refused before the samples are read.
        let riffSize = le32(bytes, 4)
        if riffSize > 36, (riffSize - 36) / byteRate > limits.maxSeconds {
            throw tooLong(seconds: Double(riffSize - 36) / Double(byteRate), limits: limits)
        }
    }

    /// The whole file read strictly: RIFF/WAVE, the `fmt ` chunk (as ``checkHead(_:limits:)`` checks
    /// it, plus 2-byte blocks of 16 bits) before the `data` chunk, other chunks skipped, every
    /// length within the file, and at most `limits.maxSeconds` of samples.
    public static func parse(_ data: Data, limits: AudioLimits) throws(BusError) -> WAVFormat {
        let bytes = [UInt8](data)
        try checkHead(Data(bytes.prefix(headBytes)), limits: limits)
        var offset = 12
        var rate: Int?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self), size = le32(bytes, offset + 4)
            let body = offset + 8
            guard size <= bytes.count - body else {
                throw refusal(.invalid, .malformed, "\(what)'s WAV is cut short: its '\(id)' chunk says \(size) bytes, \(bytes.count - body) follow. "
                              + "Record it again.")
            }
            switch id {
            case "fmt ":
                guard rate == nil, size >= 16 else {
                    throw refusal(.invalid, .malformed, "\(what)'s WAV has a second or short 'fmt ' chunk: \(expected).")
                }
                let blockAlign = le16(bytes, body + 12), bits = le16(bytes, body + 14)
                guard blockAlign == 2, bits == 16 else {
                    throw refusal(.unsupportedMedia, .format, "\(what) must be 16-bit mono PCM; this WAV has \(bits)-bit samples in "
                                  + "\(blockAlign)-byte blocks: \(expected).")
                }
                rate = le32(bytes, body + 4)
            case "data":
                guard let rate else {
                    throw refusal(.invalid, .malformed, "\(what)'s WAV has its samples before its 'fmt ' chunk: \(expected).")
                }
                guard size % 2 == 0 else {
                    throw refusal(.invalid, .malformed, "\(what)'s WAV has \(size) bytes of 16-bit samples, an odd number: \(expected).")
                }
                guard size > 0 else { throw refusal(.invalid, .empty, "\(what) has no sound in it (no samples); record again, a little longer.") }
                let format = WAVFormat(sampleRate: rate, dataOffset: body, dataBytes: size)
                guard format.seconds <= Double(limits.maxSeconds) else { throw tooLong(seconds: format.seconds, limits: limits) }
                return format
            default: break
            }
            offset = body + size + (size & 1)
        }
        throw refusal(.invalid, .malformed, "\(what)'s WAV has no 'data' chunk (no samples): \(expected).")
    }

    static func tooLong(seconds: Double, limits: AudioLimits) -> BusError {
        refusal(.tooLarge, .tooLong, "\(what) is at most \(limits.maxSeconds) seconds long; this one is \(Int(seconds.rounded(.up))) s. "
                + "Record a shorter one, or split it in two.", ["limit": "max_seconds"])
    }

    /// The samples, little-endian 16-bit, from a file ``parse(_:limits:)`` read.
    public func samples(of data: Data) -> [Int16] {
        let start = data.startIndex + dataOffset
        return data[start..<start + dataBytes].withUnsafeBytes { raw in
            (0..<sampleCount).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    static func le16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    static func le32(_ bytes: [UInt8], _ at: Int) -> Int { le16(bytes, at) | le16(bytes, at + 2) << 16 }

    /// A WAV of `samples` at `sampleRate` as the web client writes one (for tests and tools).
    public static func encode(_ samples: [Int16], sampleRate: Int) -> Data {
        var out = Data()
        func put32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: Array("RIFF".utf8))
        put32(36 + samples.count * 2)
        out.append(contentsOf: Array("WAVEfmt ".utf8))
        put32(16); put16(1); put16(1); put32(sampleRate); put32(sampleRate * 2); put16(2); put16(16)
        out.append(contentsOf: Array("data".utf8))
        put32(samples.count * 2)
        for sample in samples { put16(Int(sample)) }
        return out
    }
}
