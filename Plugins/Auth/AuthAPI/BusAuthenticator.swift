public import Bus
public import HTTPKit

/// The host's authenticator: asks the auth plugin over the bus to verify each bearer token.
public struct BusAuthenticator: RequestAuthenticator {
    private let bus: any MessageBus

    public init(bus: any MessageBus) {
        self.bus = bus
    }

    /// - Throws: the auth plugin's `BusError` (`unauthenticated` for a bad token), which the host's
    ///   problem middleware turns into a 401 with `WWW-Authenticate: Bearer`.
    public func authenticate(bearerToken: String) async throws -> Identity {
        let session = try await bus.request(VerifySession(accessToken: bearerToken), timeout: .seconds(5))
        return Identity(accountID: session.accountID, sessionID: session.sessionID)
    }
}
