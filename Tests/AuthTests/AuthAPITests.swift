import AppHost
import AppHostTestKit
import HTTPKit
import Synchronization
import AuthAPI
import Bus
import Foundation
import HTTPTypes
import Testing

@Suite("Auth over HTTP")
struct AuthAPITests {
    @Test("register, sign in, see who I am")
    func registerAndLogin() async throws {
        try await TestApp.run { api, _ in
            let registered = try await api.send(.post, "/api/v1/auth/register", json: ["username": "Ada", "password": "a good password"])
            #expect(registered.status == 201)
            #expect(registered["username"] == "ada", "usernames are case-insensitive, stored lowercased")
            let login = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ADA", "password": "a good password"])
            #expect(login.status == 200)
            #expect(login["token_type"] == "Bearer")
            #expect((login.json["expires_in"] as? Int) == 900)
            let me = try await api.send(.get, "/api/v1/auth/me", token: login["access_token"])
            #expect(me.status == 200)
            #expect(me["accountId"] == registered["accountId"])
        }
    }

    @Test("bad sign-up input is a 422 naming the field; a taken username is a 409")
    func badInput() async throws {
        try await TestApp.run { api, _ in
            let short = try await api.send(.post, "/api/v1/auth/register", json: ["username": "ada", "password": "short"])
            #expect(short.status == 422)
            #expect(short["field"] == "password")
            let long = try await api.send(.post, "/api/v1/auth/register",
                                          json: ["username": "ada", "password": String(repeating: "é", count: 40)])
            #expect(long.status == 422, "over bcrypt's 72 bytes")
            let name = try await api.send(.post, "/api/v1/auth/register", json: ["username": "a b", "password": "a good password"])
            #expect(name["field"] == "username")
            let missing = try await api.send(.post, "/api/v1/auth/register", json: ["username": "ada"])
            #expect(missing.status == 400)
            #expect(missing["field"] == "password")
            _ = try await api.signUp("ada")
            let taken = try await api.send(.post, "/api/v1/auth/register", json: ["username": "ada", "password": "another password"])
            #expect(taken.status == 409)
            #expect(taken["code"] == "conflict")
        }
    }

    @Test("a retried sign-up with the same Idempotency-Key returns the same account")
    func idempotentRegister() async throws {
        try await TestApp.run { api, _ in
            let body = ["username": "ada", "password": "a good password"]
            let first = try await api.send(.post, "/api/v1/auth/register", json: body, headers: [.init("Idempotency-Key")!: "k-1"])
            let again = try await api.send(.post, "/api/v1/auth/register", json: body, headers: [.init("Idempotency-Key")!: "k-1"])
            #expect(first.status == 201 && again.status == 201)
            #expect(first["accountId"] == again["accountId"])
        }
    }

