@testable import Auth
import AuthAPI
import Bus
import Foundation
import Testing

@Suite("Access tokens")
struct TokenIssuerTests {
    func issuer(_ secret: String = "0123456789abcdef0123456789abcdef") async -> TokenIssuer {
        await TokenIssuer(secret: Data(secret.utf8), issuer: "quire:test", accessTTL: .seconds(900))
    }

    @Test("a fresh token verifies to its account and session")
    func fresh() async throws {
        let tokens = await issuer()
        let token = try await tokens.accessToken(account: "acc_1", session: "ses_1")
        let verified = try await tokens.verify(token)
        #expect(verified.account == "acc_1" && verified.session == "ses_1")
    }

    @Test("an expired token is refused with 'unauthenticated'")
    func expired() async throws {
        let tokens = await issuer()
        let token = try await tokens.accessToken(account: "acc_1", session: "ses_1", now: Date().addingTimeInterval(-3600))
        await #expect(throws: BusError.self) { try await tokens.verify(token) }
        do {
            _ = try await tokens.verify(token)
        } catch {
            #expect(error.code == .unauthenticated)
        }
    }

    @Test("a token signed with another secret is refused")
    func otherSecret() async throws {
        let token = try await issuer("another secret, 32 bytes or more!!").accessToken(account: "a", session: "s")
        await #expect(throws: BusError.self) { try await issuer().verify(token) }
    }

    @Test("device secrets are stable per account and version, and differ otherwise")
    func deviceSecrets() async {
        let tokens = await issuer()
        #expect(tokens.deviceSecret(account: "a", version: 1) == tokens.deviceSecret(account: "a", version: 1))
        #expect(tokens.deviceSecret(account: "a", version: 1) != tokens.deviceSecret(account: "a", version: 2))
        #expect(tokens.deviceSecret(account: "a", version: 1) != tokens.deviceSecret(account: "b", version: 1))
    }
}

@Suite("Verified-token cache")
struct VerifiedTokenCacheTests {
    let session = VerifiedSession(accountID: "acc", sessionID: "ses")

    @Test("a remembered token is found within its lifetime, and not after")
    func lifetime() {
        let cache = VerifiedTokenCache(lifetime: .seconds(1))
        let start = ContinuousClock.now
        cache.remember("t", session, tokenLifetime: .seconds(900), now: start)
        #expect(cache.lookup("t", now: start + .milliseconds(500)) == session)
        #expect(cache.lookup("t", now: start + .milliseconds(1500)) == nil)
    }

    @Test("a token is never served past its own expiry")
    func tokenExpiry() {
        let cache = VerifiedTokenCache(lifetime: .seconds(10))
        let start = ContinuousClock.now
        cache.remember("t", session, tokenLifetime: .milliseconds(100), now: start)
        #expect(cache.lookup("t", now: start + .milliseconds(200)) == nil)
    }

    @Test("clear forgets everything; the capacity bound holds")
    func clearAndBound() {
        let cache = VerifiedTokenCache(lifetime: .seconds(10), capacity: 10)
        for index in 0..<25 { cache.remember("t\(index)", session, tokenLifetime: .seconds(900)) }
        #expect(cache.lookup("t24") == session)
        cache.clear()
        #expect(cache.lookup("t24") == nil)
    }
}
