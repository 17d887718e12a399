import Bus
import Crypto
import Foundation
import PluginKit
import JWTKit
import SafeFetch

/// One OpenID Connect provider from the app's YAML: whose ID tokens are accepted, for which client.
struct OIDCProviderConfig: Sendable {
    var name: String
    var issuer: String
    var audience: String
    var keysURL: String
    /// How long published keys are trusted before they are fetched again.
    var keysTTL: Duration
    /// TESTS ONLY: private blocks the keys URL may be on (a provider on loopback).
    var allowNetworks: [IPNetwork]
    /// How the token carries the nonce the client sends: as it is, or (Sign in with Apple) as the
    /// lowercase hex SHA-256 of it, because the client gave Apple the hash.
    var nonceHash: NonceHash = .none
    /// Where a browser sends a person to sign in (the provider's authorization endpoint, for the
    /// implicit `id_token` flow). Without it the provider is for native apps only.
    var authorizeURL: String? = nil
    /// What the sign-in button says after "Continue with".
    var label: String = ""
    /// How the provider answers the browser: in the address's fragment, to the page (the implicit
    /// flow), or posted to our callback (`form_post`, which Sign in with Apple uses on the web).
    var responseMode: ResponseMode = .fragment
    /// With `form_post`: our callback's address as registered at the provider
    /// (`https://your.host/api/v1/auth/oidc/<name>/callback`).
    var redirectURI: String? = nil
    /// Sign in with Apple's key (team id, key id and the .p8 from the developer account), checked
    /// at start; for the calls to Apple that need a client secret (exchanging the `code`, revoking
    /// tokens), which signing in through the ID token does not.
    var appleKey: AppleKey? = nil

    enum NonceHash: String, Sendable, CaseIterable {
        case none
        case sha256
    }

    enum ResponseMode: String, Sendable, CaseIterable {
        case fragment
        case formPost = "form_post"
    }

    struct AppleKey: Sendable {
        var teamID: String
        var keyID: String
        var privateKeyFile: String
    }
}

/// The claims of an ID token Quire reads. Their checks are ``OIDCProvider/verify(idToken:nonce:)``'s,
/// each with its own message.
struct IDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim?
    var nonce: String?
    var email: String?
    var name: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Verifies a provider's ID tokens against the keys it publishes (JWKS): fetched on first use,
