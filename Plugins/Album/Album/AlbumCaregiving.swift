import AuthAPI
import Bus
import Foundation
import PluginKit
import Secrets
import StorageAPI

/// A caregiver added this (a photo): kept on the record, shown as "Added by Anna".
struct Contributor: Codable, Sendable, Equatable {
    /// The caregiver's own account.
    var account: String
    /// Their name as the user knows them, given when they accepted.
    var name: String
}

/// iRemember's caregivers (`album: { caregivers: true }`): the user invites a family member with a
/// single-use link; the family member, signed in with their own account, accepts and from then on
/// adds photos and captions to that album — and reaches nothing else of the user's — until the user
/// ends it. A caregiver can also issue a one-time link that signs a new or wiped phone in as the
/// user (a new session; the old ones go on).
///
/// Links carry 256 random bits, shown once; the store keeps only their SHA-256 (the record's id),
/// and nothing logs them.
struct CaregivingService: Sendable {
    static let invitations = "album.invitations"
    static let caregivers = "album.caregivers"
    static let restores = "album.restores"

    static let schemas = [
        CollectionSchema(name: invitations),
        CollectionSchema(name: caregivers, indexes: [IndexSpec(name: "caregiver", fields: ["caregiver"])]),
        CollectionSchema(name: restores),
    ]

    /// An invitation works for a week, a restore link for 15 minutes.
    static let invitationLife: TimeInterval = 7 * 24 * 3600
    static let restoreLife: TimeInterval = 15 * 60

    struct Invitation: Codable, Sendable {
        var ownerName: String
        var createdAt: Date
        var expiresAt: Date
        var usedAt: Date?
        var usedBy: String?
    }

    struct Caregiver: Codable, Sendable {
        var caregiver: String
        var name: String
        var ownerName: String
        var since: Date
    }

    struct Restore: Codable, Sendable {
        var createdBy: String
        var createdAt: Date
        var expiresAt: Date
        var usedAt: Date?
    }

    let store: BusRecordStore
    let bus: any MessageBus
    let clock: PluginClock
    /// Restore links a caregiver may make for one user: 3 an hour.
    let restoreIssues = SlidingWindow(limit: 3, window: 3600)
    /// Links (invitations and restores) looked up per client address: 20 a minute.
    let lookups = SlidingWindow(limit: 20, window: 60)

    // MARK: Refusals, each with a stable code

    static func unknownInvitation() -> BusError {
        BusError(.notFound, "This invitation link is not one we know: check it was copied whole, or ask for a new one.",
                 details: ["reason": "invitation_unknown"])
    }

    static func usedInvitation() -> BusError {
        BusError(.gone, "This invitation has already been used. Ask for a new one if you want to help with this album.",
                 details: ["reason": "invitation_used"])
    }

    static func expiredInvitation() -> BusError {
        BusError(.gone, "This invitation has expired (they last a week). Ask for a new one.", details: ["reason": "invitation_expired"])
    }

    static func notCaregiver() -> BusError {
        BusError(.forbidden, "You do not help with this album (any more). Ask its owner to invite you again.", details: ["reason": "not_caregiver"])
    }

    static func unknownRestore() -> BusError {
        BusError(.notFound, "This restore link is not one we know: check it was copied whole, or ask the helper for a new one.",
                 details: ["reason": "restore_unknown"])
    }

    static func usedRestore() -> BusError {
        BusError(.gone, "This restore link has already been used. Ask your helper for a new one.", details: ["reason": "restore_used"])
    }

    static func expiredRestore() -> BusError {
        BusError(.gone, "This restore link has expired (they last 15 minutes). Ask your helper for a new one.", details: ["reason": "restore_expired"])
    }

    static func tooMany(_ wait: Int, _ what: String) -> BusError {
        BusError(.rateLimited, "\(what) Try again in \(wait) seconds.", details: ["reason": "rate_limited", "retryAfter": "\(wait)"])
    }

    static func checkName(_ name: String?, field: String) throws(BusError) -> String {
        let trimmed = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 60 else { throw BusError.invalid("A name is at most 60 characters.", field: field) }
        return trimmed
    }

    /// The stored id of a link's token; a token that could not be one of ours is unknown.
    static func key(_ token: String) -> String? {
        guard (20...100).contains(token.utf8.count), token.utf8.allSatisfy({ $0 < 128 }) else { return nil }
        return Secrets.sha256Hex(token)
    }

    func checkLookups(address: String?) throws(BusError) {
        if let wait = lookups.take(address ?? "unknown", now: clock.now()) {
            throw Self.tooMany(wait, "Too many links were tried from here.")
        }
    }

    // MARK: Invitations

    func invite(owner: String, ownerName: String?) async throws(BusError) -> (token: String, expiresAt: Date) {
        let name = try Self.checkName(ownerName, field: "name")
        let token = Secrets.random(bytes: 32)
        let now = clock.now()
        let invitation = Invitation(ownerName: name, createdAt: now, expiresAt: now.addingTimeInterval(Self.invitationLife))
        _ = try await store.insert(invitation, into: Self.invitations, id: Secrets.sha256Hex(token), owner: owner)
        return (token, invitation.expiresAt)
    }

    /// The invitation a token names, if it may still be accepted.
    func invitation(_ token: String) async throws(BusError) -> (record: Record, data: Invitation) {
        guard let key = Self.key(token), let record = try await store.get(collection: Self.invitations, id: key, owner: nil) else {
            throw Self.unknownInvitation()
        }
        let data = try record.decode(Invitation.self)
        if data.usedAt != nil { throw Self.usedInvitation() }
        if data.expiresAt <= clock.now() { throw Self.expiredInvitation() }
        return (record, data)
    }

