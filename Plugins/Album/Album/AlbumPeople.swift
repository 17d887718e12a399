import AlbumAPI
import Bus
import Foundation
import PluginKit
import Secrets
import StorageAPI

/// A person the album's owner named: "Emma", "your granddaughter" (`album.people`).
struct PersonData: Codable, Sendable, Equatable {
    var name: String
    /// Who they are to the user, in the words that help them: "your granddaughter".
    var relationship: String
    var note: String
    /// Named by one of the user's caregivers (AlbumCaregiving.swift); absent when the user did.
    var addedBy: Contributor? = nil
}

/// A person in one photo, with the box around their face (`album.faces`): fractions 0…1 of the
/// photo as seen. A person is in a photo once; naming them again moves the box.
struct FaceData: Codable, Sendable, Equatable {
    struct Box: Codable, Sendable, Equatable {
        var x: Double
        var y: Double
        var w: Double
        var h: Double
    }
    var photo: String
    var person: String
    var box: Box
    /// Named in this photo by one of the user's caregivers; absent when the user did.
    var addedBy: Contributor? = nil
}

/// The rules of names and boxes; each refusal has its stable `reason`.
enum PeopleRules {
    static let maxName = 80
    static let maxRelationship = 80
    static let maxNote = 2_000
    static let maxFacesPerPhoto = 40

    static func refuse(_ message: String, field: String, reason: String) -> BusError {
        BusError(.invalid, message, details: ["field": field, "reason": reason])
    }

    static func name(_ raw: String?) throws(BusError) -> String {
        let name = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw refuse("Give the person a name, such as Emma.", field: "name", reason: "name_empty") }
        guard name.count <= maxName else {
            throw refuse("A name is at most \(maxName) characters; shorten it.", field: "name", reason: "name_too_long")
        }
        return name
    }

    static func relationship(_ raw: String?) throws(BusError) -> String {
        let text = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= maxRelationship else {
            throw refuse("Who they are to you is at most \(maxRelationship) characters, such as \"your granddaughter\".",
                         field: "relationship", reason: "relationship_too_long")
        }
        return text
    }

    static func note(_ raw: String?) throws(BusError) -> String {
        let text = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= maxNote else {
            throw refuse("A note about a person is at most \(maxNote) characters.", field: "note", reason: "note_too_long")
        }
        return text
    }

    /// A box inside the photo: each of x, y, w, h a fraction 0…1 of the photo, w and h above 0, and
    /// the box within the photo (a small rounding over is forgiven and clamped).
    static func box(_ box: FaceData.Box?) throws(BusError) -> FaceData.Box {
        guard let box else { throw refuse("Say where the face is: box {x, y, w, h}, fractions 0 to 1 of the photo.", field: "box", reason: "box_missing") }
        let values = [box.x, box.y, box.w, box.h]
        let slack = 0.001
        guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), box.w > 0, box.h > 0,
              box.x + box.w <= 1 + slack, box.y + box.h <= 1 + slack else {
            throw refuse("The face's box must lie inside the photo: x, y, w and h are fractions from 0 to 1, w and h above 0, "
                         + "x + w and y + h at most 1. Tap on the face again.", field: "box", reason: "box_outside_photo")
        }
        return FaceData.Box(x: box.x, y: box.y, w: min(box.w, 1 - box.x), h: min(box.h, 1 - box.y))
    }
}

/// People and the faces naming them in photos. Every read and write names the album's owner, so
/// another account's person or photo is "not found".
struct AlbumPeople: Sendable {
    static let people = SyncedPerson.collection
    static let faces = SyncedFace.collection

    static let schemas = [
        CollectionSchema(name: people, history: true, forgetsOnDelete: true),
        CollectionSchema(name: faces, indexes: [IndexSpec(name: "photo", fields: ["photo"]), IndexSpec(name: "person", fields: ["person"])],
                         forgetsOnDelete: true),
    ]

    let album: AlbumService
    var store: BusRecordStore { album.store }

    // MARK: People

