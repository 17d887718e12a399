import Bus
import Foundation
import ImportKit
import ZIPFoundation

/// Anki's media in an `.apkg`: a JSON map named `media` (`{"0": "word.ogg", …}`) from zip entries
/// named by number to the file names notes use, as `[sound:word.ogg]` in a field.
///
/// Export: an entry's recorded pronunciation (Ogg Opus, the audio plugin's) goes in as
/// `quire-<first 16 of its SHA-256>.ogg`, named in the Word field. Import: the first `[sound:…]` of a
/// note becomes its entry's pronunciation when the package holds that file and it is an Ogg Opus
/// recording of at most ``maxSoundBytes`` (checked before it is kept, as an upload is); other
/// sounds (MP3s of shared decks) are left out. A media map that is not Anki's — not a JSON object
/// of names, a name with a path in it, a number the zip has no entry for, too many or too long —
/// refuses the whole file before anything is written.
enum AnkiMedia {
    /// The largest media map read (Anki's for 50,000 files is about 1.5 MB).
    static let maxMapBytes = 4 << 20
    static let maxFiles = 50_000
    static let maxNameBytes = 255
    /// The largest recording read from a package (the audio plugin's default upload limit).
    static let maxSoundBytes = 10 << 20

    /// A package's media: file names → the zip entries holding them, read from the package's file
    /// when a note names one.
    final class Package: @unchecked Sendable {
        let file: URL
        let entries: [String: String]
        private var archive: Archive?

        init(file: URL, entries: [String: String]) {
            self.file = file
            self.entries = entries
        }

        /// The bytes of `name` when the package has it and it is an Ogg Opus recording of at most
        /// ``maxSoundBytes``; nil otherwise (damaged, too large, another format). Read on the import
        /// job's worker thread, one at a time.
        func sound(_ name: String) -> Data? {
            guard let path = entries[name] else { return nil }
            do {
                if archive == nil { archive = try Archive(url: file, accessMode: .read, pathEncoding: nil) }
                guard let archive, let entry = archive[path] else { return nil }
                let bytes = try CappedZip.read(entry, from: archive, limit: maxSoundBytes)
                return durationMs(bytes) == nil ? nil : bytes
            } catch {
                return nil
            }
        }
    }

    static func refused(_ why: String) -> BusError {
        BusError(.unsupportedMedia, "The package's media list (its 'media' file) is not Anki's: \(why). Export the deck again from Anki.",
                 details: ["reason": "bad_media_map"])
    }

    /// The package's media map, checked; nil when it has none (or an empty one).
    static func read(_ archive: Archive, file: URL) throws(BusError) -> Package? {
        guard let entry = archive["media"] else { return nil }
        let bytes: Data
        do {
            bytes = try CappedZip.read(entry, from: archive, limit: maxMapBytes)
        } catch is CappedZip.TooLarge {
            throw refused("it is larger than \(maxMapBytes >> 20) MB")
        } catch {
            throw refused("it cannot be unpacked")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: bytes)
        } catch {
            throw refused("it is not JSON")
        }
        guard let map = parsed as? [String: Any] else { throw refused("it is not a JSON object") }
        if map.isEmpty { return nil }
        guard map.count <= maxFiles else { throw refused("it names more than \(maxFiles) files") }
        var entries: [String: String] = [:]
        for (number, value) in map {
            guard !number.isEmpty, number.count <= 10, number.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw refused("'\(number.prefix(40))' is not a number naming one of the package's files")
            }
            guard let name = value as? String else { throw refused("the file \(number)'s name is not text") }
            guard isFileName(name) else { throw refused("'\(name.prefix(60))' is not a plain file name") }
            guard archive[number] != nil else { throw refused("it names file \(number), which the package does not hold") }
            guard entries[name] == nil else { throw refused("'\(name.prefix(60))' is named twice") }
            entries[name] = number
        }
        return Package(file: file, entries: entries)
    }

    /// A name Anki would write: no folders, no `..`, no control characters, at most 255 bytes.
    static func isFileName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxNameBytes && name != "." && name != ".."
            && !name.contains("/") && !name.contains("\\") && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    // MARK: Fields

    /// The `[sound:…]` names in a field, in order.
    static func sounds(in field: String) -> [String] {
        var names: [String] = []
        var rest = field[...]
        while let start = rest.range(of: "[sound:") {
            guard let end = rest[start.upperBound...].firstIndex(of: "]") else { break }
            let name = String(rest[start.upperBound..<end])
            if isFileName(name) { names.append(name) }
            rest = rest[rest.index(after: end)...]
        }
        return names
    }

    /// The field without its `[sound:…]` tags (what the word is).
    static func strippingSounds(_ field: String) -> String {
        var text = field
        while let start = text.range(of: "[sound:"), let end = text[start.upperBound...].firstIndex(of: "]") {
            text.removeSubrange(start.lowerBound...end)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// The name an entry's recording is exported as.
    static func soundName(_ sha256: String) -> String {
        "quire-\(sha256.prefix(16)).ogg"
    }

    /// The recording's length when `data` is an Ogg Opus file (RFC 7845: an `OpusHead` in the first
    /// page, the last page's granule position at 48 kHz less the pre-skip); nil for anything else.
    static func durationMs(_ data: Data) -> Int? {
        let bytes = [UInt8](data.prefix(data.count))
        guard bytes.count >= 47, bytes[0..<4].elementsEqual("OggS".utf8), bytes[28..<36].elementsEqual("OpusHead".utf8) else { return nil }
        let preSkip = Int(bytes[38]) | Int(bytes[39]) << 8
        var page = bytes.count - 27
        while page >= 0, !bytes[page..<page + 4].elementsEqual("OggS".utf8) { page -= 1 }
        guard page >= 0 else { return nil }
        var granule: UInt64 = 0
        for index in (0..<8).reversed() { granule = granule << 8 | UInt64(bytes[page + 6 + index]) }
        guard granule != UInt64.max, granule < UInt64(Int64.max) else { return nil }
        return max(0, Int(granule) - preSkip) * 1000 / 48_000
    }

    // MARK: Writing

    /// The package's media: each file as a zip entry named by its number, and the map.
    static func add(_ media: [(name: String, data: Data)], to archive: Archive) throws {
        var map: [String: String] = [:]
        for (index, file) in media.enumerated() {
            map[String(index)] = file.name
            try archive.addEntry(with: String(index), type: .file, uncompressedSize: Int64(file.data.count)) { position, size in
                file.data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let json = try JSONSerialization.data(withJSONObject: map, options: [.sortedKeys])
        try archive.addEntry(with: "media", type: .file, uncompressedSize: Int64(json.count)) { position, size in
            json.subdata(in: Int(position)..<Int(position) + size)
        }
    }
}
