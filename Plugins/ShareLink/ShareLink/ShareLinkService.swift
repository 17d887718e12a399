import AuthAPI
import Bus
import Foundation
import PluginKit
import Secrets
import ShareLinkAPI
import StorageAPI

/// Links: a random token (256 bits, base64url) of which only the SHA-256 is stored, looked up by
/// that hash and compared in constant time; optional expiry and password (bcrypt, through auth);
/// revocation kept as a date, so that a revoked link answers 410 rather than 404.
struct ShareLinkService: Sendable {
    static let collection = "share.links"
    static let schema = CollectionSchema(name: collection, indexes: [IndexSpec(name: "token", fields: ["tokenHash"], unique: true, scope: .global)])

    /// A kind the app's plugins offer, and how to ask its plugin what a link shows.
    struct Kind: Sendable {
        let show: @Sendable (any MessageBus, String, [String: String]) async throws(BusError) -> SharedView

        static func of<K: SharedKind>(_ kind: K.Type) -> Kind {
            Kind { bus, owner, resource throws(BusError) in
                try await bus.request(ShowShared<K>(owner: owner, resource: resource), timeout: .seconds(10))
            }
        }
    }

    struct Stored: Codable {
        var tokenHash: String
        var tokenHint: String
        var kind: String
        var resource: [String: String]
        var title: String?
        var createdAt: Date
        var expiresAt: Date?
        var revokedAt: Date?
        var passwordHash: String?
    }

    let store: BusRecordStore
    let bus: any MessageBus
    /// The plugin's clock: links expire and are revoked in its time.
    let clock: PluginClock
    let maxLifetime: TimeInterval
    /// By id: what the app's plugins declare they let share (`PluginDescriptor.offers`).
    let kinds: [String: Kind]

    static func info(_ id: String, _ stored: Stored) -> ShareLinkInfo {
        ShareLinkInfo(id: id, kind: stored.kind, resource: stored.resource, title: stored.title, createdAt: stored.createdAt,
                      expiresAt: stored.expiresAt, revokedAt: stored.revokedAt, hasPassword: stored.passwordHash != nil,
                      tokenHint: stored.tokenHint)
    }

    func create(_ request: CreateShareLink) async throws(BusError) -> CreateShareLink.Reply {
        guard let kind = kinds[request.kind] else {
            throw BusError.invalid("'\(request.kind)' cannot be shared; kinds: \(kinds.keys.sorted().joined(separator: ", ")).", field: "kind")
        }
        guard request.resource.count <= 16, request.resource.allSatisfy({ $0.key.count <= 32 && $0.value.utf8.count <= 1000 }) else {
            throw BusError.invalid("A shared resource is at most 16 short parameters.", field: "resource")
        }
        if let title = request.title, title.count > 200 { throw BusError.invalid("A link's title is at most 200 characters.", field: "title") }
        let now = clock.now()
        if let expiresAt = request.expiresAt {
            guard expiresAt > now else { throw BusError.invalid("The expiry is in the past; give a later time.", field: "expiresAt") }
            guard expiresAt.timeIntervalSince(now) <= maxLifetime else {
                throw BusError.invalid("A link lives at most \(Int(maxLifetime / 86_400)) days.", field: "expiresAt")
            }
        }
        // The resource must exist and be the owner's: a link to nothing is refused now, not later.
        do {
            _ = try await kind.show(bus, request.owner, request.resource)
        } catch where error.code == .noHandler {
            throw BusError.invalid("This app does not serve '\(request.kind)'.", field: "kind")
        }
        var passwordHash: String?
        if let password = request.password {
            passwordHash = try await bus.request(HashSecret(secret: password), timeout: .seconds(10)).hash
        }
        let token = Self.newToken()
        let stored = Stored(tokenHash: Self.hash(token), tokenHint: String(token.prefix(4)), kind: request.kind, resource: request.resource,
                            title: request.title, createdAt: now, expiresAt: request.expiresAt, revokedAt: nil, passwordHash: passwordHash)
        let record = try await store.insert(stored, into: Self.collection, owner: request.owner)
        return .init(link: Self.info(record.id, stored), token: token, path: "/api/v1/share-link/s/\(token)")
    }