    /// `caregiver` accepts: the invitation is used up (once: a second accept finds it used) and they
    /// help with the album from now on, as `name`.
    func accept(_ token: String, caregiver: String, name raw: String?) async throws(BusError) -> (owner: String, grant: Caregiver) {
        let (record, data) = try await invitation(token)
        guard record.owner != caregiver else {
            throw BusError(.invalid, "This is your own invitation: send it to the family member who will help, and they open it on their phone.",
                           details: ["reason": "invitation_own"])
        }
        let name = try Self.checkName(raw, field: "name")
        guard !name.isEmpty else { throw BusError.invalid("Say your name, as they know you (for example Anna).", field: "name") }
        var used = data
        used.usedAt = clock.now()
        used.usedBy = caregiver
        let grant = Caregiver(caregiver: caregiver, name: name, ownerName: data.ownerName, since: clock.now())
        let existing = try await store.get(collection: Self.caregivers, id: caregiver, owner: record.owner)
        let grantDocument = try JSONDocument(encoding: grant)
        let usedDocument = try JSONDocument(encoding: used)
        do {
            _ = try await store.write(WriteBatch([
                .replace(collection: Self.invitations, id: record.id, owner: record.owner, data: usedDocument, expectedVersion: record.version),
                existing.map { .replace(collection: Self.caregivers, id: caregiver, owner: record.owner, data: grantDocument, expectedVersion: $0.version) }
                    ?? .insert(collection: Self.caregivers, id: caregiver, owner: record.owner, data: grantDocument),
            ]))
        } catch where error.code == .preconditionFailed || error.code == .conflict {
            throw Self.usedInvitation()  // accepted meanwhile, by this phone or another
        }
        return (record.owner, grant)
    }

    // MARK: Caregivers

    func caregivers(owner: String) async throws(BusError) -> [(id: String, data: Caregiver)] {
        let page = try await store.query(RecordQuery(collection: Self.caregivers, owner: owner, limit: 100))
        return page.records.compactMap { record in (try? record.decode(Caregiver.self)).map { (record.id, $0) } }
    }

    /// Ends caregiving at once: the grant goes, and with it every route of the album to them.
    func end(owner: String, caregiver: String) async throws(BusError) {
        guard StorageNames.isValidID(caregiver), let record = try await store.get(collection: Self.caregivers, id: caregiver, owner: owner) else {
            throw BusError(.notFound, "This person does not help with your album.", details: ["reason": "caregiver_unknown"])
        }
        try await store.delete(from: Self.caregivers, id: caregiver, owner: owner, expectedVersion: record.version)
    }

    /// The albums `caregiver` helps with.
    func helping(caregiver: String) async throws(BusError) -> [(owner: String, data: Caregiver)] {
        let page = try await store.query(RecordQuery(collection: Self.caregivers, owner: nil, filters: [Filter("caregiver", .eq, .string(caregiver))],
                                                     limit: 100))
        return page.records.compactMap { record in (try? record.decode(Caregiver.self)).map { (record.owner, $0) } }
    }

    /// Whether `caregiver` helps with `owner`'s album now (read from the store on every request, so
    /// an ended caregiving ends at once): their grant, else 403 `not_caregiver`.
    func authorize(caregiver: String, owner: String) async throws(BusError) -> Caregiver {
        guard StorageNames.isValidID(owner), caregiver != owner,
              let record = try await store.get(collection: Self.caregivers, id: caregiver, owner: owner) else { throw Self.notCaregiver() }
        return try record.decode(Caregiver.self)
    }

    // MARK: Restore access

    /// A one-time link that signs a phone in as `owner` (15 minutes; 3 an hour per caregiver and user).
    func issueRestore(caregiver: String, owner: String) async throws(BusError) -> (token: String, expiresAt: Date) {
        _ = try await authorize(caregiver: caregiver, owner: owner)
        let now = clock.now()
        if let wait = restoreIssues.take("\(caregiver)>\(owner)", now: now) {
            throw Self.tooMany(wait, "Restore links are limited to 3 an hour for one album.")
        }
        let token = Secrets.random(bytes: 32)
        let restore = Restore(createdBy: caregiver, createdAt: now, expiresAt: now.addingTimeInterval(Self.restoreLife))
        _ = try await store.insert(restore, into: Self.restores, id: Secrets.sha256Hex(token), owner: owner)
        return (token, restore.expiresAt)
    }

    /// Opens a restore link: once, before it expires, while its caregiver still helps; a new session
    /// for the album's owner.
    func redeemRestore(_ token: String) async throws(BusError) -> StartRestoredSession.Reply {
        guard let key = Self.key(token), let record = try await store.get(collection: Self.restores, id: key, owner: nil) else {
            throw Self.unknownRestore()
        }
        var data = try record.decode(Restore.self)
        if data.usedAt != nil { throw Self.usedRestore() }
        if data.expiresAt <= clock.now() { throw Self.expiredRestore() }
        _ = try await authorize(caregiver: data.createdBy, owner: record.owner)
        data.usedAt = clock.now()
        do {
            _ = try await store.replace(data, in: Self.restores, id: record.id, owner: record.owner, expectedVersion: record.version)
        } catch where error.code == .preconditionFailed || error.code == .conflict {
            throw Self.usedRestore()
        }
        return try await bus.request(StartRestoredSession(accountID: record.owner))
    }
}
