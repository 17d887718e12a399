import AlbumAPI
import Foundation
import HTTPKit
import Hummingbird
import StorageAPI

/// A caregiver names the people in the album they help with, as its owner does (AlbumPeopleRoutes.swift):
/// the album's people, a new person with who they are to the user, a person named on a photo (a box
/// on the face), a name taken off a photo. Only under `helping/{owner}/…`, each request reading the
/// grant first (an ended caregiving is refused at once, a stranger is 403 `not_caregiver`); what a
/// caregiver names keeps who did (`addedBy`). Renaming and removing people stay the owner's.
/// People off (`album: { people: false }`): 404 `people_off`, as the owner's routes.
extension AlbumPlugin {
    func caregivingPeopleRoutes(_ routes: PluginRoutes, _ caregiving: CaregivingService) throws {
        let people = PeopleSwitch(people: self.people, on: peopleOn)
        try routes.add(.get, "helping/{owner}/people", summary: "A caregiver: the people named in the album (as GET /people)") { _, context, identity in
            let owner = try Self.owner(context)
            _ = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            return try await Self.peopleList(try people(), owner: owner)
        }
        try routes.add(.post, "helping/{owner}/people", summary: "A caregiver adds a person to the album: {name, relationship?, note?} (who they are "
                       + "to the album's owner); it keeps who added them (addedBy). Honours Idempotency-Key") { request, context, identity in
            var request = request
            let owner = try Self.owner(context)
            let grant = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            let input = try await request.decodeJSON(PersonInput.self, context: context)
            let record = try await people().create(owner: owner, name: input.name, relationship: input.relationship, note: input.note,
                                                   idempotencyKey: try request.idempotencyKey(),
                                                   addedBy: Contributor(account: identity.accountID, name: grant.name))
            return try Self.person(record, status: .created)
        }
        try routes.add(.get, "helping/{owner}/photos/{id}/people", summary: "A caregiver: the people named in a photo of the album, each with their "
                       + "face's box") { _, context, identity in
            let owner = try Self.owner(context)
            _ = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            return try await Self.faceList(try people(), owner: owner, photo: try Self.id(context))
        }
        try routes.add(.post, "helping/{owner}/photos/{id}/people", summary: "A caregiver names a person in a photo of the album: {person, box} "
                       + "(as POST /photos/{id}/people); it keeps who named them (addedBy). Honours Idempotency-Key") { request, context, identity in
            var request = request
            let owner = try Self.owner(context)
            let grant = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            return try await Self.nameOnPhoto(try people(), request: &request, context: context, owner: owner,
                                              addedBy: Contributor(account: identity.accountID, name: grant.name))
        }
        try routes.add(.delete, "helping/{owner}/photos/{id}/people/{face}", summary: "A caregiver takes a person's name off a photo of the album "
                       + "(the person stays)") { _, context, identity in
            let owner = try Self.owner(context)
            _ = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            guard let face = context.parameters.get("face") else { throw Problem.badRequest("The face id is missing from the path.") }
            try await people().untag(owner: owner, photo: try Self.id(context), face: face)
            return Response(status: .noContent)
        }
    }
}
