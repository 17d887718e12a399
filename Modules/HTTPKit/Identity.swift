public import Hummingbird
/// Who is asking: the signed-in account behind a request.
public struct Identity: Sendable, Hashable, Codable {
    /// The account's id; records are owned by it.
    public var accountID: String
    /// The session (refresh-token family) the access token belongs to.
    public var sessionID: String

    public init(accountID: String, sessionID: String) {
        self.accountID = accountID
        self.sessionID = sessionID
    }
}

/// Turns a bearer token into an ``Identity``. The auth plugin provides the live one; the host puts
/// it in front of every route that is not explicitly public.
public protocol RequestAuthenticator: Sendable {
    /// - Throws: a ``Problem`` (401) when the token is missing, malformed, expired or revoked.
    func authenticate(bearerToken: String) async throws -> Identity
}

/// Admission control in front of every route (a quota plugin provides it): `enter` runs before
/// routing for every request and may refuse it (the server is full, the body is too big); the
/// host calls `leave` when the response is ready. `admit` runs after a signed-in route's caller is
/// known and may refuse them (their daily operations or their storage are used up).
public protocol RequestGate: Sendable {
    func enter(_ request: Request) throws
    func leave()
    /// May replace the request's body (to count what streams in), hence `inout`.
    func admit(_ request: inout Request, identity: Identity) async throws
}
