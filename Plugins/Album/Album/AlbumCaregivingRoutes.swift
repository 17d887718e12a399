import AlbumAPI
import AuthAPI
import Bus
import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import MediaAPI
import QuireTLS
import StorageAPI

/// The caregiver routes (`album: { caregivers: true }`), AlbumCaregiving.swift has the rules. The
/// album's owner invites and ends; a caregiver reaches the owner's album only under
/// `helping/{owner}/…` — listing and opening photos, adding one, changing its caption and facts,
/// recording the caption (AlbumCaregivingVoice.swift), naming people (AlbumCaregivingPeople.swift) —
/// so every other route of the owner's (notes, deleting, sharing, other plugins) has no path for
/// them. Tokens travel in bodies, never in paths or queries, so no access log holds one.
extension AlbumPlugin {
    struct InviteInput: Decodable {
        /// The user's name as their family knows them ("Mum"): the caregiver sees "Mum's album".
        var name: String?
        /// Where the app is served (`location.origin`), for the QR code's link.
        var origin: String?
    }

    struct TokenInput: Decodable {
        var token: String
        var name: String?
        var origin: String?
    }

    struct LinkJSON: Encodable {
        var token: String
        /// The app's route the link opens, after the origin: `/#/help/TOKEN` or `/#/restore/TOKEN`.
        var path: String
        var expiresAt: Date
        /// The link (with the origin given) as an SVG QR code; absent without an origin.
        var qrSVG: String?
    }

    struct CaregiverJSON: Encodable {
        var id: String
        var name: String
        var since: Date
    }

    struct HelpedAlbumJSON: Encodable {
        var owner: String
        var ownerName: String
        var name: String
        var since: Date
    }

    static func link(token: String, route: String, expiresAt: Date, origin: String?) throws -> LinkJSON {
        let path = "/#/\(route)/\(token)"
        var qr: String?
        if let origin, !origin.isEmpty {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, origin.count <= 200,
                  url.path.isEmpty || url.path == "/", url.query == nil else {
                throw Problem.invalid("'origin' is the app's address, such as https://photos.example.org.", field: "origin")
            }
            qr = QRCode.svg(origin.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path, pixelsPerModule: 4)
        }
        return LinkJSON(token: token, path: path, expiresAt: expiresAt, qrSVG: qr)
    }

    static func owner(_ context: QuireContext) throws -> String {
        guard let owner = context.parameters.get("owner") else { throw Problem.badRequest("The album's owner is missing from the path.") }
        return owner
    }