    @Test("a wrong password and an unknown user get the same 401")
    func wrongCredentials() async throws {
        try await TestApp.run { api, _ in
            _ = try await api.signUp("ada")
            let wrong = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "not the password"])
            let unknown = try await api.send(.post, "/api/v1/auth/login", json: ["username": "nobody", "password": "not the password"])
            #expect(wrong.status == 401 && unknown.status == 401)
            #expect(wrong["detail"] == unknown["detail"])
        }
    }

    @Test("repeated failed sign-ins are throttled with 429 and Retry-After, even with the right password")
    func throttle() async throws {
        try await TestApp.run { api, _ in
            _ = try await api.signUp("ada")
            for _ in 0..<5 {
                let reply = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "wrong password"])
                #expect(reply.status == 401)
            }
            let blocked = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"])
            #expect(blocked.status == 429)
            #expect(blocked["code"] == "rate_limited")
            #expect(Int(blocked.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test("refresh rotates: the new token works, the old one fails, and reusing it ends the session")
    func refreshRotation() async throws {
        try await TestApp.run { api, _ in
            let (_, login) = try await api.signUp("ada")
            let first = try #require(login["refresh_token"])
            let rotated = try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": first])
            #expect(rotated.status == 200)
            let second = try #require(rotated["refresh_token"])
            #expect(second != first)
            #expect(try await api.send(.get, "/api/v1/auth/me", token: rotated["access_token"]).status == 200)

            let replay = try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": first])
            #expect(replay.status == 401)
            // The replay is treated as theft: the whole session is over, the newest tokens too.
            #expect(try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": second]).status == 401)
            #expect(try await api.send(.get, "/api/v1/auth/me", token: rotated["access_token"]).status == 401)
        }
    }

    @Test("garbage refresh tokens are a 401, not a 500", arguments: ["", "x", "a.b.c", "acc_x.ses_y.z", "../../etc.passwd.x"])
    func garbageRefresh(_ token: String) async throws {
        try await TestApp.run { api, _ in
            let reply = try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": token])
            #expect(reply.status == 401)
        }
    }

    @Test("logout ends the session: its access and refresh tokens stop working at once")
    func logout() async throws {
        try await TestApp.run { api, _ in
            let (token, login) = try await api.signUp("ada")
            #expect(try await api.send(.post, "/api/v1/auth/logout", token: token).status == 204)
            #expect(try await api.send(.get, "/api/v1/auth/me", token: token).status == 401)
            #expect(try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": login["refresh_token"] ?? ""]).status == 401)
        }
    }

    @Test("tampered or foreign access tokens are refused")
    func tamperedToken() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = parts[1].reversed().map(String.init).joined()
            #expect(try await api.send(.get, "/api/v1/auth/me", token: parts.joined(separator: ".")).status == 401)
            #expect(try await api.send(.get, "/api/v1/auth/me", token: "not-a-jwt").status == 401)
            let scheme = try await api.send(.get, "/api/v1/auth/me", headers: [.authorization: "Basic YWRhOnB3"])
            #expect(scheme.status == 401)
        }
        // A token from another app (another secret) is refused.
        let foreign = Mutex("")
        try await TestApp.run(yaml: TestApp.yaml(app: "other", auth: "{ bcrypt_cost: 4, secret: another-secret-0123456789-0123456789-012 }")) { api, _ in
            let token = try await api.signUp("ada").token
            foreign.withLock { $0 = token }
        }
        let stolen = foreign.withLock { $0 }
        try await TestApp.run { api, _ in
            let reply = try await api.send(.get, "/api/v1/auth/me", token: stolen)
            #expect(reply.status == 401)
        }
    }

    @Test("a device account: one call, nothing to remember; its secret signs in again")
    func deviceAccount() async throws {
        try await TestApp.run { api, _ in
            let created = try await api.send(.post, "/api/v1/auth/device")
            #expect(created.status == 201)
            let accountID = try #require(created["accountId"])
            let secret = try #require(created["deviceSecret"])
            let me = try await api.send(.get, "/api/v1/auth/me", token: created["access_token"])
            #expect(me["kind"] == "device")
            let again = try await api.send(.post, "/api/v1/auth/device", json: ["accountId": accountID, "deviceSecret": secret])
            #expect(again.status == 200)
            #expect(again["accountId"] == accountID)
            let wrong = try await api.send(.post, "/api/v1/auth/device", json: ["accountId": accountID, "deviceSecret": "guess"])
            #expect(wrong.status == 401)
        }
    }

    @Test("a retried device sign-up with an Idempotency-Key returns the same account and secret")
    func idempotentDevice() async throws {
        try await TestApp.run { api, _ in
            let key: HTTPFields = [.init("Idempotency-Key")!: "device-once"]
            let first = try await api.send(.post, "/api/v1/auth/device", headers: key)
            let again = try await api.send(.post, "/api/v1/auth/device", headers: key)
            #expect(first["accountId"] == again["accountId"])
            #expect(first["deviceSecret"] == again["deviceSecret"])
        }
    }

    @Test("a method left out of the config is not served")
    func methodsFromConfig() async throws {
        let yaml = TestApp.yaml(auth: "{ bcrypt_cost: 4, methods: [password], secret: test-secret-0123456789-0123456789-0123456789 }")
        try await TestApp.run(yaml: yaml) { api, host in
            #expect(!host.routes.contains { $0.path == "/api/v1/auth/device" })
            let reply = try await api.send(.post, "/api/v1/auth/device")
            #expect(reply.status == 404)
        }
    }

    @Test("admin requests over the bus: reset a password, revoke sessions")
    func adminRequests() async throws {
        try await TestApp.run { api, host in
            let (token, _) = try await api.signUp("ada")
            let revoked = try await host.bus.request(RevokeSessions(username: "ada"))
            #expect(revoked.revoked == 1)
            #expect(try await api.send(.get, "/api/v1/auth/me", token: token).status == 401)
            _ = try await host.bus.request(ResetPassword(username: "ada", newPassword: "a brand new one"))
            #expect(try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"]).status == 401)
            #expect(try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a brand new one"]).status == 200)
            await #expect(throws: BusError.self) { try await host.bus.request(RevokeSessions(username: "nobody")) }
        }
    }
}
