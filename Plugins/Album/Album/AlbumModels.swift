import Bus
import Foundation
import MediaAPI
import Secrets

/// A photo as stored (`album.photos`). Times are wall-clock (what the camera's clock showed),
/// `YYYY-MM-DDTHH:MM:SS`, so that "the morning of May 3rd" stays the morning wherever it is viewed.
struct PhotoData: Codable, Sendable, Equatable {
    var image: String
    var format: String
    /// As seen (EXIF orientation applied).
    var width: Int
    var height: Int
    var takenAt: String
    /// exif, device (the client's clock at capture), upload (the server's clock), user.
    var takenAtSource: String
    /// `takenAt|id`: unique, in time order; every time query ranges over it.
    var sortKey: String
    var month: String
    var day: String
    var notes: String
    var tags: [String]
    /// The mark-up drawing (a drawing blob), laid over the photo; the original stays as it was.
    var markup: String?
    /// The caption recorded in a voice (the audio plugin's Ogg Opus blob) and its length in ms.
    var voice: String?
    var voiceMs: Int?
    /// The caregiver whose voice the recorded caption is in; absent when the user recorded it.
    var voiceBy: Contributor? = nil
    /// The caregiver who wrote the caption as it is now ("Caption by Anna"); absent when the user
    /// did (their own edit of the words clears it).
    var captionBy: Contributor? = nil
    /// After a crop, rotation or straightening: the picture as it was uploaded (kept, so the edit
    /// can be reverted), and its format. `image` is then the edited picture.
    var original: String?
    var originalFormat: String?
    /// The edits since `original`, in order (each on the picture the one before left): the
    /// mark-up is moved back through them on a revert.
    var edits: [ImageEdit]?
    var location: Location?
    var placeKey: String?
    var place: PlaceName?
    /// camera, library, url.
    var source: String
    var sourceURL: String?
    var uploadedAt: Date
    /// Added by one of the user's caregivers (AlbumCaregiving.swift): who, as the user sees them.
    var addedBy: Contributor? = nil

    struct Location: Codable, Sendable, Equatable {
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
        var altitude: Double?
        /// exif, device, user.
        var source: String
    }

    struct PlaceName: Codable, Sendable, Equatable {
        var label: String
        var city: String
        var region: String?
        var country: String
        var countryCode: String
    }

    /// `time` is RFC 3339 with its offset (``TakenTime/normalize(_:zone:)``); the album sorts and
    /// files photos by the wall-clock time (the first 19 characters), as the person saw the clock.
    mutating func setTakenAt(_ time: String, source: String, id: String) {
        takenAt = time
        takenAtSource = source
        sortKey = "\(time.prefix(19))|\(id)"
        month = String(time.prefix(7))
        day = String(time.prefix(10))
    }
}

/// One photo under one of its tags (`album.tagged`), in time order: what a tag search walks. It
/// carries what a thumbnail shows, so a search reads nothing else.
struct Posting: Codable, Sendable, Equatable {
    var tag: String
    var sortKey: String
    var photo: String
    var tags: [String]
    var image: String
    var takenAt: String
    var placeKey: String?

    static func id(photo: String, tag: String) -> String { "\(photo):\(TagRules.hash(tag))" }
}

/// How many photos are in a folder or carry a tag (`album.counts`), kept in the same batch as the photo.
struct Counter: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable, CaseIterable { case tag, month, day, place }
    var kind: Kind
    var key: String
    var label: String
    var count: Int

    /// Each owner has their own counters: the id hashes the owner with the key (ids are unique across
    /// owners, so a shared id let one user's "beach" or "2024-05" block everyone else's).
    static func id(owner: String, _ kind: Kind, _ key: String) -> String {
        "\(kind.rawValue):\(Secrets.sha256Hex(owner + "\u{0}" + key).prefix(32))"
    }
}

/// Tags are single words: what people type is forgiven — "#Beach, sunset Dog" is Beach, sunset, Dog.
/// A tag keeps the case it was typed in (names matter: "Tom", not "tom"); it is matched, counted and
/// made unique by its ``key(_:)``, case-folded, so "tom" finds "Tom" and a photo has Tom once.
enum TagRules {
    static let maxTags = 30
    static let maxLength = 40

