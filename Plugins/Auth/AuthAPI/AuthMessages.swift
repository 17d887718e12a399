public import Bus
public import Foundation

// The auth plugin's requests. Other plugins and the tools reach accounts and sessions only through
// these; the host uses `VerifySession` (through `BusAuthenticator`) in front of every signed-in route.

/// Checks an access token: signature, expiry, and that its session is still live.
public struct VerifySession: BusRequest {
    public static let name: MessageName = "auth.session.verify.v1"
    public typealias Reply = VerifiedSession
    public var accessToken: String
    public init(accessToken: String) { self.accessToken = accessToken }
}

public struct VerifiedSession: Codable, Sendable, Hashable {
    public var accountID: String
    public var sessionID: String
    /// When the access token stops being accepted (a live connection opened with it closes then).
    public var expiresAt: Date?
    public init(accountID: String, sessionID: String, expiresAt: Date? = nil) {
        self.accountID = accountID
        self.sessionID = sessionID
        self.expiresAt = expiresAt
    }
}

/// Creates a password account (the `quire-auth create-user` tool and `POST /auth/register`).
public struct CreateAccount: BusRequest {
    public static let name: MessageName = "auth.account.create.v1"
    public typealias Reply = AccountSummary
    public var username: String
    public var password: String
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

public struct AccountSummary: Codable, Sendable, Hashable {
    public var accountID: String
    /// Nil for a password-less device account.
    public var username: String?
    public var kind: String
    public var createdAt: Date
    public init(accountID: String, username: String?, kind: String, createdAt: Date) {
        self.accountID = accountID
        self.username = username
        self.kind = kind
        self.createdAt = createdAt
    }
}

/// The account with a username (for tools acting on a user's behalf); `not_found` when none.
public struct FindAccount: BusRequest {
    public static let name: MessageName = "auth.account.find.v1"
    public typealias Reply = AccountSummary
    public var username: String
    public init(username: String) { self.username = username }
}

/// Sets a new password and revokes every session of the account.
public struct ResetPassword: BusRequest {
    public static let name: MessageName = "auth.password.reset.v1"
    public typealias Reply = Empty
    public var username: String
    public var newPassword: String
    public init(username: String, newPassword: String) {
        self.username = username
        self.newPassword = newPassword
    }
}

/// Revokes every live session of an account: its refresh tokens stop working at once, and so do its
/// access tokens (they are checked against their session).
public struct RevokeSessions: BusRequest {
    public static let name: MessageName = "auth.sessions.revoke.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public var revoked: Int
        public init(revoked: Int) { self.revoked = revoked }
    }
    public var username: String
    public init(username: String) { self.username = username }
}

/// Hashes a secret that another plugin keeps (a share link's password) the way auth hashes
/// passwords: bcrypt, off the cooperative threads. The same rules as a password (8 to 72 bytes).
public struct HashSecret: BusRequest {
    public static let name: MessageName = "auth.secret.hash.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public var hash: String
        public init(hash: String) { self.hash = hash }
    }
    public var secret: String
    public init(secret: String) { self.secret = secret }
}

/// Whether `secret` matches a hash from ``HashSecret``.
public struct VerifySecret: BusRequest {
    public static let name: MessageName = "auth.secret.verify.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public var matches: Bool
        public init(matches: Bool) { self.matches = matches }
    }
    public var secret: String
    public var hash: String
    public init(secret: String, hash: String) {
        self.secret = secret
        self.hash = hash
    }
}

/// Every auth message, for name checks.
public enum AuthMessages {
    public static let all: [any BusMessage.Type] = [
        HashSecret.self, VerifySecret.self,
        VerifySession.self, CreateAccount.self, FindAccount.self, ResetPassword.self, RevokeSessions.self,
    ]
}
