import Bus
import DrawingAPI
import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import MediaAPI
import StorageAPI

/// Tags as people send them: a list (`["tom", "london"]`) or the text they typed
/// (`"Tom, London #trip"`); ``TagRules/normalize(_:)`` makes words of either.
struct TagsInput: Decodable {
    var values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            values = [text]
        } else {
            values = try container.decode([String].self)
        }
    }
}

struct ImportInput: Decodable {
    var url: String
    var takenAt: String?
    var latitude: Double?
    var longitude: Double?
    var accuracy: Double?
    var tags: TagsInput?
    var notes: String?
}

/// `POST …/edit`: what to change of the picture as it looks now, applied in this order.
struct ImageEditInput: Decodable {
    var straighten: Double?
    var rotate: Int?
    var crop: ImageEdit.Fractions?
}

/// A PATCH body; `location: null` removes the location, leaving it out keeps it.
struct EditInput: Decodable {
    struct Point: Decodable {
        var latitude: Double?
        var longitude: Double?
        var accuracy: Double?
    }
    var notes: String?
    var tags: [String]?
    var takenAt: String?
    var location: Point?
    var locationGiven = false

    enum CodingKeys: String, CodingKey { case notes, tags, takenAt, location }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        notes = try container.decodeIfPresent(String.self, forKey: .notes)
        tags = try container.decodeIfPresent(TagsInput.self, forKey: .tags)?.values
        takenAt = try container.decodeIfPresent(String.self, forKey: .takenAt)
        locationGiven = container.contains(.location)
        location = try container.decodeIfPresent(Point.self, forKey: .location)
    }
}

struct PhotoJSON: Encodable, VersionedRepresentation {
    struct Links: Encodable {
        var image: String
        var thumbnail: String
        var display: String
        var markup: String
        var marked: String
    }
    struct PlaceJSON: Encodable {
        var key: String
        var label: String
        var city: String
        var region: String?
        var country: String
        var countryCode: String
    }

    var id: String
    var version: Int64
    var takenAt: String
    var takenAtSource: String
    var notes: String
    var tags: [String]
    var location: PhotoData.Location?
    var place: PlaceJSON?
    var source: String
    var sourceURL: String?
    var uploadedAt: Date
    var width: Int
    var height: Int
    var format: String
    var hasMarkup: Bool
    /// Cropped, rotated or straightened: `POST …/revert` brings back the picture as it was added.
    var edited: Bool
    /// The caption recorded in a voice: its SHA-256 and length (GET …/voice plays it).
    var voice: String?
    var voiceMs: Int?
    /// The caregiver whose voice the recorded caption is in ("Anna"); `null` when the user recorded
    /// it or there is no recording. Said as `null`, not left out: a client merges an answer over the
    /// copy it holds (routes may answer with fewer fields than the feed), so a field left out would
    /// keep the old "in Anna's voice" there. (`String??`: the synthesized encoder writes the inner
    /// nil as `null`.)
    var voiceBy: String??
    /// The caregiver who wrote the caption ("Caption by Anna"); `null` when the user did, as voiceBy.
    var captionBy: String??
    /// The caregiver who added it ("Added by Anna"); absent when the user did.
    var addedBy: String?
    var links: Links
    /// After an edit merged into newer changes: what it overwrote of them.
    var replaced: [String: JSONValue]?
    /// With `replaced.notes`: the caregiver who had written the caption replaced ("Anna"); absent
    /// when the user had (or a device of theirs).
    var replacedBy: String?

    init(_ record: Record, _ photo: PhotoData) {
        let base = "/api/v1/album/photos/\(record.id)"
        (id, version, takenAt, takenAtSource, notes, tags) = (record.id, record.version, photo.takenAt, photo.takenAtSource, photo.notes, photo.tags)
        (location, source, sourceURL, uploadedAt) = (photo.location, photo.source, photo.sourceURL, photo.uploadedAt)
        (width, height, format, hasMarkup, edited) = (photo.width, photo.height, photo.format, photo.markup != nil, photo.original != nil)
        addedBy = photo.addedBy?.name
        (voice, voiceMs, voiceBy) = (photo.voice, photo.voiceMs, .some(photo.voiceBy?.name))
        captionBy = .some(photo.captionBy?.name)
        place = photo.place.map { PlaceJSON(key: photo.placeKey ?? "", label: $0.label, city: $0.city, region: $0.region, country: $0.country,
                                            countryCode: $0.countryCode) }
        links = Links(image: base + "/image", thumbnail: base + "/image/thumb", display: base + "/image/display", markup: base + "/markup",
                      marked: base + "/marked")
    }

    static func response(_ record: Record, replaced: [String: JSONValue] = [:], replacedBy: String? = nil, replayed: Bool = false) throws -> Response {
        var json = PhotoJSON(record, try record.decode(PhotoData.self))
        json.replaced = replaced.isEmpty ? nil : replaced
        json.replacedBy = replaced.isEmpty ? nil : replacedBy
        var headers: HTTPFields = [.eTag: "\"\(record.version)\""]
        if replayed { headers[.idempotentReplayed] = "true" }
        return try .json(json, headers: headers)
    }
}

struct ThumbnailJSON: Encodable {
    var id: String
    var takenAt: String
    var tags: [String]
    var thumbnail: String

    init(_ item: Thumbnail) {
        (id, takenAt, tags) = (item.id, item.takenAt, item.tags)
        thumbnail = "/api/v1/album/photos/\(item.id)/image/thumb"
    }
}

struct CountJSON: Encodable {
    var key: String
    var label: String
    var count: Int
}


struct MarkupScreen: Encodable {
    struct Markup: Encodable {
        var drawing: Drawing
        /// The canvas: the photo as seen. Drawing coordinates are 0…1 of it.
        var width: Int
        var height: Int
        var image: String
    }
    var photo: PhotoJSON
    var markup: Markup
    /// The user's most used tags, to tap rather than type.
    var suggestedTags: [String]
}
