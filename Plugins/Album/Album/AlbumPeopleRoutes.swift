import AlbumAPI
import Bus
import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import PluginKit
import StorageAPI
import SyncAPI

/// People (`album: { people: true }`): the album's owner names the people in their photos — a tap
/// on the face, a name and who they are to the user ("Emma — your granddaughter") — and each person
/// has a page of every photo of them. Both kinds sync (`album.person`, `album.face`), so a phone
/// shows them offline and names people offline through its outbox.
extension AlbumPlugin {
    /// Sync's feed shows people and faces as the routes do; the album's owner sees them.
    static func registerPeople(on bus: any MessageBus, _ people: AlbumPeople) throws {
        try bus.handle(ShowSynced<SyncedPerson>.self) { request, _ in
            .init(shown: request.records.map { record in
                guard record.owner == request.viewer, let data = try? record.decode(PersonData.self) else { return nil }
                return try? JSONDocument(encoding: PersonJSON(record, data))
            })
        }
        try bus.handle(ShowSynced<SyncedFace>.self) { request, _ in
            .init(shown: request.records.map { record in
                guard record.owner == request.viewer, let data = try? record.decode(FaceData.self) else { return nil }
                return try? JSONDocument(encoding: FaceJSON(record, data))
            })
        }
    }

    /// The routes are always there (so the API's description is one), and answer 404 `people_off`
    /// when the app has not switched people on.
    static func peopleRoutes(_ routes: PluginRoutes, _ people: AlbumPeople, on: Bool) throws {
        let people = PeopleSwitch(people: people, on: on)
        try routes.add(.get, "people", summary: "The people named in my album: name, relationship to me, note") { _, _, identity in
            try await Self.peopleList(try people(), owner: identity.accountID)
        }
        try routes.add(.post, "people", summary: "Add a person: {name, relationship?, note?} (\"Emma\", \"your granddaughter\"); honours Idempotency-Key") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(PersonInput.self, context: context)
            let record = try await people().create(owner: identity.accountID, name: input.name, relationship: input.relationship, note: input.note,
                                                 idempotencyKey: try request.idempotencyKey())
            return try Self.person(record, status: .created)
        }
        try routes.add(.get, "people/{person}", summary: "One person") { _, context, identity in
            try Self.person(try await people().person(owner: identity.accountID, id: try Self.personID(context)))
        }
        try routes.add(.patch, "people/{person}", summary: "Rename a person or change their relationship or note: {name?, relationship?, note?}; If-Match") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(PersonInput.self, context: context)
            return try Self.person(try await people().rename(owner: identity.accountID, id: try Self.personID(context), name: input.name,
                                                           relationship: input.relationship, note: input.note,
                                                           expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.delete, "people/{person}", summary: "Remove a person and every name of them on photos (the photos stay)") { _, context, identity in
            try await people().delete(owner: identity.accountID, id: try Self.personID(context))
            return Response(status: .noContent)
        }
        try routes.add(.get, "people/{person}/photos", summary: "Every photo a person is named in, oldest first, with their face's box in each") {
            _, context, identity in
            let found = try await people().photos(owner: identity.accountID, person: try Self.personID(context))
            let items = found.compactMap { item -> PersonPhotoJSON? in
                guard let photo = try? item.photo.decode(PhotoData.self), let face = try? item.face.decode(FaceData.self) else { return nil }
                return PersonPhotoJSON(id: item.photo.id, takenAt: photo.takenAt, tags: photo.tags, face: item.face.id, box: face.box,
                                       thumbnail: "/api/v1/album/photos/\(item.photo.id)/image/thumb")
            }
            return try .json(ListPage(items: items, nextCursor: nil))
        }
        try routes.add(.get, "photos/{id}/people", summary: "The people named in a photo, each with their face's box") { _, context, identity in
            try await Self.faceList(try people(), owner: identity.accountID, photo: try Self.id(context))
        }
        try routes.add(.post, "photos/{id}/people", summary: "Name a person in a photo: {person, box: {x, y, w, h}} in fractions 0…1 of the photo; "
                       + "a person named there already has their box moved. Honours Idempotency-Key") { request, context, identity in
            var request = request
            return try await Self.nameOnPhoto(try people(), request: &request, context: context, owner: identity.accountID, addedBy: nil)
        }
        try routes.add(.delete, "photos/{id}/people/{face}", summary: "Take a person's name off a photo (the person stays)") { _, context, identity in
            guard let face = context.parameters.get("face") else { throw Problem.badRequest("The face id is missing from the path.") }
            try await people().untag(owner: identity.accountID, photo: try Self.id(context), face: face)
            return Response(status: .noContent)
        }
    }

    /// The album's people by name (the owner's `GET people` and a caregiver's).
    static func peopleList(_ people: AlbumPeople, owner: String) async throws -> Response {
        let items = try await people.people(owner: owner).compactMap { record in (try? record.decode(PersonData.self)).map { PersonJSON(record, $0) } }
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
        return try .json(ListPage(items: items, nextCursor: nil))
    }

    /// The people named in one of the owner's photos, each with their face's box.
    static func faceList(_ people: AlbumPeople, owner: String, photo id: String) async throws -> Response {
        _ = try await people.album.photo(owner: owner, id: id)
        let items = try await people.faces(owner: owner, photo: id).compactMap { record in
            (try? record.decode(FaceData.self)).map { FaceJSON(record, $0) }
        }
        return try .json(ListPage(items: items, nextCursor: nil))
    }

    /// Names a person on the photo of the path from the body's `{person, box}`; `addedBy` is the
    /// caregiver who named them (nil for the owner).
    static func nameOnPhoto(_ people: AlbumPeople, request: inout Request, context: QuireContext, owner: String,
                            addedBy: Contributor?) async throws -> Response {
        let input = try await request.decodeJSON(FaceInput.self, context: context)
        let id = try Self.id(context)
        if let named = input.photo, named != id {
            throw Problem.badRequest("'photo' in the body is not the photo of the path; leave it out.", field: "photo")
        }
        let record = try await people.tag(owner: owner, photo: id, person: input.person, box: input.box,
                                          idempotencyKey: try request.idempotencyKey(), addedBy: addedBy)
        return try .json(FaceJSON(record, try record.decode(FaceData.self)), status: record.version == 1 ? .created : .ok,
                         headers: [.eTag: "\"\(record.version)\""])
    }

    /// The people service when people are on; else 404 `people_off`.
    struct PeopleSwitch: Sendable {
        let people: AlbumPeople
        let on: Bool
        func callAsFunction() throws -> AlbumPeople {
            guard on else {
                throw Problem(status: .notFound, code: "not_found", detail: "People are not switched on for this album (album: { people: true }).",
                              extra: ["reason": "people_off"])
            }
            return people
        }
    }

    static func personID(_ context: QuireContext) throws -> String {
        guard let id = context.parameters.get("person") else { throw Problem.badRequest("The person's id is missing from the path.") }
        return id
    }

    static func person(_ record: Record, status: HTTPResponse.Status = .ok) throws -> Response {
        try .json(PersonJSON(record, try record.decode(PersonData.self)), status: status, headers: [.eTag: "\"\(record.version)\""])
    }
}

struct PersonPhotoJSON: Encodable {
    var id: String
    var takenAt: String
    var tags: [String]
    /// The face record naming the person in this photo, and its box.
    var face: String
    var box: FaceData.Box
    var thumbnail: String
}
