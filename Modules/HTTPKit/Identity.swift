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
