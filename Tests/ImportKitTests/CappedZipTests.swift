import Foundation
import ImportKit
import Testing
import ZIPFoundation

/// Zip entries inflated under a cap on their output: a small entry that unpacks large is refused
/// at the cap, not unpacked whole.
@Suite struct CappedZipTests {
    /// A zip in a temporary file with `entries` (name, bytes), deflated.
    func zip(_ entries: [(String, Data)]) throws -> (URL, Archive) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("capped-\(UUID().uuidString).zip")
        let archive = try Archive(url: url, accessMode: .create)
        for (name, data) in entries {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return (url, try Archive(url: url, accessMode: .read))
    }

    @Test func anEntryUnderTheCapIsReadWhole() throws {
        let text = Data(String(repeating: "word,definition\n", count: 100).utf8)
        let (url, archive) = try zip([("a.csv", text)])
        defer { try? FileManager.default.removeItem(at: url) }
        let entry = try #require(archive["a.csv"])
        #expect(try CappedZip.read(entry, from: archive, limit: text.count) == text)
    }

    @Test func anEntryThatInflatesPastTheCapIsRefused() throws {
        // 8 MB of zeros deflate to a few KB.
        let bomb = Data(count: 8 << 20)
        let (url, archive) = try zip([("bomb", bomb), ("small", Data("ok".utf8))])
        defer { try? FileManager.default.removeItem(at: url) }
        let entry = try #require(archive["bomb"])
        #expect(entry.compressedSize < 64 << 10)
        #expect(throws: CappedZip.TooLarge.self) { try CappedZip.read(entry, from: archive, limit: 64 << 10) }
        // The refusal is the entry's: the others read.
        let small = try #require(archive["small"])
        #expect(try CappedZip.read(small, from: archive, limit: 64 << 10) == Data("ok".utf8))
    }

    @Test func extractingStopsAtTheCapAndLeavesNoFile() throws {
        let bomb = Data(count: 4 << 20)
        let (url, archive) = try zip([("bomb", bomb)])
        defer { try? FileManager.default.removeItem(at: url) }
        let entry = try #require(archive["bomb"])
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("capped-out-\(UUID().uuidString)")
        #expect(throws: CappedZip.TooLarge.self) { try CappedZip.extract(entry, from: archive, to: out, limit: 1 << 20) }
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try CappedZip.extract(entry, from: archive, to: out, limit: 4 << 20) == 4 << 20)
        try? FileManager.default.removeItem(at: out)
    }

    /// A header that claims less than the entry holds: the count of what inflates is what stops it.
    @Test func aHeaderThatUnderstatesTheSizeDoesNotGetPastTheCap() throws {
        let bomb = Data(count: 2 << 20)
        let (url, _) = try zip([("bomb", bomb)])
        defer { try? FileManager.default.removeItem(at: url) }
        // Rewrite the uncompressed size (local header offset 22, central directory offset 24) to 1 KB.
        var bytes = try Data(contentsOf: url)
        let small: [UInt8] = [0x00, 0x04, 0x00, 0x00]
        bytes.replaceSubrange(22..<26, with: small)
        let central = try #require(bytes.firstRange(of: Data([0x50, 0x4B, 0x01, 0x02])))
        bytes.replaceSubrange((central.lowerBound + 24)..<(central.lowerBound + 28), with: small)
        try bytes.write(to: url)
        let archive = try Archive(url: url, accessMode: .read)
        let entry = try #require(archive["bomb"])
        #expect(entry.uncompressedSize == 1024)
        #expect(throws: (any Error).self) { try CappedZip.read(entry, from: archive, limit: 64 << 10) }
        var produced = 0
        do {
            _ = try CappedZip.read(entry, from: archive, limit: 64 << 10)
        } catch let error as CappedZip.TooLarge {
            produced = error.limit
        } catch {
            // ZIPFoundation may stop it first (the sizes disagree): refused either way.
        }
        #expect(produced == 0 || produced == 64 << 10)
    }
}
