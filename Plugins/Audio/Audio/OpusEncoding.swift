import AudioAPI
import Bus
import COpus
import Foundation

/// 16-bit mono PCM to an Ogg Opus file (RFC 7845): the `OpusHead` page (version 1, one channel, the
/// encoder's pre-skip at 48 kHz, the input rate, mapping family 0), the `OpusTags` page, then 20 ms
/// packets from libopus whose pages carry the granule position (48 kHz samples, pre-skip included)
/// of their last packet's end; the last page's granule trims the padding of the last frame.
public enum OpusEncoding {
    public static let vendor = "Quire (libopus)"

    /// - Parameters:
    ///   - bitrate: bits per second (speech: 24 kbit/s is clear).
    ///   - serial: the Ogg stream's serial number (the caller derives it from the input, so the
    ///     same recording makes the same file).
    public static func encode(_ samples: [Int16], sampleRate: Int, bitrate: Int, serial: UInt32) throws(BusError) -> Data {
        guard WAVFormat.sampleRates.contains(sampleRate) else {
            throw BusError(.invalid, "Opus encodes 8, 12, 16, 24 or 48 kHz; \(sampleRate) Hz is none of them.")
        }
        guard !samples.isEmpty else { throw BusError(.invalid, "There is no sound to encode (no samples).") }
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(sampleRate), 1, OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw BusError(.internal, "The Opus encoder could not start (libopus error \(error)).")
        }
        defer { opus_encoder_destroy(encoder) }
        _ = quire_opus_set_bitrate(encoder, Int32(bitrate))
        _ = quire_opus_set_signal_voice(encoder)
        var lookahead: Int32 = 0
        _ = quire_opus_get_lookahead(encoder, &lookahead)
        let scale = 48000 / sampleRate
        let preSkip = Int(lookahead) * scale

        var ogg = OggWriter(serial: serial)
        ogg.page(alone: head(preSkip: preSkip, inputRate: sampleRate), granule: 0, first: true)
        ogg.page(alone: tags(), granule: 0)

        let frame = sampleRate / 50
        // The encoder's delay is made up at the end: the last real sample must leave the encoder.
        let total = samples.count + Int(lookahead)
        let frames = (total + frame - 1) / frame
        var input = [Int16](repeating: 0, count: frame)
        var packet = [UInt8](repeating: 0, count: 4000)
        var granule = Int64(0)
        for index in 0..<frames {
            let start = index * frame
            for offset in 0..<frame {
                let at = start + offset
                input[offset] = at < samples.count ? samples[at] : 0
            }
            let length = opus_encode(encoder, input, Int32(frame), &packet, Int32(packet.count))
            guard length > 0 else { throw BusError(.internal, "The Opus encoder failed on frame \(index) (libopus error \(length)).") }
            granule += Int64(frame * scale)
            if index == frames - 1 {
                ogg.finish(last: Data(packet[0..<Int(length)]), granule: Int64(preSkip + samples.count * scale))
            } else {
                ogg.audio(Data(packet[0..<Int(length)]), granule: granule)
            }
        }
        return ogg.bytes
    }

    /// The identification header (RFC 7845 §5.1).
    static func head(preSkip: Int, inputRate: Int) -> Data {
        var data = Data("OpusHead".utf8)
        data.append(1)  // version
        data.append(1)  // channels
        withUnsafeBytes(of: UInt16(preSkip).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(inputRate).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: [0, 0])  // output gain
        data.append(0)  // mapping family 0: mono or stereo, no table
        return data
    }

    /// The comment header (RFC 7845 §5.2): the vendor, no comments.
    static func tags() -> Data {
        var data = Data("OpusTags".utf8)
        let vendor = Data(Self.vendor.utf8)
        withUnsafeBytes(of: UInt32(vendor.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(vendor)
        withUnsafeBytes(of: UInt32(0).littleEndian) { data.append(contentsOf: $0) }
        return data
    }
}
