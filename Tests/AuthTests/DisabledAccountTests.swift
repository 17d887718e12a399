import AppHost
import AppHostTestKit
import AuthAPI
import Bus
import Foundation
import HTTPTypes
import Testing

/// An account the server's operator disabled (`SetAccountDisabled`, what
/// `POST /api/v1/admin/users/{id}/disable` sends): it is signed out everywhere at once and cannot
/// sign in again until it is enabled; nothing it stores goes.
@Suite("Disabled accounts")
struct DisabledAccountTests {
    @Test("a disabled password account: its sessions end at once, and the right password gets a 403 saying to ask the operator")
    func password() async throws {
        try await TestApp.run { api, host in
            let (token, login) = try await api.signUp("ada")
            let accountID = try #require(login["accountId"])
            let refresh = try #require(login["refresh_token"])
            // A second session on another device.
            let other = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"])
            #expect(other.status == 200)

            let disabled = try await host.bus.request(SetAccountDisabled(accountID: accountID, disabled: true))
            #expect(disabled.disabled && disabled.accountID == accountID && disabled.username == "ada")
            #expect(try await host.bus.request(GetAccount(accountID: accountID)).disabled)

            #expect(try await api.send(.get, "/api/v1/auth/me", token: token).status == 401, "the access token stopped working")
            #expect(try await api.send(.get, "/api/v1/auth/me", token: other["access_token"]).status == 401, "on every device")
            #expect(try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": refresh]).status == 401, "no refresh either")
            #expect(try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": other["refresh_token"] ?? ""]).status == 401)

            let refused = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"])
            #expect(refused.status == 403)
            #expect(refused["code"] == "forbidden")
            #expect(refused["detail"]?.contains("operator") == true, "\(refused.text)")
            let wrong = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "not the password"])
            #expect(wrong.status == 401, "a wrong password still says only that: being disabled is not told to a guesser")

            // Enabled again, the same password signs in.
            let enabled = try await host.bus.request(SetAccountDisabled(accountID: accountID, disabled: false))
            #expect(!enabled.disabled)
            let back = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"])
            #expect(back.status == 200)
            #expect(try await api.send(.get, "/api/v1/auth/me", token: back["access_token"]).status == 200)
        }
    }

    @Test("a disabled device account: its session ends, and its device secret gets a 403")
    func device() async throws {
        try await TestApp.run { api, host in
            let created = try await api.send(.post, "/api/v1/auth/device")
            #expect(created.status == 201)
            let accountID = try #require(created["accountId"])
            let secret = try #require(created["deviceSecret"])
            _ = try await host.bus.request(SetAccountDisabled(accountID: accountID, disabled: true))

            #expect(try await api.send(.get, "/api/v1/auth/me", token: created["access_token"]).status == 401)
            #expect(try await api.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": created["refresh_token"] ?? ""]).status == 401)
            let refused = try await api.send(.post, "/api/v1/auth/device", json: ["accountId": accountID, "deviceSecret": secret])
            #expect(refused.status == 403)
            #expect(refused["code"] == "forbidden")
            let wrong = try await api.send(.post, "/api/v1/auth/device", json: ["accountId": accountID, "deviceSecret": "guess"])
            #expect(wrong.status == 401)

            _ = try await host.bus.request(SetAccountDisabled(accountID: accountID, disabled: false))
            let back = try await api.send(.post, "/api/v1/auth/device", json: ["accountId": accountID, "deviceSecret": secret])
            #expect(back.status == 200)
        }
    }

    @Test("disabling one account leaves the others signed in")
    func onlyThatAccount() async throws {
        try await TestApp.run { api, host in
            let (_, ada) = try await api.signUp("ada")
            let (bobToken, _) = try await api.signUp("bob")
            let adaID = try #require(ada["accountId"])
            _ = try await host.bus.request(SetAccountDisabled(accountID: adaID, disabled: true))
            #expect(try await api.send(.get, "/api/v1/auth/me", token: bobToken).status == 200)
            #expect(try await api.send(.post, "/api/v1/auth/login", json: ["username": "bob", "password": "a good password"]).status == 200)
        }
    }

    @Test("first_account_is_admin: the first account made is the operator, the next is not; SetOperator grants and revokes")
    func firstAccountIsOperator() async throws {
        let yaml = TestApp.yaml(auth: "{ bcrypt_cost: 4, secret: test-secret-0123456789-0123456789-0123456789, first_account_is_admin: true }")
        try await TestApp.run(yaml: yaml) { api, host in
            let (_, opal) = try await api.signUp("opal")
            let (_, bob) = try await api.signUp("bob")
            let opalID = try #require(opal["accountId"])
            let bobID = try #require(bob["accountId"])
            #expect(try await host.bus.request(GetAccount(accountID: opalID)).isOperator)
            #expect(try await host.bus.request(GetAccount(accountID: bobID)).isOperator == false)
            #expect(try await host.bus.request(SetOperator(account: "bob", isOperator: true)).isOperator)
            #expect(try await host.bus.request(SetOperator(account: "bob", isOperator: false)).isOperator == false)
            await #expect(throws: BusError.self) { try await host.bus.request(SetOperator(account: "nobody", isOperator: true)) }
        }
    }
}
