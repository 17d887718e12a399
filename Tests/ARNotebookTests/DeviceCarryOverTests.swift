import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// UI5.1.1: sign-in skipped (a device account), then signed up — the notebooks made meanwhile are
/// the signed-up account's. Only the device account's own token may hand them over, and only once.
@Suite("AR Notebook: a skipped sign-in's notebooks carried over at sign-up (UI5.1.1)")
struct DeviceCarryOverTests {
    static let signUp = "/api/v1/auth/device/sign-up"

    /// A device account: its token and id.
    static func device(_ client: APIClient) async throws -> (token: String, id: String, secret: String) {
        let created = try await client.send(.post, "/api/v1/auth/device")
        guard created.status == 201, let token = created["access_token"], let id = created["accountId"], let secret = created["deviceSecret"] else {
            throw TestAppFailure("device account: \(created.status) \(created.text)")
        }
        return (token, id, secret)
    }

    @Test("signing up keeps the notebooks: the same account, now with a user name; another phone signing in sees them")
    func carriesOver() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let phone = try await Self.device(client)
            let notebook = try await client.notebook(phone.token, name: "Kept on this phone")
            try await client.page(phone.token, notebook)

            let signedUp = try await client.send(.post, Self.signUp, json: ["accountId": phone.id, "username": "ada", "password": "a good password"],
                                                 token: phone.token)
            #expect(signedUp.status == 200, "\(signedUp.text)")
            #expect(signedUp["accountId"] == phone.id && signedUp["username"] == "ada" && signedUp["kind"] == "password", "\(signedUp.text)")

            // This phone's session goes on, now the signed-up account's.
            let me = try await client.send(.get, "/api/v1/auth/me", token: phone.token)
            #expect(me["kind"] == "password" && me["username"] == "ada")

            // A second phone signs in with the user name and password and finds the notebook.
            let login = try await client.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"])
            #expect(login.status == 200 && login["accountId"] == phone.id)
            let token = try #require(login["access_token"])
            let listed = try await client.send(.get, "\(ARNotebook.base)/notebooks", token: token)
            #expect(listed.items.contains { $0["id"] as? String == notebook && $0["name"] as? String == "Kept on this phone" }, "\(listed.text)")
            let content = try await client.send(.get, "\(ARNotebook.base)/notebooks/\(notebook)", token: token)
            #expect(content.status == 200 && (content.json["pages"] as? [Any])?.count == 1, "its page too: \(content.text)")

            // The device secret no longer signs in: the account has a password now.
            let secret = try await client.send(.post, "/api/v1/auth/device", json: ["accountId": phone.id, "deviceSecret": phone.secret])
            #expect(secret.status == 401)
        }
    }

    @Test("a second sign-up of the same account is refused (409 already_signed_up) and changes nothing")
    func onlyOnce() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let phone = try await Self.device(client)
            let first = try await client.send(.post, Self.signUp, json: ["accountId": phone.id, "username": "ada", "password": "a good password"],
                                              token: phone.token)
            #expect(first.status == 200)
            let again = try await client.send(.post, Self.signUp, json: ["accountId": phone.id, "username": "bea", "password": "another good one"],
                                              token: phone.token)
            #expect(again.status == 409, "\(again.text)")
            #expect(again["code"] == "conflict" && again["reason"] == "already_signed_up", "\(again.text)")
            #expect(again["detail"]?.contains("already signed up as 'ada'") == true && again["detail"]?.contains("Sign in") == true, "\(again.text)")
            // The first name and password still sign in; the second never did.
            #expect(try await client.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"]).status == 200)
            #expect(try await client.send(.post, "/api/v1/auth/login", json: ["username": "bea", "password": "another good one"]).status == 401)

            // A password account was never a device account: nothing of its to hand over.
            let (token, login) = try await client.signUp("cyd")
            let own = try await client.send(.post, Self.signUp, json: ["accountId": login["accountId"] ?? "", "username": "cyd2", "password": "a good password"],
                                            token: token)
            #expect(own.status == 409 && own["reason"] == "already_signed_up", "\(own.text)")
        }
    }

    @Test("someone else's token cannot hand a device account's notebooks over (403 not_your_device_account); no token is 401")
    func onlyItsOwnToken() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            let phone = try await Self.device(client)
            let notebook = try await client.notebook(phone.token, name: "Mine")
            let other = try await Self.device(client)
            let body = ["accountId": phone.id, "username": "mallory", "password": "a good password"]

            let stolen = try await client.send(.post, Self.signUp, json: body, token: other.token)
            #expect(stolen.status == 403, "\(stolen.text)")
            #expect(stolen["code"] == "forbidden" && stolen["reason"] == "not_your_device_account", "\(stolen.text)")
            #expect(stolen["detail"]?.contains("Only this phone's own account") == true, "\(stolen.text)")
            let (passwordToken, _) = try await client.signUp("eve")
            #expect(try await client.send(.post, Self.signUp, json: body, token: passwordToken).status == 403)
            #expect(try await client.send(.post, Self.signUp, json: body).status == 401)

            // Nothing moved: the phone's account is still a device account with its notebook, and
            // the name was not taken.
            let me = try await client.send(.get, "/api/v1/auth/me", token: phone.token)
            #expect(me["kind"] == "device")
            let listed = try await client.send(.get, "\(ARNotebook.base)/notebooks", token: phone.token)
            #expect(listed.items.contains { $0["id"] as? String == notebook })
            #expect(try await client.send(.get, "\(ARNotebook.base)/notebooks/\(notebook)", token: other.token).status == 404)
            #expect(try await client.send(.post, "/api/v1/auth/login", json: ["username": "mallory", "password": "a good password"]).status == 401)
            let mine = try await client.send(.post, Self.signUp, json: ["accountId": phone.id, "username": "ada", "password": "a good password"],
                                             token: phone.token)
            #expect(mine.status == 200)
        }
    }

    @Test("a taken user name is refused and the device account stays one, so another name can be tried")
    func takenName() async throws {
        try await TestApp.run(yaml: ARNotebook.yaml()) { client, _ in
            _ = try await client.signUp("ada")
            let phone = try await Self.device(client)
            let taken = try await client.send(.post, Self.signUp, json: ["accountId": phone.id, "username": "Ada", "password": "a good password"],
                                              token: phone.token)
            #expect(taken.status == 409 && taken["detail"]?.contains("taken") == true, "\(taken.text)")
            #expect(try await client.send(.get, "/api/v1/auth/me", token: phone.token)["kind"] == "device")
            let weak = try await client.send(.post, Self.signUp, json: ["accountId": phone.id, "username": "bea", "password": "x"], token: phone.token)
            #expect(weak.status == 422 || weak.status == 400, "\(weak.text)")
            let next = try await client.send(.post, Self.signUp, json: ["accountId": phone.id, "username": "bea", "password": "a good password"],
                                             token: phone.token)
            #expect(next.status == 200, "\(next.text)")
        }
    }
}
