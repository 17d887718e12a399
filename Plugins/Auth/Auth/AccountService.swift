import AuthAPI
import Bus
import Foundation
import PluginKit
import Secrets
import StorageAPI

/// Accounts and sessions, over the record store. Every rule of sign-up, sign-in and sessions lives
/// here; the HTTP routes and bus handlers only translate.
struct AccountService: Sendable {
    let store: any RecordStore
    let tokens: TokenIssuer
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    let refreshTTL: Duration
    /// Where the other nodes hear of ended sessions and failed sign-ins (``AuthPeers``).
    let bus: any MessageBus
    /// The plugin's clock: sessions, throttles and links are timed by it.
    let clock: PluginClock
    let verified = VerifiedTokenCache()
    /// `auth.first_account_is_admin`: the first account made is an operator.
    var firstAccountIsOperator = false

    // MARK: Accounts

    func register(username raw: String, password: String, idempotencyKey: String?) async throws(BusError) -> AccountSummary {
        let username = try CredentialRules.normalizedUsername(raw)
        try CredentialRules.checkPassword(password)
        let hash = await hasher.hash(password)
        let data = AccountData(kind: .password, username: username, passwordHash: hash)
        let id = "acc_" + Secrets.random(bytes: 12)
        let claim = idempotencyKey.map {
            IdempotencyClaim(owner: "anonymous", scope: "auth.register", key: $0, fingerprint: Secrets.sha256Hex("register:" + username))
        }
        let result: WriteResult
        do {
            result = try await store.write(WriteBatch([
                .insert(collection: AuthCollections.accounts, id: id, owner: id, data: try JSONDocument(encoding: data)),
            ], idempotency: claim))
        } catch where error.code == .conflict && error.details["index"] != nil {
            throw BusError.conflict("The username '\(username)' is taken; choose another.")
        }
        guard let record = result.records.first ?? nil else {
            throw BusError.conflict("The account created with this Idempotency-Key no longer exists.")
        }
        await promoteIfFirst(record.id)
        return AccountSummary(accountID: record.id, username: username, kind: AccountData.Kind.password.rawValue,
                              createdAt: record.createdAt)
    }

    func account(named raw: String) async throws(BusError) -> (id: String, data: AccountData, version: Int64)? {
        guard let username = try? CredentialRules.normalizedUsername(raw) else { return nil }
        let page = try await store.query(RecordQuery(collection: AuthCollections.accounts, owner: nil,
                                                     filters: [Filter("username", .eq, .string(username))], limit: 1))
        guard let record = page.records.first else { return nil }
        return (record.id, try record.decode(AccountData.self), record.version)
    }

    func summary(accountID: String) async throws(BusError) -> AccountSummary {
        guard let record = try await store.get(collection: AuthCollections.accounts, id: accountID, owner: accountID) else {
            throw BusError(.unauthenticated, "The account no longer exists; sign up again.")
        }
        let data = try record.decode(AccountData.self)
        return AccountSummary(accountID: record.id, username: data.username, kind: data.kind.rawValue, createdAt: record.createdAt)
    }

    func resetPassword(username: String, newPassword: String) async throws(BusError) {
        try CredentialRules.checkPassword(newPassword)
        guard let account = try await account(named: username), account.data.kind == .password else {
            throw BusError.notFound("No password account is named '\(username)'.")
        }
        var data = account.data
        data.passwordHash = await hasher.hash(newPassword)
        _ = try await store.replace(data, in: AuthCollections.accounts, id: account.id, owner: account.id)
        _ = try await revokeAll(accountID: account.id, reason: "password reset")
    }

    func revokeSessions(username: String) async throws(BusError) -> Int {
        guard let account = try await account(named: username) else {
            throw BusError.notFound("No account is named '\(username)'.")
        }
        return try await revokeAll(accountID: account.id, reason: "revoked by an administrator")
    }

    // MARK: Signing in

    func login(username raw: String, password: String, address: String?) async throws(BusError) -> TokenPair {
        let key = raw.trimmingCharacters(in: .whitespaces).lowercased()
        try checkThrottle(account: key, address: address)
        let account = try await account(named: key)
        let matches = await hasher.verify(password, hash: account?.data.passwordHash)
        guard let account, matches else {
            await signInFailed(account: key, address: address)
            throw BusError(.unauthenticated, "Wrong username or password.")
        }
        await signInSucceeded(account: key)
        guard account.data.disabled != true else { throw Self.disabledRefusal }
        return try await startSession(accountID: account.id)
    }

