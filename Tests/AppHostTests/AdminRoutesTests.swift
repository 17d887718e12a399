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
        (.post, "/api/v1/admin/backups"), (.get, "/api/v1/admin/backups/restore-points"), (.get, "/api/v1/admin/backups/restore-points?limit=1"),
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
            // What the web client asks for its Admin link (no 404 in anyone's console): auth's me says operator.
            #expect(try await api.send(.get, "/api/v1/auth/me", token: operatorToken).json["operator"] as? Bool == true)
            #expect(try await api.send(.get, "/api/v1/auth/me", token: carol).json["operator"] as? Bool == false)
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
            // Without storage.backup, "Back up now" says what to add, and there are no restore points.
            let now = try await api.send(.post, "/api/v1/admin/backups", token: operatorToken)
            #expect(now.status == 422 && now["code"] == "invalid" && (now["detail"] ?? "").contains("storage.backup"), "\(now.text)")
            let points = try await api.send(.get, "/api/v1/admin/backups/restore-points", token: operatorToken)
            #expect(points.status == 200 && points.items.isEmpty && points.json.keys.contains("nextCursor"), "\(points.text)")
        }
    }

    /// Napkin Notes on SQLite in a folder of its own, backing up to `to` and keeping the last 5 (every 24 h: only "Back up now" takes one here).
    static func backupYAML(_ root: URL, to destinations: [String]) -> String {
        let list = destinations.map { "\"\($0)\"" }.joined(separator: ", ")
        return TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  admin: {}\n",
                            storage: "{ backend: sqlite, path: \(root.path)/data/app.sqlite, blobs: \(root.path)/data/blobs, "
                                + "backup: { every: 24h, keep: { last: 5 }, to: [\(list)] } }",
                            auth: "{ bcrypt_cost: 4, secret: test-secret-0123456789-0123456789-0123456789, first_account_is_admin: true }")
    }

    /// Follows GET /admin/backups until the backup started is no longer running.
    static func finishedBackup(_ api: APIClient, token: String) async throws -> [String: any Sendable] {
        for _ in 0..<600 {
            let reply = try await api.send(.get, "/api/v1/admin/backups", token: token)
            if reply.json["running"] as? Bool == false, let run = reply.json["lastRun"] as? [String: any Sendable] { return run }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestAppFailure("the backup did not finish")
    }

    @Test("Back up now: 202 with it running, then what it wrote, where and how big; the restore points list it, checked, with the command that restores it")
    func backUpNow() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("quire-admin-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("backups").path
        try await TestApp.run(yaml: Self.backupYAML(root, to: [folder])) { api, _ in
            let (operatorToken, _) = try await api.signUp("opal")
            #expect(try await api.send(.post, "/api/v1/notes", json: ["title": "Keep me", "text": "safe"], token: operatorToken).status == 201)
            let started = try await api.send(.post, "/api/v1/admin/backups", token: operatorToken)
            #expect(started.status == 202, "\(started.text)")
            #expect(started.json["running"] as? Bool == true, "\(started.text)")
            let running = try #require(started.json["lastRun"] as? [String: any Sendable])
            #expect(running["state"] as? String == "running" && running["trigger"] as? String == "operator")
            let name = try #require(running["name"] as? String)

            let run = try await Self.finishedBackup(api, token: operatorToken)
            #expect(run["state"] as? String == "succeeded", "\(run)")
            #expect(run["name"] as? String == name)
            #expect(run["written"] as? [String] == ["\(folder)/\(name)"], "\(run)")
            #expect((run["bytes"] as? Int ?? 0) > 0 && (run["files"] as? Int ?? 0) >= 2, "the records and the manifest: \(run)")
            #expect((run["failures"] as? [Any])?.isEmpty == true)
            #expect(FileManager.default.fileExists(atPath: "\(folder)/\(name)/manifest.json"))
            let status = try await api.send(.get, "/api/v1/admin/backups", token: operatorToken)
            #expect(status["status"] == "ok" && (status["detail"] ?? "").contains(name), "\(status.text)")

            // A second one: the list is newest first, each checked, each with its command.
            #expect(try await api.send(.post, "/api/v1/admin/backups", token: operatorToken).status == 202)
            let second = try await Self.finishedBackup(api, token: operatorToken)
            let secondName = try #require(second["name"] as? String)
            #expect(secondName > name, "a backup started in the same second takes the next name")
            let points = try await api.send(.get, "/api/v1/admin/backups/restore-points", token: operatorToken)
            #expect(points.status == 200, "\(points.text)")
            #expect(points.items.compactMap { $0["name"] as? String } == [secondName, name], "\(points.text)")
            for point in points.items {
                let location = point["location"] as? String ?? ""
                #expect(point["kind"] as? String == "folder" && point["to"] as? String == folder)
                #expect(location == "\(folder)/\(point["name"] as? String ?? "")")
                #expect(point["verified"] as? Bool == true && point["verifiedAt"] != nil, "\(point)")
                #expect((point["bytes"] as? Int ?? 0) > 0)
                let command = point["restoreCommand"] as? String ?? ""
                #expect(command.hasPrefix("quire restore --config ") && command.hasSuffix("--from \(location)"), "\(command)")
            }
            #expect(points.json["unreadable"] as? [Any] != nil && points["nextCursor"] == nil)
            let page = try await api.send(.get, "/api/v1/admin/backups/restore-points?limit=1", token: operatorToken)
            #expect(page.items.count == 1 && page["nextCursor"] != nil)
        }
    }

    @Test("Back up now to a destination that cannot be written: the run fails naming it and what to do; the other destination has it; the restore points say which cannot be read")
    func backUpNowFails() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("quire-admin-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let good = root.appendingPathComponent("backups").path
        try Data("a file where a folder should be".utf8).write(to: root.appendingPathComponent("blocker"))
        let bad = root.appendingPathComponent("blocker/backups").path
        try await TestApp.run(yaml: Self.backupYAML(root, to: [good, bad])) { api, _ in
            let (operatorToken, _) = try await api.signUp("opal")
            #expect(try await api.send(.post, "/api/v1/admin/backups", token: operatorToken).status == 202)
            let run = try await Self.finishedBackup(api, token: operatorToken)
            let name = run["name"] as? String ?? ""
            #expect(run["state"] as? String == "failed", "\(run)")
            #expect(run["written"] as? [String] == ["\(good)/\(name)"], "\(run)")
            let failures = run["failures"] as? [[String: any Sendable]] ?? []
            #expect(failures.count == 1 && failures.first?["to"] as? String == bad, "\(run)")
            let reason = failures.first?["reason"] as? String ?? ""
            #expect(reason.contains("could not be written to \(bad)") && reason.contains("check that the folder exists"), "\(reason)")
            #expect(reason.contains("\(root.path)/blocker is a file, not a folder"), "it names what is in the way: \(reason)")
            let status = try await api.send(.get, "/api/v1/admin/backups", token: operatorToken)
            #expect(status["status"] == "failing" && (status["detail"] ?? "").contains(bad), "\(status.text)")
            let points = try await api.send(.get, "/api/v1/admin/backups/restore-points", token: operatorToken)
            #expect(points.items.compactMap { $0["location"] as? String } == ["\(good)/\(name)"], "\(points.text)")
            let unreadable = points.json["unreadable"] as? [[String: any Sendable]] ?? []
            #expect(unreadable.count == 1 && unreadable.first?["to"] as? String == bad, "\(points.text)")
        }
    }

    @Test("a deleted vocabulary collection's purge is listed beside the imports: who, which collection, how many entries it deleted")
    func purgeJobs() async throws {
        let yaml = TestApp.yaml(extraPlugins: "  vocabulary: {}\n  admin: {}\n",
                                auth: "{ bcrypt_cost: 4, secret: test-secret-0123456789-0123456789-0123456789, first_account_is_admin: true }")
        try await TestApp.run(yaml: yaml) { api, _ in
            let (operatorToken, _) = try await api.signUp("opal")
            let (ada, login) = try await api.signUp("ada")
            let adaID = try #require(login["accountId"])
            let made = try await api.send(.post, "/api/v1/vocabulary/collections", json: ["name": "French"], token: ada)
            let french = try #require(made["id"])
            for word in ["chat", "chien", "pain"] {
                let entry = try await api.send(.post, "/api/v1/vocabulary/entries", json: ["collection": french, "word": word, "definitions": ["x"]] as [String: any Sendable], token: ada)
                #expect(entry.status == 201)
            }
            #expect(try await api.send(.delete, "/api/v1/vocabulary/collections/\(french)", token: ada).status == 204)
            var purge: [String: any Sendable]?
            for _ in 0..<400 where purge == nil {
                let done = try await api.send(.get, "/api/v1/admin/jobs?state=succeeded", token: operatorToken)
                purge = done.items.first { $0["kind"] as? String == "vocabulary.purge" && $0["id"] as? String == french }
                if purge == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let job = try #require(purge)
            #expect(job["owner"] as? String == adaID && job["collection"] as? String == "French" && job["deleted"] as? Int == 3, "\(job)")
            #expect(job["finishedAt"] != nil && job["format"] == nil && job["failure"] == nil, "\(job)")
            // Finished, it is neither running nor failed; the user's detail lists it among their jobs.
            let current = try await api.send(.get, "/api/v1/admin/jobs", token: operatorToken)
            #expect(!current.items.contains { $0["id"] as? String == french }, "\(current.text)")
            let detail = try await api.send(.get, "/api/v1/admin/users/\(adaID)", token: operatorToken)
            #expect((detail.json["jobs"] as? [[String: any Sendable]] ?? []).contains { $0["kind"] as? String == "vocabulary.purge" }, "\(detail.text)")
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
