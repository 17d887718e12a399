public import Foundation
public import ZIPFoundation

/// Reading a zip entry an uploaded file holds without trusting it: the output of inflating is
/// counted as it comes, and reading stops once it passes the cap (at most the cap plus one
/// decompression buffer is ever produced), whatever size the entry's header claims. A 255 KB
/// entry that inflates to 100 MB costs the cap, not 100 MB.
public enum CappedZip {
    /// Bytes inflated per step: what past the cap may be produced before reading stops.
    public static let bufferSize = 16 << 10

    /// An entry whose content is larger than the cap (by its header, or found while inflating).
    public struct TooLarge: Error, Sendable, Equatable {
        /// The cap, in bytes.
        public let limit: Int
        /// How large the header says it is (it may lie; reading stopped at the cap).
        public let declared: UInt64
    }

    /// The entry's bytes, at most `limit` of them.
    /// - Throws: ``TooLarge`` past `limit`; ZIPFoundation's error for a damaged entry.
    public static func read(_ entry: Entry, from archive: Archive, limit: Int) throws -> Data {
        guard entry.uncompressedSize <= UInt64(max(0, limit)) else { throw TooLarge(limit: limit, declared: entry.uncompressedSize) }
        var data = Data()
        _ = try archive.extract(entry, bufferSize: bufferSize, skipCRC32: false) { chunk in
            guard data.count + chunk.count <= limit else { throw TooLarge(limit: limit, declared: entry.uncompressedSize) }
            data.append(chunk)
        }
        return data
    }

    /// Writes the entry's bytes to a new file at `file`, at most `limit` of them, a buffer at a
    /// time; a refused or damaged entry leaves no file behind.
    /// - Returns: the number of bytes written.
    /// - Throws: ``TooLarge`` past `limit`; the file system's or ZIPFoundation's error.
    @discardableResult
    public static func extract(_ entry: Entry, from archive: Archive, to file: URL, limit: Int) throws -> Int {
        guard entry.uncompressedSize <= UInt64(max(0, limit)) else { throw TooLarge(limit: limit, declared: entry.uncompressedSize) }
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        var written = 0
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            _ = try archive.extract(entry, bufferSize: bufferSize, skipCRC32: false) { chunk in
                guard written + chunk.count <= limit else { throw TooLarge(limit: limit, declared: entry.uncompressedSize) }
                try handle.write(contentsOf: chunk)
                written += chunk.count
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return written
    }
}
