import Foundation
import StorageAPI

/// What the auth plugin stores, and where.
enum AuthCollections {
    static let accounts = "auth.accounts"
    static let sessions = "auth.sessions"
    /// An external sign-in (OpenID Connect provider + subject) linked to an account; id from both.
    static let external = "auth.external"

    static let schemas = [
        CollectionSchema(name: accounts, indexes: [
            IndexSpec(name: "username", fields: ["username"], unique: true, scope: .global),
        ]),
        CollectionSchema(name: sessions, indexes: [
            IndexSpec(name: "live", fields: ["revoked"]),
        ]),
        CollectionSchema(name: external),
    ]
}

/// An account. Its record is owned by itself (owner == id).
struct AccountData: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case password, device, external }
    var kind: Kind
    /// Lowercased; nil for device and external accounts.
    var username: String?
    /// bcrypt; nil for device accounts.
    var passwordHash: String?
    /// Bumped to invalidate a device secret.
    var deviceSecretVersion: Int?
    /// An operator of the server (`quire admin grant`, or the first account with `first_account_is_admin`).
    var isOperator: Bool?
    /// Disabled by an operator: no sign-in.
    var disabled: Bool?
}

/// A session: one refresh-token family. Access tokens name it (`sid`) and die with it.
struct SessionData: Codable, Sendable {
    /// SHA-256 (hex) of the current refresh token's secret part.
    var refreshHash: String
    /// The one before, to detect a stolen token being replayed after rotation.
    var previousRefreshHash: String?
    var expiresAt: Date
    var revoked: Bool
    var revokedReason: String?
}

/// What `login`, `refresh` and `device` answer.
struct TokenPair: Codable, Sendable {
    var accessToken: String
    var refreshToken: String
    var expiresIn: Int
    var tokenType = "Bearer"
    var accountID: String

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case accountID = "accountId"  // the OAuth members above keep RFC 6749's names; ours are camelCase
    }
}

/// An OpenID Connect identity linked to an account (record owned by the account).
struct ExternalLink: Codable, Sendable {
    var provider: String
    var subject: String
    var email: String?
    var linkedAt: Date
}
