import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import NIOCore
import StorageAPI

/// A note as stored: the payload of a `notes.notes` record.
struct NoteData: Codable, Sendable, Equatable {
    var title: String
    var text: String
    /// The note's date, `YYYY-MM-DD` (the manual's "date" label); today's on creation.
    var date: String
    /// Order key (see `OrderKey`): the list sorts by it, then by id.
    var position: String
    /// Set by the media issue: the blob of the note's one photo.
    var photo: String?
    /// Set by the drawing issue: the blob of the drawing on the back.
    var drawing: String?
    /// The note's category, when the app has categories on (`notes: { categories: true }`).
    var category: String?
    /// The import that brought the note in (Evernote, Keep): rolled back by it if the import fails.
    var importJob: String?
    /// Where the photo was taken, from its EXIF GPS as media read it on upload (beside where the
    /// note was written, which is a geotag); nil when the photo says nothing, or there is no photo.
    var photoPlace: PhotoPlace?
    /// The note's voice recording (the audio plugin's Ogg Opus blob) and its length in
    /// milliseconds; absent when there is none.
    var voice: String?
    var voiceMs: Int?
    /// The text in the photo (`notes: { photo_text: true }`), as the photo-text plugin read it;
    /// searched with the note. `photoTextState`: reading, read or failed; `photoTextJob`: the job
    /// that read (or is reading) this photo. All absent without a photo or with the switch off.
    var photoText: String?
    var photoTextState: String?
    var photoTextJob: String?

    // Written out even when nil: the stored bytes are what clients get, and they should see the
    // fields (as null) before the media and drawing plugins fill them.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(text, forKey: .text)
        try container.encode(date, forKey: .date)
        try container.encode(position, forKey: .position)
        try container.encode(photo, forKey: .photo)
        try container.encode(drawing, forKey: .drawing)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(importJob, forKey: .importJob)
        try container.encodeIfPresent(photoPlace, forKey: .photoPlace)
        try container.encodeIfPresent(voice, forKey: .voice)
        try container.encodeIfPresent(voiceMs, forKey: .voiceMs)
        try container.encodeIfPresent(photoText, forKey: .photoText)
        try container.encodeIfPresent(photoTextState, forKey: .photoTextState)
        try container.encodeIfPresent(photoTextJob, forKey: .photoTextJob)
    }
}

/// A photo's place, from its EXIF GPS.
struct PhotoPlace: Codable, Sendable, Equatable {
    var latitude: Double
    var longitude: Double
}

/// A note as the API shows it: the record's id, version and timestamps, then its stored payload
/// spliced in as it is (see `JSONWriter`).
enum NoteJSON {
    static func write(_ record: Record, replaced: [String: JSONValue] = [:], into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id", record.id)
        writer.key("version", record.version)
        writer.key("createdAt", record.createdAt)
        writer.key("updatedAt", record.updatedAt)
        writer.members(ofObject: record.data.bytes)
        if !replaced.isEmpty, let bytes = try? JSONDocument(encoding: JSONValue.object(replaced)).bytes {
            // What this edit overwrote that another device had written since the edit's base version.
            writer.key("replaced")
            writer.raw(bytes)
        }
        writer.endObject()
    }

    /// The record as the API shows it, as a JSON object (sync's feed).
    static func document(_ record: Record) -> JSONDocument {
        var writer = JSONWriter(capacity: 256 + record.data.bytes.count)
        write(record, into: &writer)
        return JSONDocument(trustedBytes: Data(writer.bytes))
    }

    static func response(_ record: Record, replaced: [String: JSONValue] = [:], status: HTTPResponse.Status = .ok,
                         headers: HTTPFields = [:]) -> Response {
        var writer = JSONWriter(capacity: 256 + record.data.bytes.count)
        write(record, replaced: replaced, into: &writer)
        var headers = headers
        headers[.eTag] = "\"\(record.version)\""
        return writer.response(status: status, headers: headers)
    }

    static func listBytes(_ page: RecordPage) -> ByteBuffer {
        var writer = JSONWriter(capacity: 64 + page.records.reduce(0) { $0 + 160 + $1.data.bytes.count })
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for record in page.records { write(record, into: &writer) }
        writer.endArray()
        writer.key("nextCursor")
        writer.stringOrNull(page.nextCursor)
        writer.endObject()
        return ByteBuffer(bytes: writer.bytes)
    }

    /// The same page as ``listBytes(_:)-(RecordPage)``, from the records storage wrote as JSON
    /// straight from its rows (a note as GET shows it is the record as ``RecordJSON`` writes one):
    /// the items are copied once, into the response's buffer.
    static func listBytes(_ page: RecordPageJSON) -> ByteBuffer {
        var cursor = JSONWriter(capacity: 16 + (page.nextCursor?.utf8.count ?? 0))
        cursor.stringOrNull(page.nextCursor)
        var buffer = ByteBufferAllocator().buffer(capacity: 24 + page.items.count + cursor.bytes.count)
        buffer.writeStaticString("{\"items\":[")
        buffer.writeBytes(page.items)
        buffer.writeStaticString("],\"nextCursor\":")
        buffer.writeBytes(cursor.bytes)
        buffer.writeStaticString("}")
        return buffer
    }

    /// A search's hits: each note as GET shows it, with how it matched and where (`highlights`:
    /// field → UTF-16 ranges, for marking the typed words).
    static func searchResponse(_ result: SearchResult) -> Response {
        var writer = JSONWriter(capacity: 64 + result.hits.reduce(0) { $0 + 256 + $1.record.data.bytes.count })
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for hit in result.hits {
            writer.beginObject()
            writer.key("note")
            write(hit.record, into: &writer)
            writer.key("match", ["exact", "prefix", "title", "text"][min(hit.tier.rawValue, 3)])
            writer.key("highlights")
            writer.beginObject()
            for highlight in hit.highlights {
                writer.key(highlight.field)
                writer.beginArray()
                for range in highlight.ranges {
                    writer.beginArray()
                    for bound in range { writer.int(Int64(bound)) }
                    writer.endArray()
                }
                writer.endArray()
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.key("nextCursor")
        writer.stringOrNull(nil)
        writer.endObject()
        return listResponse(ByteBuffer(bytes: writer.bytes))
    }

    static func listResponse(_ bytes: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: bytes))
    }
}

/// The fields a client may send to create or edit a note. Unknown fields are refused, so that a
/// typo (`titel`) is an error rather than silently ignored.
struct NoteInput: Decodable {
    var title: String?
    var text: String?
    var date: String?
    /// Absent: unchanged; null: none; a name: that category.
    var category: String??

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, text, date, category
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = all.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [unknown],
                debugDescription: "unknown field; a note has title, text, date and (with categories on) category"))
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        date = try container.decodeIfPresent(String.self, forKey: .date)
        if container.contains(.category) {
            category = .some(try container.decodeNil(forKey: .category) ? nil : try container.decode(String.self, forKey: .category))
        }
    }
}

/// `POST /notes/{id}/move`: exactly one of `before` and `after`.
struct MoveInput: Decodable {
    var before: String?
    var after: String?
}

struct CategoryJSON: Encodable {
    var name: String
    var count: Int
}