    func person(owner: String, id: String) async throws(BusError) -> Record {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: Self.people, id: id, owner: owner) else {
            throw BusError(.notFound, "This person is not in your album: they were removed, maybe on another phone.",
                           details: ["reason": "unknown_person", "field": "person"])
        }
        return record
    }

    func people(owner: String) async throws(BusError) -> [Record] {
        try await all(RecordQuery(collection: Self.people, owner: owner, limit: RecordQuery.maxLimit))
    }

    /// Once per `Idempotency-Key`: a phone sending its offline "someone new" again gets the same person.
    /// `addedBy`: the caregiver adding them (nil: the user).
    func create(owner: String, name: String?, relationship: String?, note: String?, idempotencyKey: String?,
                addedBy: Contributor? = nil) async throws(BusError) -> Record {
        let data = PersonData(name: try PeopleRules.name(name), relationship: try PeopleRules.relationship(relationship),
                              note: try PeopleRules.note(note), addedBy: addedBy)
        let document = try JSONDocument(encoding: data)
        let claim = idempotencyKey.map { key in
            IdempotencyClaim(owner: owner, scope: "\(Self.people).create", key: key, fingerprint: Secrets.sha256Hex(String(decoding: document.bytes, as: UTF8.self)))
        }
        let result = try await store.write(WriteBatch([.insert(collection: Self.people, id: "h" + album.ids.hex(), owner: owner, data: document)],
                                                      idempotency: claim))
        guard let record = result.records.first ?? nil else {
            throw BusError(.conflict, "The person added with this Idempotency-Key has since been removed.")
        }
        return record
    }

    /// Changes what is given (nil: kept). With `expectedVersion`, a person changed since is 412.
    func rename(owner: String, id: String, name: String?, relationship: String?, note: String?, expectedVersion: Int64?) async throws(BusError) -> Record {
        let newName = try name.map { text throws(BusError) in try PeopleRules.name(text) }
        let newRelationship = try relationship.map { text throws(BusError) in try PeopleRules.relationship(text) }
        let newNote = try note.map { text throws(BusError) in try PeopleRules.note(text) }
        let existing = try await person(owner: owner, id: id)
        if let expectedVersion, expectedVersion != existing.version {
            throw BusError(.preconditionFailed, "This person changed since you read them (version \(existing.version)); look again and retry.",
                           details: ["version": String(existing.version)])
        }
        var data = try existing.decode(PersonData.self)
        if let newName { data.name = newName }
        if let newRelationship { data.relationship = newRelationship }
        if let newNote { data.note = newNote }
        return try await store.replace(data, in: Self.people, id: id, owner: owner, expectedVersion: existing.version)
    }

    /// The person and every face naming them, in batches; the person goes last, so a failure part
    /// way leaves them there to delete again.
    func delete(owner: String, id: String) async throws(BusError) {
        _ = try await person(owner: owner, id: id)
        try await deleteFaces(owner: owner, Filter("person", .eq, .string(id)))
        try await store.delete(from: Self.people, id: id, owner: owner)
    }

    // MARK: Faces

    func faces(owner: String, photo: String) async throws(BusError) -> [Record] {
        try await all(RecordQuery(collection: Self.faces, owner: owner, filters: [Filter("photo", .eq, .string(photo))], limit: RecordQuery.maxLimit))
    }

    /// Names `person` in `photo` with a box around their face; a person already named there has
    /// their box moved (the same face record).
    func tag(owner: String, photo: String, person: String?, box: FaceData.Box?, idempotencyKey: String?,
             addedBy: Contributor? = nil) async throws(BusError) -> Record {
        let checked = try PeopleRules.box(box)
        guard let person, !person.isEmpty else {
            throw PeopleRules.refuse("Say who this is: 'person' is the id of one of your people.", field: "person", reason: "person_missing")
        }
        _ = try await album.photo(owner: owner, id: photo)
        _ = try await self.person(owner: owner, id: person)
        let existing = try await faces(owner: owner, photo: photo)
        let data = FaceData(photo: photo, person: person, box: checked, addedBy: addedBy)
        if let same = existing.first(where: { (try? $0.decode(FaceData.self).person) == person }) {
            return try await store.replace(data, in: Self.faces, id: same.id, owner: owner)
        }
        guard existing.count < PeopleRules.maxFacesPerPhoto else {
            throw PeopleRules.refuse("A photo names at most \(PeopleRules.maxFacesPerPhoto) people.", field: "person", reason: "too_many_people")
        }
        let document = try JSONDocument(encoding: data)
        let claim = idempotencyKey.map { key in
            IdempotencyClaim(owner: owner, scope: "\(Self.faces).create", key: key, fingerprint: Secrets.sha256Hex(String(decoding: document.bytes, as: UTF8.self)))
        }
        let result = try await store.write(WriteBatch([.insert(collection: Self.faces, id: "f" + album.ids.hex(), owner: owner, data: document)],
                                                      idempotency: claim))
        guard let record = result.records.first ?? nil else {
            throw BusError(.conflict, "The name added with this Idempotency-Key has since been taken off.")
        }
        return record
    }

    func untag(owner: String, photo: String, face: String) async throws(BusError) {
        guard StorageNames.isValidID(face), let record = try await store.get(collection: Self.faces, id: face, owner: owner),
              (try? record.decode(FaceData.self).photo) == photo else {
            throw BusError(.notFound, "That name is not on this photo any more.", details: ["reason": "unknown_face"])
        }
        try await store.delete(from: Self.faces, id: face, owner: owner)
    }

    /// The photos a person is named in, in time order (oldest first), with the box of each.
    func photos(owner: String, person id: String) async throws(BusError) -> [(photo: Record, face: Record)] {
        _ = try await person(owner: owner, id: id)
        let faces = try await all(RecordQuery(collection: Self.faces, owner: owner, filters: [Filter("person", .eq, .string(id))],
                                              limit: RecordQuery.maxLimit))
        var found: [(photo: Record, face: Record, sortKey: String)] = []
        for face in faces {
            guard let data = try? face.decode(FaceData.self),
                  let photo = try await store.get(collection: AlbumService.photos, id: data.photo, owner: owner),
                  let sortKey = try? photo.decode(PhotoData.self).sortKey else { continue }
            found.append((photo, face, sortKey))
        }
        return found.sorted { $0.sortKey < $1.sortKey }.map { ($0.photo, $0.face) }
    }

    /// A deleted photo's faces go with it.
    func photoDeleted(owner: String, photo: String) async throws(BusError) {
        try await deleteFaces(owner: owner, Filter("photo", .eq, .string(photo)))
    }

    /// "Emma — your granddaughter" for each person named in the photo, left to right.
    func captions(owner: String, photo: String) async throws(BusError) -> [String] {
        var named: [(x: Double, text: String)] = []
        for face in try await faces(owner: owner, photo: photo) {
            guard let data = try? face.decode(FaceData.self),
                  let person = try await store.get(collection: Self.people, id: data.person, owner: owner),
                  let who = try? person.decode(PersonData.self) else { continue }
            named.append((data.box.x, who.relationship.isEmpty ? who.name : "\(who.name) — \(who.relationship)"))
        }
        return named.sorted { $0.x < $1.x }.map(\.text)
    }

    // MARK: Helpers

    private func deleteFaces(owner: String, _ filter: Filter) async throws(BusError) {
        while true {
            let page = try await store.query(RecordQuery(collection: Self.faces, owner: owner, filters: [filter], limit: WriteBatch.maxOperations))
            guard !page.records.isEmpty else { return }
            _ = try await store.write(WriteBatch(page.records.map { .delete(collection: Self.faces, id: $0.id, owner: owner, expectedVersion: nil) }))
        }
    }

    private func all(_ query: RecordQuery) async throws(BusError) -> [Record] {
        var query = query
        var records: [Record] = []
        while true {
            let page = try await store.query(query)
            records += page.records
            guard let next = page.nextCursor, records.count < 20_000 else { return records }
            query.cursor = next
        }
    }
}

// MARK: JSON

struct PersonJSON: Encodable {
    var id: String
    var version: Int64
    var name: String
    var relationship: String
    var note: String
    /// The caregiver who named them ("Anna"); absent when the user did.
    var addedBy: String?

    init(_ record: Record, _ data: PersonData) {
        (id, version, name, relationship, note) = (record.id, record.version, data.name, data.relationship, data.note)
        addedBy = data.addedBy?.name
    }
}

struct FaceJSON: Encodable {
    var id: String
    var version: Int64
    var photo: String
    var person: String
    var box: FaceData.Box
    /// The caregiver who named them in this photo ("Anna"); absent when the user did.
    var addedBy: String?

    init(_ record: Record, _ data: FaceData) {
        (id, version, photo, person, box) = (record.id, record.version, data.photo, data.person, data.box)
        addedBy = data.addedBy?.name
    }
}

struct PersonInput: Decodable {
    var name: String?
    var relationship: String?
    var note: String?
}

struct FaceInput: Decodable {
    var person: String?
    var box: FaceData.Box?
    /// The photo, as the path names it (the phone's offline copy carries it); another is refused.
    var photo: String?
}