    /// Creates a password-less account bound to a device secret, signed in at once.
    func createDevice(idempotencyKey: String?, address: String?) async throws(BusError) -> (TokenPair, deviceSecret: String) {
        let id = "acc_" + Secrets.random(bytes: 12)
        let claim = idempotencyKey.map {
            IdempotencyClaim(owner: "anonymous", scope: "auth.device", key: $0, fingerprint: "device")
        }
        let result = try await store.write(WriteBatch([
            .insert(collection: AuthCollections.accounts, id: id, owner: id,
                    data: try JSONDocument(encoding: AccountData(kind: .device, deviceSecretVersion: 1))),
        ], idempotency: claim))
        guard let record = result.records.first ?? nil else {
            throw BusError.conflict("The account created with this Idempotency-Key no longer exists.")
        }
        let version = try record.decode(AccountData.self).deviceSecretVersion ?? 1
        await promoteIfFirst(record.id)
        let tokens = try await startSession(accountID: record.id)
        return (tokens, self.tokens.deviceSecret(account: record.id, version: version))
    }

    func loginDevice(accountID: String, secret: String, address: String?) async throws(BusError) -> TokenPair {
        try checkThrottle(account: accountID, address: address)
        let record = StorageNames.isValidID(accountID)
            ? try await store.get(collection: AuthCollections.accounts, id: accountID, owner: accountID) : nil
        let data = try record?.decode(AccountData.self)
        let expected = tokens.deviceSecret(account: accountID, version: data?.deviceSecretVersion ?? 0)
        guard let data, data.kind == .device, Secrets.constantTimeEqual(expected, secret) else {
            await signInFailed(account: accountID, address: address)
            throw BusError(.unauthenticated, "Unknown device account or wrong device secret.")
        }
        await signInSucceeded(account: accountID)
        guard data.disabled != true else { throw Self.disabledRefusal }
        return try await startSession(accountID: accountID)
    }

    private func signInFailed(account: String, address: String?) async {
        let now = clock.now()
        throttle.recordFailure(account: account, address: address, now: now)
        await bus.publish(AuthPeers.SignInFailed(node: ThisNode.id, account: account, address: address, at: now))
    }

    private func signInSucceeded(account: String) async {
        throttle.recordSuccess(account: account)
        await bus.publish(AuthPeers.SignInSucceeded(node: ThisNode.id, account: account))
    }

    /// Forgets remembered access tokens here and on every other node.
    private func sessionsEnded() async {
        verified.clear()
        await bus.publish(AuthPeers.SessionsEnded(node: ThisNode.id))
        // Read by the bus before the caller hears back: no node trusts the ended session afterwards.
        try? await bus.settle()
    }

    /// Refuses a sign-in while the account or the address is over its limit of failures.
    private func checkThrottle(account: String, address: String?) throws(BusError) {
        if let wait = throttle.retryAfter(account: account, address: address, now: clock.now()) {
            throw BusError(.rateLimited, "Too many failed sign-ins; try again in \(wait) seconds.",
                           details: ["retryAfter": String(wait)])
        }
    }

    // MARK: Sessions

    func startSession(accountID: String) async throws(BusError) -> TokenPair {
        let sessionID = "ses_" + Secrets.random(bytes: 12)
        let secret = Secrets.random(bytes: 32)
        let data = SessionData(refreshHash: Secrets.sha256Hex(secret), expiresAt: refreshExpiry(), revoked: false)
        _ = try await store.insert(data, into: AuthCollections.sessions, id: sessionID, owner: accountID)
        return try await pair(accountID: accountID, sessionID: sessionID, secret: secret)
    }

    private func pair(accountID: String, sessionID: String, secret: String) async throws(BusError) -> TokenPair {
        TokenPair(accessToken: try await tokens.accessToken(account: accountID, session: sessionID),
                  refreshToken: "\(accountID).\(sessionID).\(secret)", expiresIn: tokens.accessTTLSeconds, accountID: accountID)
    }

