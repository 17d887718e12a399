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

// MARK: Operators (the admin plugin and `quire admin`)

/// An account as the server's operator sees it.
public struct AccountRecord: Codable, Sendable, Hashable {
    public var accountID: String
    /// Nil for a password-less device account and one made by an OpenID Connect sign-in.
    public var username: String?
    public var kind: String
    public var createdAt: Date
    /// May use the operator's screen and `/api/v1/admin`.
    public var isOperator: Bool
    /// Cannot sign in; their sessions were ended when it was disabled.
    public var disabled: Bool
    public init(accountID: String, username: String?, kind: String, createdAt: Date, isOperator: Bool, disabled: Bool) {
        self.accountID = accountID
        self.username = username
        self.kind = kind
        self.createdAt = createdAt
        self.isOperator = isOperator
        self.disabled = disabled
    }
}

/// Accounts, by username (device accounts, which have none, after them), a page at a time;
/// `search` keeps those whose username starts with it (or the one account with that id).
public struct ListAccounts: BusRequest {
    public static let name: MessageName = "auth.account.list.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public var accounts: [AccountRecord]
        public var nextCursor: String?
        public init(accounts: [AccountRecord], nextCursor: String?) {
            self.accounts = accounts
            self.nextCursor = nextCursor
        }
    }
    public var search: String?
    public var limit: Int
    public var cursor: String?
    public init(search: String?, limit: Int, cursor: String?) {
        self.search = search
        self.limit = limit
        self.cursor = cursor
    }
}

/// One account by id; `not_found` when there is none.
public struct GetAccount: BusRequest {
    public static let name: MessageName = "auth.account.get.v1"
    public typealias Reply = AccountRecord
    public var accountID: String
    public init(accountID: String) { self.accountID = accountID }
}

/// Makes an account an operator, or no longer one (`quire admin grant|revoke`). `account` is a
/// username or an account id (`acc_…`).
public struct SetOperator: BusRequest {
    public static let name: MessageName = "auth.account.operator.set.v1"
    public typealias Reply = AccountRecord
    public var account: String
    public var isOperator: Bool
    public init(account: String, isOperator: Bool) {
        self.account = account
        self.isOperator = isOperator
    }
}

/// Disables an account (it cannot sign in, and every session it has ends at once) or enables it again.
public struct SetAccountDisabled: BusRequest {
    public static let name: MessageName = "auth.account.disabled.set.v1"
    public typealias Reply = AccountRecord
    public var accountID: String
    public var disabled: Bool
    public init(accountID: String, disabled: Bool) {
        self.accountID = accountID
        self.disabled = disabled
    }
}

/// Every auth message, for name checks.
public enum AuthMessages {
    public static let all: [any BusMessage.Type] = [
        HashSecret.self, VerifySecret.self,
        VerifySession.self, CreateAccount.self, FindAccount.self, ResetPassword.self, RevokeSessions.self,
        ListAccounts.self, GetAccount.self, SetOperator.self, SetAccountDisabled.self,
        StartRestoredSession.self,
    ]
}