    static func normalize(_ raw: [String]) throws(BusError) -> [String] {
        var tags: [String] = []
        var keys: Set<String> = []
        for text in raw {
            for word in text.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == ";" }) {
                let cleaned = String(word.precomposedStringWithCanonicalMapping
                    .filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
                guard !cleaned.isEmpty else { continue }
                guard cleaned.count <= maxLength else {
                    throw BusError.invalid("A tag is one word of at most \(maxLength) characters; '\(cleaned.prefix(20))…' is longer.", field: "tags")
                }
                if keys.insert(key(cleaned)).inserted { tags.append(cleaned) }
            }
        }
        guard tags.count <= maxTags else { throw BusError.invalid("A photo takes at most \(maxTags) tags.", field: "tags") }
        return tags
    }

    /// What a tag is matched, counted and indexed by: case-folded (the photo shows it as typed).
    static func key(_ tag: String) -> String {
        tag.lowercased().precomposedStringWithCanonicalMapping
    }

    static func hash(_ text: String) -> String {
        // FNV-1a 64: short, stable ids for tags and folder keys (collisions only merge two counters' ids
        // for one owner, which the key stored in each record exposes; 64 bits make that practically never).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Times as people give them: `2024-05-03`, `2024-05-03T14:22`, `2024-05-03 14:22:10`, with or
/// without an offset (dropped: the wall clock is kept).
enum TakenTime {
    /// `YYYY-MM-DDTHH:MM:SS±HH:MM` (RFC 3339), or nil when `text` is not a time. A time given with
    /// an offset (`Z`, `+01:00`) keeps it; one without (EXIF's DateTimeOriginal, a typed date) gets
    /// `zone`'s offset at that wall-clock time.
    static func normalize(_ text: String, zone: TimeZone) -> String? {
        var trimmed = Substring(text.trimmingCharacters(in: .whitespaces))
        var offset: String?
        if trimmed.hasSuffix("Z") || trimmed.hasSuffix("z") {
            offset = "+00:00"
            trimmed = trimmed.dropLast()
        } else if trimmed.count > 16, let sign = trimmed.dropLast(5).last, sign == "+" || sign == "-", trimmed.dropLast(5).count >= 11 {
            let tail = Array(trimmed.suffix(5).utf8)
            guard tail.count == 5, tail[2] == 58, [0, 1, 3, 4].allSatisfy({ (48...57).contains(tail[$0]) }),
                  let hours = Int(String(decoding: tail[0..<2], as: UTF8.self)), hours <= 14,
                  let minutes = Int(String(decoding: tail[3..<5], as: UTF8.self)), minutes <= 59 else { return nil }
            offset = String(sign) + String(decoding: tail, as: UTF8.self)
            trimmed = trimmed.dropLast(6)
        }
        guard let wall = wallClock(String(trimmed)) else { return nil }
        return wall + (offset ?? Self.offset(of: zone, at: wall))
    }

    /// `zone`'s offset (`+02:00`) at a wall-clock time in it.
    static func offset(of zone: TimeZone, at wall: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = wall.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        let date = parts.count == 6
            ? calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5]))
            : nil
        // Without a date (never: `wall` is always six numbers), the zone's offset as it is now.
        let seconds = date.map { zone.secondsFromGMT(for: $0) } ?? zone.secondsFromGMT()
        return String(format: "%@%02d:%02d", seconds < 0 ? "-" : "+", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
    }

    /// `YYYY-MM-DDTHH:MM:SS` from a date or a time without offset, or nil.
    static func wallClock(_ text: String) -> String? {
        let scalars = Array(text.utf8)
        guard scalars.count >= 10 else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= scalars.count, scalars[range].allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(String(decoding: scalars[range], as: UTF8.self))
        }
        guard let year = digits(0..<4), scalars[4] == 45 || scalars[4] == 58, let month = digits(5..<7), scalars[7] == scalars[4],
              let day = digits(8..<10) else { return nil }
        var hour = 0, minute = 0, second = 0
        if scalars.count > 10 {
            guard scalars[10] == 84 || scalars[10] == 32, let h = digits(11..<13), scalars.count > 13, scalars[13] == 58, let m = digits(14..<16)
            else { return nil }
            (hour, minute) = (h, m)
            if scalars.count > 16, scalars[16] == 58 {
                guard let s = digits(17..<19) else { return nil }
                second = s
            }
        }
        guard (1800...2200).contains(year), (1...12).contains(month), (1...daysIn(month, year)).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...59).contains(second) else { return nil }
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `now` on the wall clock of `zone`, with its offset.
    static func now(in zone: TimeZone, at now: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: now)
        let wall = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0,
                          parts.minute ?? 0, parts.second ?? 0)
        return wall + offset(of: zone, at: wall)
    }

    /// The first sort key at or after `from` (a time, to the minute, or a day).
    static func lowerBound(_ text: String) throws(BusError) -> String {
        guard let time = wallClock(text.trimmingCharacters(in: .whitespaces)) else {
            throw BusError.invalid("'from' is a date or time such as 2024-05-03 or 2024-05-03T14:22.", field: "from")
        }
        return time
    }

    /// A bound above every sort key up to `to`, inclusive to the minute (or the whole day).
    static func upperBound(_ text: String) throws(BusError) -> String {
        guard let time = wallClock(text.trimmingCharacters(in: .whitespaces)) else {
            throw BusError.invalid("'to' is a date or time such as 2024-05-31 or 2024-05-31T18:00.", field: "to")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let end = trimmed.count <= 10 ? String(time.prefix(10)) + "T23:59:59" : String(time.prefix(16)) + ":59"
        return end + "|~"
    }
}
