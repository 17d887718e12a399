import Bus
import Crypto
import Foundation
import PluginKit
import Secrets
import JWTKit

/// Signs and checks access tokens (HS256 JWTs) and derives device secrets, from one server secret.
struct TokenIssuer: Sendable {
    struct AccessClaims: JWTPayload {
        var sub: SubjectClaim
        var sid: String
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        /// The expiry is checked by ``TokenIssuer/verify(_:)`` against the plugin's clock, not here
        /// against the system's.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private let keys: JWTKeyCollection
    private let secret: SymmetricKey
    let issuer: String
    let accessTTL: Duration
    /// The plugin's clock: tokens are issued and expire in its time.
    let clock: PluginClock

    init(secret: Data, issuer: String, accessTTL: Duration, clock: PluginClock = .system) async {
        self.clock = clock
        self.secret = SymmetricKey(data: secret)
        self.keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(key: SymmetricKey(data: secret)), digestAlgorithm: .sha256)
        self.issuer = issuer
        self.accessTTL = accessTTL
    }

    var accessTTLSeconds: Int { Int(accessTTL.components.seconds) }

    func accessToken(account: String, session: String, now: Date? = nil) async throws(BusError) -> String {
        let now = now ?? clock.now()
        let claims = AccessClaims(sub: SubjectClaim(value: account), sid: session, iss: IssuerClaim(value: issuer),
                                  iat: IssuedAtClaim(value: now),
                                  exp: ExpirationClaim(value: now.addingTimeInterval(TimeInterval(accessTTLSeconds))))
        do {
            return try await keys.sign(claims)
        } catch {
            throw BusError(.internal, "Could not sign an access token.")
        }
    }

    /// The account, session and remaining lifetime of a valid, unexpired token from this server.
    func verify(_ token: String) async throws(BusError) -> (account: String, session: String, remaining: Duration) {
        guard JWTForm.isCompact(token) else {
            throw BusError(.unauthenticated, "The access token is invalid or expired; refresh it or sign in again.")
        }
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
            try claims.exp.verifyNotExpired(currentDate: clock.now())
        } catch {
            throw BusError(.unauthenticated, "The access token is invalid or expired; refresh it or sign in again.")
        }
        guard claims.iss.value == issuer else {
            throw BusError(.unauthenticated, "The access token was issued for another app; sign in again.")
        }
        let remaining = claims.exp.value.timeIntervalSince(clock.now())
        return (claims.sub.value, claims.sid, .milliseconds(Int64(max(0, remaining) * 1000)))
    }

    /// A device account's secret: derived, never stored, so a retried "create device account" can
    /// answer with the same secret.
    func deviceSecret(account: String, version: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("device:\(account):\(version)".utf8), using: secret)
        return Secrets.base64URL(Data(mac))
    }
}