    func caregivingRoutes(_ routes: PluginRoutes, _ caregiving: CaregivingService) throws {
        let service = self.service
        let limits = self.limits
        let pageSize = self.pageSize

        // The owner ---------------------------------------------------------------------------
        try routes.add(.post, "caregivers/invitations", summary: "Invite a family member to help with my album: {name?, origin?}; a single-use link "
                       + "for a week (token shown once; path /#/help/TOKEN, qrSVG with the origin)") { request, context, identity in
            var request = request
            let input = try await request.decodeOptionalJSON(InviteInput.self, context: context) ?? InviteInput()
            let made = try await caregiving.invite(owner: identity.accountID, ownerName: input.name)
            return try .json(try Self.link(token: made.token, route: "help", expiresAt: made.expiresAt, origin: input.origin), status: .created)
        }
        try routes.add(.get, "caregivers", summary: "The family members helping with my album") { _, _, identity in
            let items = try await caregiving.caregivers(owner: identity.accountID).map { CaregiverJSON(id: $0.id, name: $0.data.name, since: $0.data.since) }
            return try .json(ListPage(items: items, nextCursor: nil))
        }
        try routes.add(.delete, "caregivers/{id}", summary: "End a family member's caregiving: their access ends at once") { _, context, identity in
            guard let id = context.parameters.get("id") else { throw Problem.badRequest("The caregiver is missing from the path.") }
            try await caregiving.end(owner: identity.accountID, caregiver: id)
            return .noContent
        }

        // The family member -----------------------------------------------------------------------
        try routes.add(.post, "caregivers/invitations/look", summary: "What an invitation is, before accepting it: {token} → {ownerName, expiresAt}; "
                       + "404 invitation_unknown, 410 invitation_used or invitation_expired") { request, context, _ in
            var request = request
            let input = try await request.decodeJSON(TokenInput.self, context: context)
            try caregiving.checkLookups(address: context.remoteAddress)
            let found = try await caregiving.invitation(input.token)
            return try .json(["ownerName": found.data.ownerName, "expiresAt": ISO8601DateFormatter().string(from: found.data.expiresAt)])
        }
        try routes.add(.post, "caregivers/invitations/accept", summary: "Accept an invitation with my own account: {token, name}; I then help with that "
                       + "album. Once only") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(TokenInput.self, context: context)
            try caregiving.checkLookups(address: context.remoteAddress)
            let (owner, grant) = try await caregiving.accept(input.token, caregiver: identity.accountID, name: input.name)
            return try .json(HelpedAlbumJSON(owner: owner, ownerName: grant.ownerName, name: grant.name, since: grant.since), status: .created)
        }
        try routes.add(.get, "helping", summary: "The albums I help with, as a caregiver") { _, _, identity in
            let items = try await caregiving.helping(caregiver: identity.accountID)
                .map { HelpedAlbumJSON(owner: $0.owner, ownerName: $0.data.ownerName, name: $0.data.name, since: $0.data.since) }
            return try .json(ListPage(items: items, nextCursor: nil))
        }
        try routes.add(.get, "helping/{owner}/photos", query: ["limit", "cursor"], summary: "A caregiver: the album's photos, newest first, as GET "
                       + "/photos/{id} shows each") { request, context, identity in
            let owner = try Self.owner(context)
            _ = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            let page = try await service.store.query(RecordQuery(collection: AlbumService.photos, owner: owner, order: [SortKey("sortKey", descending: true)],
                                                                 limit: try request.limit(default: pageSize, max: 500), cursor: try request.query("cursor")))
            return try .json(ListPage(items: page.records.compactMap { record in (try? record.decode(PhotoData.self)).map { PhotoJSON(record, $0) } },
                                      nextCursor: page.nextCursor))
        }
        try routes.add(.get, "helping/{owner}/photos/{id}", summary: "A caregiver: one photo of the album") { _, context, identity in
            let owner = try Self.owner(context)
            _ = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            return try PhotoJSON.response(try await service.photo(owner: owner, id: try Self.id(context)))
        }
        try routes.add(.get, "helping/{owner}/photos/{id}/image/{rendition}", summary: "A caregiver: a photo's rendition (thumb, display)") {
            request, context, identity in
            let owner = try Self.owner(context)
            _ = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            guard let rendition = context.parameters.get("rendition") else { throw Problem.badRequest("The rendition is missing from the path.") }
            return try await Self.image(service, request, owner: owner, id: try Self.id(context), rendition: rendition)
        }
        try routes.add(.post, "helping/{owner}/photos", query: ["source", "takenAt", "tags", "notes"], summary: "A caregiver adds a photo to the album "
                       + "(the image bytes as the body, as POST /photos); it keeps who added it (addedBy)") { request, context, identity in
            var request = request
            let owner = try Self.owner(context)
            let grant = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            let source = try request.query("source") ?? "library"
            guard ["camera", "library"].contains(source) else { throw Problem.badRequest("'source' is camera or library.", field: "source") }
            var capture = AlbumService.Capture(takenAt: try request.query("takenAt"), latitude: nil, longitude: nil, accuracy: nil,
                                               tags: try request.query("tags").map { [$0] } ?? [], notes: try request.query("notes"), source: source)
            capture.addedBy = Contributor(account: identity.accountID, name: grant.name)
            let idempotencyKey = try request.idempotencyKey()
            let record = try await request.withBudgetedUpload(ImageUpload.intake(what: "a photo", reservation: "this photo", on: service.bus),
                                                              limit: limits.photo) { upload in
                try await service.add(owner: owner, upload: upload, capture: capture, idempotencyKey: idempotencyKey)
            }
            return try .json(PhotoJSON(record, try record.decode(PhotoData.self)), status: .created,
                             headers: [.eTag: "\"\(record.version)\""])
        }
        try routes.add(.patch, "helping/{owner}/photos/{id}", summary: "A caregiver changes a photo's caption (notes), tags or time taken; If-Match; honours Idempotency-Key. "
                       + "A new caption keeps who wrote it (captionBy)") {
            request, context, identity in
            var request = request
            let owner = try Self.owner(context)
            let grant = try await caregiving.authorize(caregiver: identity.accountID, owner: owner)
            let input = try await request.decodeJSON(EditInput.self, context: context)
            if input.locationGiven { throw Problem.invalid("A helper changes the caption, tags and time; the place stays the owner's.", field: "location") }
            let edit = AlbumService.Edit(notes: input.notes, tags: input.tags, takenAt: input.takenAt, location: nil,
                                         by: Contributor(account: identity.accountID, name: grant.name))
            let edited = try await service.edit(owner: owner, id: try Self.id(context), edit, expectedVersion: try request.ifMatchVersion(),
                                                idempotencyKey: try request.idempotencyKey())
            return try PhotoJSON.response(edited.record, replaced: edited.replaced, replacedBy: edited.replacedBy, replayed: edited.replayed)
        }
        try routes.add(.post, "helping/{owner}/restore", summary: "A caregiver: a one-time link (15 minutes, 3 an hour) that signs a new or wiped phone "
                       + "in as the album's owner: {origin?} → {token, path /#/restore/TOKEN, expiresAt, qrSVG}") { request, context, identity in
            var request = request
            let owner = try Self.owner(context)
            let input = try await request.decodeOptionalJSON(InviteInput.self, context: context) ?? InviteInput()
            let made = try await caregiving.issueRestore(caregiver: identity.accountID, owner: owner)
            return try .json(try Self.link(token: made.token, route: "restore", expiresAt: made.expiresAt, origin: input.origin), status: .created)
        }

        try caregivingVoiceRoutes(routes, caregiving)
        try caregivingPeopleRoutes(routes, caregiving)

        // The user's new phone ----------------------------------------------------------------------
        routes.addPublic(.post, "restore", summary: "Open a restore link on a new or wiped phone: {token} → a new session for the album's owner "
                         + "(tokens, accountId, deviceSecret for a device account). Once; 404 restore_unknown, 410 restore_used or restore_expired") {
            request, context in
            var request = request
            let input = try await request.decodeJSON(TokenInput.self, context: context)
            try caregiving.checkLookups(address: context.remoteAddress)
            let session = try await caregiving.redeemRestore(input.token)
            return try .json(RestoredJSON(session))
        }
    }

    /// The same members as auth's sign-in answers, so the client keeps it as any session.
    struct RestoredJSON: Encodable {
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int
        var tokenType = "Bearer"
        var accountId: String
        var deviceSecret: String?

        init(_ reply: StartRestoredSession.Reply) {
            (accessToken, refreshToken, expiresIn, accountId, deviceSecret) = (reply.accessToken, reply.refreshToken, reply.expiresIn, reply.accountID,
                                                                               reply.deviceSecret)
        }

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", refreshToken = "refresh_token", expiresIn = "expires_in", tokenType = "token_type", accountId, deviceSecret
        }
    }
}