/// kept for `keysTTL`, fetched again early when a token names a key not seen yet (the provider
/// rotated), at most once per `minRefetch` so that made-up key ids cannot make Quire hammer it.
actor OIDCProvider {
    let config: OIDCProviderConfig
    private let fetcher: SafeFetcher
    private var keys = JWTKeyCollection()
    private var keyIDs: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?
    private let minRefetch: Duration = .seconds(10)
    private let clock = ContinuousClock()
    /// Allowed clock difference between the provider and Quire.
    static let leeway: TimeInterval = 60

    /// The plugin's clock, against which a token's expiry and issue time are checked.
    private let now: PluginClock

    init(config: OIDCProviderConfig, clock: PluginClock) {
        self.config = config
        self.now = clock
        fetcher = SafeFetcher(policy: SafeFetcher.Policy(maxBytes: 1 << 20, timeout: .seconds(10), maxRedirects: 2,
                                                         allowedNetworks: config.allowNetworks))
    }

    struct Verified: Sendable {
        var subject: String
        var email: String?
        var name: String?
    }

    /// Checks the signature, issuer, audience, expiry and nonce; each refusal says which.
    func verify(idToken: String, nonce: String?) async throws(BusError) -> Verified {
        guard JWTForm.isCompact(idToken) else {
            throw Self.refused("The ID token is not a compact JWS (three base64url parts without '=' padding).", reason: "malformed")
        }
        let kid = try Self.keyID(of: idToken)
        if fetchedAt.map({ clock.now - $0 > config.keysTTL }) ?? true {
            try await refresh()
        } else if let kid, !keyIDs.contains(kid), fetchedAt.map({ clock.now - $0 > minRefetch }) ?? true {
            try await refresh()
        }
        if let kid, !keyIDs.contains(kid) {
            throw Self.refused("The ID token is signed by a key \(config.name) does not publish (kid '\(kid.prefix(40))').", reason: "unknown_key")
        }
        let claims: IDTokenClaims
        do {
            claims = try await keys.verify(idToken, as: IDTokenClaims.self)
        } catch {
            throw Self.refused("The ID token's signature does not verify against \(config.name)'s published keys.", reason: "bad_signature")
        }
        guard claims.iss.value == config.issuer else {
            throw Self.refused("The ID token was issued by '\(claims.iss.value.prefix(100))', not \(config.name) (\(config.issuer)).", reason: "wrong_issuer")
        }
        guard claims.aud.value.contains(config.audience) else {
            throw Self.refused("The ID token is meant for another app (audience \(claims.aud.value.map { "'\($0.prefix(60))'" }.joined(separator: ", "))), "
                               + "not this one.", reason: "wrong_audience")
        }
        let now = self.now.now()
        guard claims.exp.value.addingTimeInterval(Self.leeway) > now else {
            throw Self.refused("The ID token expired at \(claims.exp.value.formatted(.iso8601)); sign in with \(config.name) again.", reason: "expired")
        }
        if let issued = claims.iat?.value, issued > now.addingTimeInterval(Self.leeway) {
            throw Self.refused("The ID token claims to be issued in the future; check the device's clock.", reason: "not_yet_valid")
        }
        guard let nonce, !nonce.isEmpty else {
            throw BusError.invalid("Send the nonce the sign-in started with, so a replayed token can be told apart.", field: "nonce")
        }
        let expected = switch config.nonceHash {
        case .none: nonce
        case .sha256: SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        guard let tokenNonce = claims.nonce, tokenNonce.utf8.count == expected.utf8.count,
              zip(tokenNonce.utf8, expected.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw Self.refused("The ID token's nonce is not the one this sign-in started with.", reason: "wrong_nonce")
        }
        guard !claims.sub.value.isEmpty, claims.sub.value.utf8.count <= 255 else {
            throw Self.refused("The ID token names no subject.", reason: "no_subject")
        }
        return Verified(subject: claims.sub.value, email: claims.email, name: claims.name)
    }

    /// Fetches the published keys and replaces the ones held: a key the provider retired stops
    /// verifying at once.
    private func refresh() async throws(BusError) {
        fetchedAt = clock.now
        let fetched: SafeFetcher.Fetched
        do {
            fetched = try await fetcher.fetch(config.keysURL)
        } catch {
            throw BusError(.unavailable, "\(config.name)'s keys could not be fetched (\(error.message)); try again shortly.")
        }
        let json = String(decoding: fetched.bytes, as: UTF8.self)
        let collection = JWTKeyCollection()
        var ids: Set<String> = []
        do {
            let jwks = try JSONDecoder().decode(JWKS.self, from: fetched.bytes)
            for key in jwks.keys {
                // A key the collection cannot use (an encryption key, an unknown algorithm) is skipped, not fatal.
                do {
                    try await collection.add(jwk: key)
                    if let id = key.keyIdentifier?.string { ids.insert(id) }
                } catch {
                    continue
                }
            }
        } catch {
            throw BusError(.unavailable, "\(config.name)'s keys URL did not answer a JSON Web Key Set (\(json.prefix(60))…).")
        }
        keys = collection
        keyIDs = ids
    }

    /// The `kid` of a token's header, read before any verification to choose the key.
    static func keyID(of token: String) throws(BusError) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, var header = parts.first.map(String.init) else {
            throw refused("That is not an ID token (a JWT has three dot-separated parts).", reason: "malformed")
        }
        header = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        header += String(repeating: "=", count: (4 - header.count % 4) % 4)
        guard let data = Data(base64Encoded: header),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw refused("The ID token's header is not readable JSON.", reason: "malformed")
        }
        return object["kid"] as? String
    }

    static func refused(_ message: String, reason: String) -> BusError {
        BusError(.unauthenticated, message, details: ["reason": reason])
    }
}