    private func refreshExpiry() -> Date {
        clock.now().addingTimeInterval(TimeInterval(refreshTTL.components.seconds))
    }

    /// Rotates a refresh token: the old one stops working, a new pair is issued. Presenting an
    /// already-rotated token (a sign it was stolen) revokes the whole session.
    func refresh(_ token: String) async throws(BusError) -> TokenPair {
        let invalid = BusError(.unauthenticated, "The refresh token is invalid, expired or revoked; sign in again.")
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, StorageNames.isValidID(parts[0]), StorageNames.isValidID(parts[1]) else { throw invalid }
        let (accountID, sessionID, secret) = (parts[0], parts[1], parts[2])
        guard let record = try await store.get(collection: AuthCollections.sessions, id: sessionID, owner: accountID) else {
            throw invalid
        }
        var session = try record.decode(SessionData.self)
        guard !session.revoked, session.expiresAt > clock.now() else { throw invalid }
        let presented = Secrets.sha256Hex(secret)
        guard Secrets.constantTimeEqual(presented, session.refreshHash) else {
            if let previous = session.previousRefreshHash, Secrets.constantTimeEqual(presented, previous) {
                session.revoked = true
                session.revokedReason = "refresh token reused"
                await sessionsEnded()
                _ = try? await store.replace(session, in: AuthCollections.sessions, id: sessionID, owner: accountID,
                                             expectedVersion: record.version)
            }
            throw invalid
        }
        let next = Secrets.random(bytes: 32)
        session.previousRefreshHash = session.refreshHash
        session.refreshHash = Secrets.sha256Hex(next)
        session.expiresAt = refreshExpiry()
        do {
            _ = try await store.replace(session, in: AuthCollections.sessions, id: sessionID, owner: accountID,
                                        expectedVersion: record.version)
        } catch where error.code == .preconditionFailed {
            throw BusError(.unauthenticated, "This refresh token was just used by another request; use the newest one.")
        }
        return try await pair(accountID: accountID, sessionID: sessionID, secret: next)
    }

    func logout(accountID: String, sessionID: String) async throws(BusError) {
        guard let record = try await store.get(collection: AuthCollections.sessions, id: sessionID, owner: accountID) else {
            return
        }
        var session = try record.decode(SessionData.self)
        guard !session.revoked else { return }
        session.revoked = true
        session.revokedReason = "signed out"
        _ = try await store.replace(session, in: AuthCollections.sessions, id: sessionID, owner: accountID)
        await sessionsEnded()
    }

    func revokeAll(accountID: String, reason: String) async throws(BusError) -> Int {
        var revoked = 0
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(
                collection: AuthCollections.sessions, owner: accountID,
                filters: [Filter("revoked", .eq, .bool(false))], limit: 500, cursor: cursor))
            for record in page.records {
                var session = try record.decode(SessionData.self)
                session.revoked = true
                session.revokedReason = reason
                _ = try await store.replace(session, in: AuthCollections.sessions, id: record.id, owner: accountID)
                revoked += 1
            }
            cursor = page.nextCursor
        } while cursor != nil
        await sessionsEnded()
        return revoked
    }

    /// Checks an access token and that its session is live (remembered for a second; see
    /// `VerifiedTokenCache`).
    func verify(_ accessToken: String) async throws(BusError) -> VerifiedSession {
        // Remembered, and no node has ended sessions since this request arrived (the bus caught up).
        if let known = await bus.cached({ verified.lookup(accessToken) }) { return known }
        let (accountID, sessionID, remaining) = try await tokens.verify(accessToken)
        guard StorageNames.isValidID(sessionID), StorageNames.isValidID(accountID),
              let record = try await store.get(collection: AuthCollections.sessions, id: sessionID, owner: accountID),
              let session = try? record.decode(SessionData.self), !session.revoked, session.expiresAt > clock.now()
        else {
            throw BusError(.unauthenticated, "The session has ended (signed out, revoked or expired); sign in again.")
        }
        let verifiedSession = VerifiedSession(accountID: accountID, sessionID: sessionID,
                                              expiresAt: clock.now().addingTimeInterval(Double(remaining.components.seconds)))
        verified.remember(accessToken, verifiedSession, tokenLifetime: remaining)
        return verifiedSession
    }
}
