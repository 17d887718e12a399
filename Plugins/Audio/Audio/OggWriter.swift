import Foundation

/// Ogg pages (RFC 3533) of one logical stream: the capture pattern, the header type (first, last
/// page), the granule position, the stream's serial number, the page's sequence number, its CRC
/// (CRC-32, polynomial 0x04C11DB7, no reflection, initial 0, over the page with the field zeroed)
/// and the segment table that laces its packets (runs of 255 and a shorter last one).
public struct OggWriter: Sendable {
    public private(set) var bytes = Data()
    let serial: UInt32
    var sequence: UInt32 = 0
    /// Packets waiting for their page, laced.
    var segments: [UInt8] = []
    var body = Data()
    var packetsInPage = 0

    public init(serial: UInt32) { self.serial = serial }

    /// A packet alone on its page (the Opus headers: RFC 7845 puts each on a page of its own).
    public mutating func page(alone packet: Data, granule: Int64, first: Bool = false) {
        flush(granule: 0, last: false)
        append(packet)
        flush(granule: granule, first: first, last: false)
    }

    /// An audio packet ending at `granule`: pages hold up to `packetsPerPage` packets (a second of
    /// 20 ms frames) and never more than 255 segments.
    public mutating func audio(_ packet: Data, granule: Int64, packetsPerPage: Int = 50) {
        if segments.count + packet.count / 255 + 1 > 255 { flush(granule: lastGranule, last: false) }
        append(packet)
        lastGranule = granule
        if packetsInPage >= packetsPerPage { flush(granule: granule, last: false) }
    }

    var lastGranule: Int64 = 0

    /// Ends the stream: the last page (end-of-stream flag) with the final granule position, which
    /// RFC 7845 lets end before the last packet's end (the padding of the last frame is trimmed).
    /// The last packet goes on this page, so no earlier page ends past the trimmed end.
    public mutating func finish(last packet: Data, granule: Int64) {
        if segments.count + packet.count / 255 + 1 > 255 { flush(granule: lastGranule, last: false) }
        append(packet)
        flush(granule: granule, last: true)
    }

    mutating func append(_ packet: Data) {
        var left = packet.count
        while left >= 255 {
            segments.append(255)
            left -= 255
        }
        segments.append(UInt8(left))
        body.append(packet)
        packetsInPage += 1
    }

    mutating func flush(granule: Int64, first: Bool = false, last: Bool, force: Bool = false) {
        guard !segments.isEmpty || force else { return }
        var page = Data(capacity: 27 + segments.count + body.count)
        page.append(contentsOf: Array("OggS".utf8))
        page.append(0)  // version
        page.append((first ? 0x02 : 0) | (last ? 0x04 : 0))
        withUnsafeBytes(of: UInt64(bitPattern: granule).littleEndian) { page.append(contentsOf: $0) }
        withUnsafeBytes(of: serial.littleEndian) { page.append(contentsOf: $0) }
        withUnsafeBytes(of: sequence.littleEndian) { page.append(contentsOf: $0) }
        page.append(contentsOf: [0, 0, 0, 0])  // CRC, filled below
        page.append(UInt8(segments.count))
        page.append(contentsOf: segments)
        page.append(body)
        let crc = Self.crc(page)
        withUnsafeBytes(of: crc.littleEndian) { raw in
            for (index, byte) in raw.enumerated() { page[page.startIndex + 22 + index] = byte }
        }
        bytes.append(page)
        sequence += 1
        segments = []
        body = Data()
        packetsInPage = 0
    }

    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    /// Ogg's CRC-32 of `data`.
    public static func crc(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0
        for byte in data { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }
}