    func list(owner: String) async throws(BusError) -> [ShareLinkInfo] {
        var links: [ShareLinkInfo] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.collection, owner: owner, limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records { links.append(Self.info(record.id, try record.decode(Stored.self))) }
            cursor = page.nextCursor
        } while cursor != nil
        return links.sorted { $0.createdAt > $1.createdAt }
    }

    func revoke(owner: String, id: String) async throws(BusError) -> ShareLinkInfo {
        guard let record = try await store.get(collection: Self.collection, id: id, owner: owner) else {
            throw BusError(.notFound, "You have no share link '\(id)'.")
        }
        var stored = try record.decode(Stored.self)
        if stored.revokedAt == nil {
            stored.revokedAt = clock.now()
            _ = try await store.replace(stored, in: Self.collection, id: id, owner: owner, expectedVersion: record.version)
        }
        return Self.info(id, stored)
    }

    /// What a token grants now. The password is checked last, so that a revoked link says so
    /// without asking for it.
    ///
    /// `grant` stands in for the password on a password-protected link's pictures: the page, once
    /// opened with the password, names them with it (see ``grant(for:)``), so that a browser can load
    /// them without the password in any URL.
    func resolve(token: String, password: String?, grant: String? = nil) async throws(BusError) -> (record: Record, stored: Stored) {
        guard Self.isWellFormed(token) else { throw Self.unknown }
        let hash = Self.hash(token)
        let page = try await store.query(RecordQuery(collection: Self.collection, owner: nil, filters: [Filter("tokenHash", .eq, .string(hash))],
                                                     limit: 1))
        guard let record = page.records.first else { throw Self.unknown }
        let stored = try record.decode(Stored.self)
        guard Secrets.constantTimeEqual(stored.tokenHash, hash) else { throw Self.unknown }
        if stored.revokedAt != nil { throw BusError(.gone, "This link was withdrawn by the person who shared it.") }
        if let expiresAt = stored.expiresAt, expiresAt <= clock.now() { throw BusError(.gone, "This link has expired.") }
        if let passwordHash = stored.passwordHash {
            if let grant, let expected = Self.grant(for: stored), Secrets.constantTimeEqual(grant, expected) { return (record, stored) }
            guard let password, !password.isEmpty else {
                throw BusError(.unauthenticated, "This link needs its password.", details: ["field": "password"])
            }
            let matches = try await bus.request(VerifySecret(secret: password, hash: passwordHash), timeout: .seconds(10)).matches
            guard matches else { throw BusError(.unauthenticated, "That is not the link's password.", details: ["field": "password"]) }
        }
        return (record, stored)
    }

    func show(_ record: Record, _ stored: Stored) async throws(BusError) -> SharedView {
        guard let kind = kinds[stored.kind] else { throw BusError(.gone, "This kind of link is no longer served.") }
        do {
            return try await kind.show(bus, record.owner, stored.resource)
        } catch where error.code == .notFound {
            throw BusError(.gone, "What this link showed has been deleted.")
        }
    }

    static let unknown = BusError(.notFound, "There is no such link. Check that it was copied whole.")

    /// What lets a page's pictures load without the password: a hash of the link's password hash
    /// (a server-side secret) and its token hash. Nil for a link without a password.
    static func grant(for stored: Stored) -> String? {
        stored.passwordHash.map { hash("grant|\($0)|\(stored.tokenHash)") }
    }

    static func newToken() -> String { Secrets.random(bytes: 32) }

    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 43 && token.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 || $0 == 95 }
    }

    static func hash(_ token: String) -> String { Secrets.sha256Hex(token) }
}
