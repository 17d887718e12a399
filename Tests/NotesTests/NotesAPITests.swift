import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPKit
import HTTPTypes
import NotesAPI
import StorageAPI
import Testing

extension APIClient {
    func createNote(_ fields: [String: String], token: String) async throws -> APIClient.Reply {
        try await send(.post, "/api/v1/notes", json: fields, token: token)
    }

    func titles(token: String) async throws -> [String] {
        try await send(.get, "/api/v1/notes", token: token).items.compactMap { $0["title"] as? String }
    }
}

let idempotencyKey = HTTPField.Name("Idempotency-Key")!

@Suite("Napkin Notes over HTTP")
struct NotesAPITests {
    @Test("a new note gets the title \"Title\", today's date and empty text, at the end of the list")
    func defaults() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let created = try await api.send(.post, "/api/v1/notes", json: [String: String](), token: token)
            #expect(created.status == 201)
            #expect(created["title"] == "Title")
            #expect(created["text"] == "")
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.timeZone = TimeZone(identifier: "UTC")
            #expect(created["date"] == formatter.string(from: Date()))
            #expect(created.headers[.eTag] == "\"1\"")
            #expect(created.headers[.location] == "/api/v1/notes/\(created["id"] ?? "")")
            #expect(created.json.keys.contains("photo") && created.json.keys.contains("drawing"), "ready for photo and drawing")
        }
    }

    @Test("create three, reorder, edit, delete one, list: the order is the user's")
    func lifecycle() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            var ids: [String] = []
            for title in ["one", "two", "three"] {
                ids.append(try #require(try await api.createNote(["title": title], token: token)["id"]))
            }
            #expect(try await api.titles(token: token) == ["one", "two", "three"])

            let moved = try await api.send(.post, "/api/v1/notes/\(ids[2])/move", json: ["before": ids[0]], token: token)
            #expect(moved.status == 200)
            #expect(try await api.titles(token: token) == ["three", "one", "two"])
            _ = try await api.send(.post, "/api/v1/notes/\(ids[2])/move", json: ["after": ids[1]], token: token)
            #expect(try await api.titles(token: token) == ["one", "two", "three"])
            _ = try await api.send(.post, "/api/v1/notes/\(ids[0])/move", json: ["after": ids[1]], token: token)
            #expect(try await api.titles(token: token) == ["two", "one", "three"])

            let edited = try await api.send(.patch, "/api/v1/notes/\(ids[1])", json: ["text": "milk, eggs", "date": "2024-02-29"], token: token)
            #expect(edited.status == 200)
            #expect(edited["title"] == "two" && edited["text"] == "milk, eggs" && edited["date"] == "2024-02-29")
            #expect(edited.headers[.eTag] == "\"2\"")

            #expect(try await api.send(.delete, "/api/v1/notes/\(ids[0])", token: token).status == 204)
            #expect(try await api.send(.get, "/api/v1/notes/\(ids[0])", token: token).status == 404)
            #expect(try await api.titles(token: token) == ["two", "three"])
        }
    }

    @Test("another user's note is a 404 on every route, and never shows up in their list")
    func isolation() async throws {
        try await TestApp.run { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let secret = try #require(try await api.createNote(["title": "ada's secret"], token: ada)["id"])
            let bobs = try #require(try await api.createNote(["title": "bob's"], token: bob)["id"])
            let attempts: [(HTTPRequest.Method, String, [String: String]?)] = [
                (.get, "/api/v1/notes/\(secret)", nil),
                (.patch, "/api/v1/notes/\(secret)", ["title": "pwned"]),
                (.delete, "/api/v1/notes/\(secret)", nil),
                (.post, "/api/v1/notes/\(secret)/move", ["before": bobs]),
                (.post, "/api/v1/notes/\(bobs)/move", ["before": secret]),
            ]
            for (method, path, body) in attempts {
                let reply = try await api.send(method, path, json: body, token: bob)
                #expect(reply.status == 404, "\(method) \(path)")
                #expect(!String(decoding: reply.body, as: UTF8.self).contains("ada's secret"))
            }
            #expect(try await api.titles(token: bob) == ["bob's"])
            #expect(try await api.titles(token: ada) == ["ada's secret"], "nothing was changed by bob")
        }
    }

    @Test("a retried create with the same Idempotency-Key creates one note; reusing the key for another body is a 409")
    func idempotentCreate() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let first = try await api.send(.post, "/api/v1/notes", json: ["title": "once"], token: token, headers: [idempotencyKey: "abc-123"])
            let retry = try await api.send(.post, "/api/v1/notes", json: ["title": "once"], token: token, headers: [idempotencyKey: "abc-123"])
            #expect(first.status == 201 && retry.status == 201)
            #expect(first["id"] == retry["id"])
            #expect(retry.headers[.idempotentReplayed] == "true")
            #expect(try await api.titles(token: token) == ["once"])
            let other = try await api.send(.post, "/api/v1/notes", json: ["title": "different"], token: token, headers: [idempotencyKey: "abc-123"])
            #expect(other.status == 409)
            let bad = try await api.send(.post, "/api/v1/notes", json: ["title": "x"], token: token, headers: [idempotencyKey: "has space"])
            #expect(bad.status == 400)
        }
    }

    @Test("an edit sent again with its Idempotency-Key (a reload cut its answer off) is answered with the note as it is, never made again over a later edit")
    func idempotentEdit() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote(["title": "Shopping", "text": "t1"], token: token)["id"])
            let path = "/api/v1/notes/\(id)"
            let a = try await api.send(.patch, path, json: ["text": "reload-A"], token: token, headers: [.ifMatch: "\"1\"", idempotencyKey: "edit-a"])
            #expect(a.status == 200)
            let b = try await api.send(.patch, path, json: ["text": "reload-B"], token: token, headers: [.ifMatch: "\"1\"", idempotencyKey: "edit-b"])
            #expect((b.json["replaced"] as? [String: any Sendable])?["text"] as? String == "reload-A", "B's later edit says what it replaced")
            let again = try await api.send(.patch, path, json: ["text": "reload-A"], token: token, headers: [.ifMatch: "\"1\"", idempotencyKey: "edit-a"])
            #expect(again.status == 200)
            #expect(again["text"] == "reload-B", "the note as it is: A's edit is not made a second time")
            #expect(again.json["replaced"] == nil)
            #expect(again.headers[.idempotentReplayed] == "true")
            #expect(try await api.send(.get, path, token: token)["text"] == "reload-B")
            let reused = try await api.send(.patch, path, json: ["text": "something else"], token: token, headers: [idempotencyKey: "edit-a"])
            #expect(reused.status == 409, "the key reused for another edit")
        }
    }

    @Test("If-Match naming an older version merges by field; the same field keeps the later write and returns the one it replaced")
    func ifMatch() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote(["title": "v1", "text": "t1"], token: token)["id"])
            let first = try await api.send(.patch, "/api/v1/notes/\(id)", json: ["title": "v2"], token: token, headers: [.ifMatch: "\"1\""])
            #expect(first.status == 200)
            // Another device, still on version 1, changes the text only: merged, nothing replaced.
            let text = try await api.send(.patch, "/api/v1/notes/\(id)", json: ["text": "t2"], token: token, headers: [.ifMatch: "\"1\""])
            #expect(text.status == 200)
            #expect(text["title"] == "v2")
            #expect(text["text"] == "t2")
            #expect(text.json["replaced"] == nil)
            // And the title too: the later write wins, and the answer says what it replaced.
            let title = try await api.send(.patch, "/api/v1/notes/\(id)", json: ["title": "v3"], token: token, headers: [.ifMatch: "\"1\""])
            #expect(title.status == 200)
            #expect(title["title"] == "v3")
            #expect(title["text"] == "t2")
            #expect((title.json["replaced"] as? [String: any Sendable])?["title"] as? String == "v2")
            // A version the note never had is still refused.
            let never = try await api.send(.patch, "/api/v1/notes/\(id)", json: ["title": "lost"], token: token, headers: [.ifMatch: "\"99\""])
            #expect(never.status == 412)
            #expect(never["code"] == "precondition_failed")
            #expect(try await api.send(.get, "/api/v1/notes/\(id)", token: token)["title"] == "v3")
            // History lists the earlier versions, newest first, and restores one as a new version.
            let history = try await api.send(.get, "/api/v1/notes/\(id)/history", token: token).items
            #expect(history.map { $0["version"] as? Int } == [3, 2, 1])
            let restored = try await api.send(.post, "/api/v1/notes/\(id)/history/1/restore", token: token)
            #expect(restored["title"] == "v1")
            #expect(restored.json["version"] as? Int == 5)
            #expect(try await api.send(.post, "/api/v1/notes/\(id)/history/77/restore", token: token).status == 404)
        }
    }

    @Test("bad requests get 400 or 422 problem documents, never a 500")
    func badRequests() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.createNote(["title": "x"], token: token)["id"])
            let cases: [(HTTPRequest.Method, String, (any Sendable)?, HTTPFields, Int)] = [
                (.post, "/api/v1/notes", "{not json", [:], 400),
                (.post, "/api/v1/notes", "[1,2]", [:], 400),
                (.post, "/api/v1/notes", ["title": 5], [:], 400),
                (.post, "/api/v1/notes", ["titel": "typo"], [:], 400),
                (.post, "/api/v1/notes", ["title": String(repeating: "t", count: 201)], [:], 422),
                (.post, "/api/v1/notes", ["date": "2023-02-29"], [:], 422),
                (.post, "/api/v1/notes", ["date": "yesterday"], [:], 422),
                (.post, "/api/v1/notes", ["title": "x"], [.contentType: "text/plain"], 415),
                (.post, "/api/v1/notes", nil, [:], 400),
                (.get, "/api/v1/notes?limit=0", nil, [:], 400),
                (.get, "/api/v1/notes?limit=lots", nil, [:], 400),
                (.get, "/api/v1/notes?cursor=forged", nil, [:], 422),
                (.post, "/api/v1/notes/\(id)/move", ["before": id], [:], 422),
                (.post, "/api/v1/notes/\(id)/move", [String: String](), [:], 422),
                (.post, "/api/v1/notes/\(id)/move", ["before": "a", "after": "b"], [:], 422),
                (.post, "/api/v1/notes/\(id)/move", ["before": "missing"], [:], 404),
                (.patch, "/api/v1/notes/\(id)", ["title": "x"], [.ifMatch: "soon"], 400),
                (.get, "/api/v1/notes/" + String(repeating: "z", count: 300), nil, [:], 404),
            ]
            for (method, path, body, headers, status) in cases {
                let reply = try await api.send(method, path, json: body, token: token, headers: headers)
                #expect(reply.status == status, "\(method) \(path) \(String(describing: body))")
                #expect(reply.contentType == Problem.mediaType, "\(method) \(path)")
                #expect(reply["type"]?.hasPrefix("urn:quire:problem:") == true)
            }
        }
    }

    @Test("pages of a long list cover every note once, in order")
    func pagination() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            for index in 0..<7 { _ = try await api.createNote(["title": "n\(index)"], token: token) }
            var seen: [String] = []
            var path = "/api/v1/notes?limit=3"
            for _ in 0..<5 {
                let page = try await api.send(.get, path, token: token)
                seen += page.items.compactMap { $0["title"] as? String }
                guard let cursor = page.json["nextCursor"] as? String else { break }
                path = "/api/v1/notes?limit=3&cursor=\(cursor)"
            }
            #expect(seen == (0..<7).map { "n\($0)" })
        }
    }

    @Test("notes created at the same moment by two clients all appear, in one stable order")
    func concurrentCreates() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            _ = try await api.createNote(["title": "first"], token: token)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask { try await api.createNote(["title": "c\(index)"], token: token).status }
                }
                for try await status in group { #expect(status == 201) }
            }
            let once = try await api.titles(token: token)
            let twice = try await api.titles(token: token)
            #expect(once.count == 21 && Set(once).count == 21)
            #expect(once.first == "first")
            #expect(once == twice, "the order is stable")
        }
    }

    @Test("moving between two notes that share an order key (concurrent inserts) respaces the list correctly")
    func moveIntoTie() async throws {
        try await TestApp.run { api, host in
            let (token, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            var ids: [String] = []
            for title in ["a", "b", "c"] { ids.append(try #require(try await api.createNote(["title": title], token: token)["id"])) }
            // Give "b" the same key as "a", as two clients inserting at once would.
            let store = BusRecordStore(bus: host.bus)
            let a = try #require(try await store.get(collection: "notes.notes", id: ids[0], owner: owner))
            let b = try #require(try await store.get(collection: "notes.notes", id: ids[1], owner: owner))
            struct Position: Codable { var position: String }
            let position = try a.decode(Position.self).position
            var data = try JSONSerialization.jsonObject(with: b.data.bytes) as? [String: Any] ?? [:]
            data["position"] = position
            _ = try await store.write(WriteBatch([.replace(collection: "notes.notes", id: ids[1], owner: owner,
                                                            data: try JSONDocument(json: JSONSerialization.data(withJSONObject: data)),
                                                            expectedVersion: nil)]))
            let tied = try await api.titles(token: token)
            let first = tied[0], second = tied[1]
            let firstID = first == "a" ? ids[0] : ids[1]
            let moved = try await api.send(.post, "/api/v1/notes/\(ids[2])/move", json: ["after": firstID], token: token)
            #expect(moved.status == 200)
            #expect(try await api.titles(token: token) == [first, "c", second])
        }
    }

    @Test("lists read while notes are written never show a stale list afterwards (with and without the cache)",
          arguments: ["{}", "{ list_cache_bytes: 0 }"])
    func listsRaceWrites(_ notesConfig: String) async throws {
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: TestApp.napkinPlugins(notes: notesConfig))) { api, _ in
            let (token, _) = try await api.signUp("ada")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<30 {
                    group.addTask { _ = try await api.createNote(["title": "w\(index)"], token: token) }
                    group.addTask { _ = try await api.titles(token: token) }
                }
                try await group.waitForAll()
            }
            let titles = try await api.titles(token: token)
            #expect(titles.count == 30, "the list after the last write shows every note: \(titles.count)")
            let id = try #require(try await api.send(.get, "/api/v1/notes", token: token).items.first?["id"] as? String)
            _ = try await api.send(.patch, "/api/v1/notes/\(id)", json: ["title": "renamed"], token: token)
            #expect(try await api.titles(token: token).first == "renamed", "an edit shows at once")
            _ = try await api.send(.delete, "/api/v1/notes/\(id)", token: token)
            #expect(try await api.titles(token: token).count == 29, "a delete shows at once")
        }
    }

    @Test("every change publishes notes.note.changed.v1 for other plugins")
    func events() async throws {
        try await TestApp.run { api, host in
            let events = host.bus.subscribe(to: NoteChanged.self)
            let (token, _) = try await api.signUp("ada")
            let one = try #require(try await api.createNote(["title": "1"], token: token)["id"])
            let two = try #require(try await api.createNote(["title": "2"], token: token)["id"])
            _ = try await api.send(.patch, "/api/v1/notes/\(one)", json: ["title": "1b"], token: token)
            _ = try await api.send(.post, "/api/v1/notes/\(two)/move", json: ["before": one], token: token)
            _ = try await api.send(.delete, "/api/v1/notes/\(one)", token: token)
            var kinds: [NoteChanged.Kind] = []
            for await event in events {
                kinds.append(event.kind)
                if kinds.count == 5 { break }
            }
            #expect(kinds == [.created, .created, .edited, .moved, .deleted])
        }
    }
}
