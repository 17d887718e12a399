import AppHost
import AppHostTestKit
import AuthAPI
import HTTPKit
import Bus
import Foundation
import HTTPTypes
import StorageAPI
import Testing

/// The admin plugin's routes over HTTP: only an operator sees them; to anyone else they are a
/// path that does not exist.
@Suite("Admin: the operator's API")
struct AdminRoutesTests {
    /// Napkin Notes with the admin plugin; the first account made is the operator.
    static let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  admin: {}\n",
                                   auth: "{ bcrypt_cost: 4, secret: test-secret-0123456789-0123456789-0123456789, first_account_is_admin: true }")

    static let routes: [(HTTPRequest.Method, String)] = [
        (.get, "/api/v1/admin/me"), (.get, "/api/v1/admin/users"), (.get, "/api/v1/admin/users?q=op&limit=5"),
        (.get, "/api/v1/admin/users?nonsense=1"), (.get, "/api/v1/admin/users/acc_x"),
        (.post, "/api/v1/admin/users/acc_x/disable"), (.post, "/api/v1/admin/users/acc_x/enable"), (.delete, "/api/v1/admin/users/acc_x"),
        (.get, "/api/v1/admin/storage"), (.get, "/api/v1/admin/jobs"), (.get, "/api/v1/admin/jobs?state=failed"),
        (.get, "/api/v1/admin/health"), (.get, "/api/v1/admin/logs"), (.get, "/api/v1/admin/backups"),
        (.put, "/api/v1/admin/users"), (.patch, "/api/v1/admin/me"),
    ]

    /// What a client can tell of a 404: everything but the request's own id.
    static func shape(_ reply: APIClient.Reply) -> [String] {
        [String(reply.status), reply.contentType ?? "", reply["type"] ?? "", reply["code"] ?? "", reply["title"] ?? "", reply["detail"] ?? "",
         reply.json.keys.filter { $0 != "requestId" && $0 != "instance" }.sorted().joined(separator: ","),
         reply.headers[.allow] ?? "no Allow"]
    }

    @Test("a non-operator, a bad token and no token get, from every admin route, the same 404 as an unknown path; an operator gets 200")
    func operatorsOnly() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, host in
            let (operatorToken, _) = try await api.signUp("opal")
            let (carol, _) = try await api.signUp("carol")
            let unknown = Self.shape(try await api.send(.get, "/api/v1/admin/no-such-thing", token: carol))
            #expect(unknown.first == "404")
            #expect(unknown[3] == "route_not_found")
            #expect(Self.shape(try await api.send(.get, "/api/v1/nothing/here")) == unknown)
            for (who, token) in [("a non-operator", Optional(carol)), ("a bad token", "not-a-token"), ("no token", nil),
                                 ("a tampered operator token", operatorToken + "x")] {
                for (method, path) in Self.routes {
                    let reply = try await api.send(method, path, token: token)
                    #expect(Self.shape(reply) == unknown, "\(who): \(method) \(path) → \(reply.status) \(reply.text)")
                }
            }
            // Nor does the manifest show them.
            let manifest = try await api.send(.get, "/api/v1/manifest")
            #expect(!manifest.text.contains("/admin"))
            #expect(host.routes.filter { $0.path.hasPrefix("/api/v1/admin/") }.allSatisfy { $0.access == .operator })

            // The operator.
            for path in ["/api/v1/admin/me", "/api/v1/admin/users", "/api/v1/admin/storage", "/api/v1/admin/jobs", "/api/v1/admin/health",
                         "/api/v1/admin/logs", "/api/v1/admin/backups"] {
                let reply = try await api.send(.get, path, token: operatorToken)
                #expect(reply.status == 200, "\(path) → \(reply.status) \(reply.text)")
            }
            let me = try await api.send(.get, "/api/v1/admin/me", token: operatorToken)
            #expect(me["username"] == "opal" && me.json["operator"] as? Bool == true)
            let users = try await api.send(.get, "/api/v1/admin/users", token: operatorToken)
            #expect(Set(users.items.compactMap { $0["username"] as? String }) == ["opal", "carol"])
            #expect(users.json.keys.contains("nextCursor"))
            let found = try await api.send(.get, "/api/v1/admin/users?q=CA", token: operatorToken)
            #expect(found.items.compactMap { $0["username"] as? String } == ["carol"])
            // To the operator, a query a route does not take is a 400, and an account that is not there a 404 not_found.
            #expect(try await api.send(.get, "/api/v1/admin/users?nonsense=1", token: operatorToken).status == 400)
            let missing = try await api.send(.get, "/api/v1/admin/users/acc_nobody", token: operatorToken)
            #expect(missing.status == 404 && missing["code"] == "not_found")
            #expect(try await api.send(.get, "/api/v1/admin/jobs?state=nonsense", token: operatorToken).status == 400)
            let health = try await api.send(.get, "/api/v1/admin/health", token: operatorToken)
            #expect(health["status"] == "ok", "\(health.text)")
            let backups = try await api.send(.get, "/api/v1/admin/backups", token: operatorToken)
            #expect(["not-configured", "ok", "failing"].contains(backups["status"] ?? ""), "\(backups.text)")
        }
    }

    @Test("an operator whose role is revoked gets the 404 of an unknown path from their next request; no operator disables or deletes themselves")
    func revoked() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, host in
            let (_, opal) = try await api.signUp("opal")
            _ = try await api.signUp("bob")
            #expect(try await host.bus.request(SetOperator(account: "bob", isOperator: true)).isOperator)
            let bob = try await api.send(.post, "/api/v1/auth/login", json: ["username": "bob", "password": "a good password"])
            let bobToken = try #require(bob["access_token"])
            #expect(try await api.send(.get, "/api/v1/admin/users", token: bobToken).status == 200)
            _ = try await host.bus.request(SetOperator(account: "bob", isOperator: false))
            let reply = try await api.send(.get, "/api/v1/admin/users", token: bobToken)
            #expect(reply.status == 404 && reply["code"] == "route_not_found", "\(reply.text)")
            // Opal cannot disable or delete herself here.
            let opalLogin = try await api.send(.post, "/api/v1/auth/login", json: ["username": "opal", "password": "a good password"])
            let opalID = try #require(opal["accountId"])
            let own = try await api.send(.post, "/api/v1/admin/users/\(opalID)/disable", token: opalLogin["access_token"])
            #expect(own.status == 422 && own["code"] == "invalid")
            #expect(try await api.send(.delete, "/api/v1/admin/users/\(opalID)", token: opalLogin["access_token"]).status == 422)
        }
    }

    @Test("disable over HTTP ends the user's sessions and refuses their sign-in; enable lets them back")
    func disableAndEnable() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (operatorToken, _) = try await api.signUp("opal")
            let (carol, login) = try await api.signUp("carol")
            let carolID = try #require(login["accountId"])
            let disabled = try await api.send(.post, "/api/v1/admin/users/\(carolID)/disable", token: operatorToken)
            #expect(disabled.status == 200 && disabled.json["disabled"] as? Bool == true, "\(disabled.text)")
            #expect(try await api.send(.get, "/api/v1/auth/me", token: carol).status == 401)
            #expect(try await api.send(.post, "/api/v1/auth/login", json: ["username": "carol", "password": "a good password"]).status == 403)
            let enabled = try await api.send(.post, "/api/v1/admin/users/\(carolID)/enable", token: operatorToken)
            #expect(enabled.status == 200 && enabled.json["disabled"] as? Bool == false)
            #expect(try await api.send(.post, "/api/v1/auth/login", json: ["username": "carol", "password": "a good password"]).status == 200)
        }
    }

    @Test("deleting a user removes every record of theirs — notes, sessions, the account — and no one else's")
    func deleteRemovesRecords() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, host in
            let (operatorToken, _) = try await api.signUp("opal")
            let (bob, login) = try await api.signUp("bob")
            let bobID = try #require(login["accountId"])
            let (carol, _) = try await api.signUp("carol")
            for title in ["Shopping", "Ideas", "Plans"] {
                #expect(try await api.send(.post, "/api/v1/notes", json: ["title": title, "text": "bob's"], token: bob).status == 201)
            }
            #expect(try await api.send(.post, "/api/v1/notes", json: ["title": "Carol's", "text": "mine"], token: carol).status == 201)
            let before = try await host.bus.request(GetStorageUsage(owner: bobID))
            #expect(before.recordBytes > 0)
            let detail = try await api.send(.get, "/api/v1/admin/users/\(bobID)", token: operatorToken)
            #expect(detail.status == 200)
            #expect(((detail.json["user"] as? [String: any Sendable])?["storedBytes"] as? Int ?? 0) > 0, "\(detail.text)")

            let deleted = try await api.send(.delete, "/api/v1/admin/users/\(bobID)", token: operatorToken)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(deleted["accountId"] == bobID && deleted["username"] == "bob")
            let collections = deleted.json["collections"] as? [String: Int] ?? [:]
            #expect(collections["notes.notes"] == 3, "\(deleted.text)")
            #expect((deleted.json["records"] as? Int ?? 0) >= 5, "three notes, a session, the account")
            #expect((deleted.json["records"] as? Int) == collections.values.reduce(0, +))

            // Nothing of bob is stored any more.
            let after = try await host.bus.request(GetStorageUsage(owner: bobID))
            #expect(after.recordBytes == 0 && after.blobBytes == 0, "\(after)")
            await #expect(throws: BusError.self) { try await host.bus.request(GetAccount(accountID: bobID)) }
            let gone = try await api.send(.get, "/api/v1/admin/users/\(bobID)", token: operatorToken)
            #expect(gone.status == 404 && gone["code"] == "not_found")
            #expect(try await api.send(.get, "/api/v1/notes", token: bob).status == 401, "his token reads nothing")
            #expect(try await api.send(.post, "/api/v1/auth/login", json: ["username": "bob", "password": "a good password"]).status == 401)
            #expect(try await api.send(.delete, "/api/v1/admin/users/\(bobID)", token: operatorToken).status == 404, "deleted once")
            // A new bob is someone else, and carol keeps her note.
            let (newBob, _) = try await api.signUp("bob")
            #expect(try await api.send(.get, "/api/v1/notes", token: newBob).items.isEmpty)
            #expect(try await api.send(.get, "/api/v1/notes", token: carol).items.count == 1)
        }
    }
}
