import Foundation
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
}

/// A note as the API shows it.
struct NoteResource: Encodable {
    var id: String
    var title: String
    var text: String
    var date: String
    var position: String
    var version: Int64
    var createdAt: Date
    var updatedAt: Date
    var photo: String?
    var drawing: String?

    init(_ record: Record, _ data: NoteData) {
        id = record.id
        title = data.title
        text = data.text
        date = data.date
        position = data.position
        version = record.version
        createdAt = record.createdAt
        updatedAt = record.updatedAt
        photo = data.photo
        drawing = data.drawing
    }

    enum CodingKeys: String, CodingKey {
        case id, title, text, date, position, version, photo, drawing
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(text, forKey: .text)
        try container.encode(date, forKey: .date)
        try container.encode(position, forKey: .position)
        try container.encode(version, forKey: .version)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(photo, forKey: .photo)  // null, not absent: the client knows the field
        try container.encode(drawing, forKey: .drawing)
    }
}

struct NoteList: Encodable {
    var items: [NoteResource]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

/// The fields a client may send to create or edit a note. Unknown fields are refused, so that a
/// typo (`titel`) is an error rather than silently ignored.
struct NoteInput: Decodable {
    var title: String?
    var text: String?
    var date: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, text, date
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
                debugDescription: "unknown field; a note has title, text and date"))
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        date = try container.decodeIfPresent(String.self, forKey: .date)
    }
}

/// `POST /notes/{id}/move`: exactly one of `before` and `after`.
struct MoveInput: Decodable {
    var before: String?
    var after: String?
}
