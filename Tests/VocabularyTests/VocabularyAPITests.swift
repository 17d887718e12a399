import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import StorageAPI
import Testing
import VocabularyAPI

let vocabularyYAML = TestApp.yaml(extraPlugins: "  vocabulary: { undo_seconds: 1 }\n")

extension APIClient.Reply {
    func list(_ key: String) -> [[String: any Sendable]] { json[key] as? [[String: any Sendable]] ?? [] }
}

extension APIClient {
    func make(_ path: String, _ body: [String: any Sendable], token: String) async throws -> String {
        let reply = try await send(.post, "/api/v1/vocabulary/\(path)", json: body, token: token)
        guard reply.status == 201, let id = reply["id"] else { throw TestAppFailure("POST \(path): \(reply.status) \(reply.text)") }
        return id
    }

    func search(_ query: String, token: String, extra: String = "") async throws -> [[String: any Sendable]] {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        let reply = try await send(.get, "/api/v1/vocabulary/search?q=\(encoded)\(extra)", token: token)
        guard reply.status == 200 else { throw TestAppFailure("search \(query): \(reply.status) \(reply.text)") }
        return reply.list("items")
    }

    /// Polls an import until it ends.
    func finishedImport(_ reply: Reply, token: String) async throws -> Reply {
        guard reply.status == 202, let id = reply["id"] else { throw TestAppFailure("import: \(reply.status) \(reply.text)") }
        for _ in 0..<200 {
            let job = try await send(.get, "/api/v1/vocabulary/imports/\(id)", token: token)
            if job["state"] != "running" { return job }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestAppFailure("import \(id) did not finish")
    }
}

@Suite("Foreign Note over HTTP")
struct VocabularyAPITests {
    @Test("collections: a name is required, duplicates (case and accents aside) are 409 naming the other, delete takes the entries")
    func collections() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let missing = try await api.send(.post, "/api/v1/vocabulary/collections", json: ["name": "  "], token: token)
            #expect(missing.status == 422)
            #expect(missing["detail"] == "Give the collection a name.")
            let french = try await api.make("collections", ["name": "Frénch"], token: token)
            let german = try await api.make("collections", ["name": "German"], token: token)
            let clash = try await api.send(.patch, "/api/v1/vocabulary/collections/\(german)", json: ["name": "FRENCH"], token: token)
            #expect(clash.status == 409)
            #expect(clash["conflictingName"] == "Frénch")
            #expect(clash["detail"]?.contains("'Frénch'") == true)
            let again = try await api.send(.post, "/api/v1/vocabulary/collections", json: ["name": "french"], token: token)
            #expect(again.status == 409)
            let renamed = try await api.send(.patch, "/api/v1/vocabulary/collections/\(german)", json: ["name": "Deutsch"], token: token)
            #expect(renamed.status == 200 && renamed["name"] == "Deutsch")
            let entry = try await api.make("entries", ["collection": french, "word": "pain", "definitions": ["bread"]], token: token)
            #expect(try await api.send(.delete, "/api/v1/vocabulary/collections/\(french)", token: token).status == 204)
            #expect(try await api.send(.get, "/api/v1/vocabulary/entries/\(entry)", token: token).status == 404)
            let names = try await api.send(.get, "/api/v1/vocabulary/collections", token: token).list("items").compactMap { $0["name"] as? String }
            #expect(names == ["Deutsch"])
        }
    }

    @Test("deleting a collection: gone from view at once (its entries hidden everywhere), the entries deleted in the background")
    func deleteInBackground() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, host in
            let (token, login) = try await api.signUp("ada")
            let account = try #require(login["accountId"])
            let big = try await api.make("collections", ["name": "Big"], token: token)
            let other = try await api.make("collections", ["name": "Other"], token: token)
            let csv = (0..<1200).map { "w\($0),meaning \($0)" }.joined(separator: "\n")
            let started = try await api.upload(.post, "/api/v1/vocabulary/imports?format=csv&collection=Big", bytes: Data(csv.utf8), token: token)
            let job = try #require(started["id"])
            var state = "running"
            for _ in 0..<600 where state == "running" {
                state = try await api.send(.get, "/api/v1/vocabulary/imports/\(job)", token: token)["state"] ?? "failed"
                if state == "running" { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(state == "succeeded")
            let kept = try await api.make("entries", ["collection": other, "word": "w1", "definitions": ["kept"]], token: token)
            let sample = try #require(try await api.send(.get, "/api/v1/vocabulary/collections/\(big)/entries?limit=1", token: token).items.first?["id"] as? String)
            #expect(try await api.send(.delete, "/api/v1/vocabulary/collections/\(big)", token: token).status == 204)
            // At once, whatever the background has got to:
            #expect(try await api.send(.get, "/api/v1/vocabulary/collections/\(big)", token: token).status == 404)
            #expect(try await api.send(.get, "/api/v1/vocabulary/entries/\(sample)", token: token).status == 404)
            let hits = try await api.send(.get, "/api/v1/vocabulary/search?q=w1", token: token).items.compactMap { $0["id"] as? String }
            #expect(hits == [kept])
            let browsed = try await api.send(.get, "/api/v1/vocabulary/search?limit=100", token: token).items.compactMap { $0["id"] as? String }
            #expect(browsed == [kept])
            #expect(try await api.make("collections", ["name": "Big"], token: token) != big)
            // In the background: every entry, then the purge record.
            let store = BusRecordStore(bus: host.bus)
            var left = -1
            for _ in 0..<400 where left != 0 {
                left = try await store.query(RecordQuery(collection: "vocab.entries", owner: account, filters: [Filter("collection", .eq, .string(big))],
                                                         limit: 10)).records.count
                    + (try await store.query(RecordQuery(collection: "vocab.purging", owner: account, limit: 10)).records.count)
                if left != 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(left == 0)
        }
    }

    @Test("entries: word, definitions, BCP 47 languages, note, example, tags; bad input says what to fix")
    func entries() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let food = try await api.make("tags", ["name": "food"], token: token)
            let created = try await api.send(.post, "/api/v1/vocabulary/entries", json: [
                "collection": french, "word": " crème ", "definitions": ["cream", ""], "languages": ["fr", "en-GB"],
                "note": "feminine", "example": "Un peu de crème.", "tags": [food],
            ] as [String: any Sendable], token: token)
            #expect(created.status == 201)
            #expect(created["word"] == "crème")
            #expect(created.json["definitions"] as? [String] == ["cream"])
            #expect(created.json["tags"] as? [String] == [food])
            let id = try #require(created["id"])
            let edited = try await api.send(.patch, "/api/v1/vocabulary/entries/\(id)", json: ["note": NSNull(), "definitions": ["cream", "custard"]] as [String: any Sendable], token: token)
            #expect(edited.status == 200)
            #expect(edited.json["note"] is NSNull)
            #expect(edited["example"] == "Un peu de crème.")
            for (body, field) in [
                (["collection": french, "definitions": ["x"]] as [String: any Sendable], "word"),
                (["collection": french, "word": "x", "definitions": [" "]], "definitions"),
                (["collection": french, "word": "x", "definitions": ["y"], "languages": ["french!"]], "languages"),
                (["collection": french, "word": "x", "definitions": ["y"], "tags": ["t_nope"]], "tags"),
                (["word": "x", "definitions": ["y"]], "collection"),
            ] {
                let refused = try await api.send(.post, "/api/v1/vocabulary/entries", json: body, token: token)
                #expect(refused.status == 422, "\(field)")
                #expect(refused["field"] == field)
            }
        }
    }

    @Test("tags: duplicate rename is 409; deleting a tag keeps the entries without it")
    func tags() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let food = try await api.make("tags", ["name": "food"], token: token)
            let verb = try await api.make("tags", ["name": "verb"], token: token)
            #expect(try await api.send(.post, "/api/v1/vocabulary/tags", json: ["name": "two words"], token: token).status == 422)
            let clash = try await api.send(.patch, "/api/v1/vocabulary/tags/\(verb)", json: ["name": "Food"], token: token)
            #expect(clash.status == 409 && clash["conflictingName"] == "food")
            let entry = try await api.make("entries", ["collection": french, "word": "manger", "definitions": ["to eat"], "tags": [food, verb]],
                                           token: token)
            #expect(try await api.send(.delete, "/api/v1/vocabulary/tags/\(food)", token: token).status == 204)
            let after = try await api.send(.get, "/api/v1/vocabulary/entries/\(entry)", token: token)
            #expect(after.status == 200)
            #expect(after.json["tags"] as? [String] == [verb])
        }
    }

    @Test("relations are symmetric, across collections, removed with either entry, back with an undo")
    func relations() async throws {
        // The test's clock: the one-second undo window passes only when the test moves it (a loaded
        // machine took longer than that between the delete and the restore).
        let clock = ManualClock()
        try await TestApp.run(yaml: vocabularyYAML, clock: clock.pluginClock) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let german = try await api.make("collections", ["name": "German"], token: token)
            let a = try await api.make("entries", ["collection": french, "word": "voiture", "definitions": ["car"]], token: token)
            let b = try await api.make("entries", ["collection": german, "word": "Auto", "definitions": ["car"]], token: token)
            let c = try await api.make("entries", ["collection": french, "word": "auto", "definitions": ["car (informal)"]], token: token)
            #expect(try await api.send(.post, "/api/v1/vocabulary/entries/\(a)/relations", json: ["kind": "related", "entry": b], token: token).status == 200)
            #expect(try await api.send(.post, "/api/v1/vocabulary/entries/\(a)/relations", json: ["kind": "alternative", "entry": c], token: token).status == 200)
            #expect(try await api.send(.post, "/api/v1/vocabulary/entries/\(a)/relations", json: ["kind": "cousin", "entry": c], token: token).status == 422)
            func relations(_ id: String) async throws -> [String: String] {
                let list = try await api.send(.get, "/api/v1/vocabulary/entries/\(id)", token: token).json["relations"] as? [[String: String]] ?? []
                return Dictionary(uniqueKeysWithValues: list.compactMap { item in item["entry"].map { ($0, item["kind"] ?? "") } })
            }
            #expect(try await relations(a) == [b: "related", c: "alternative"])
            #expect(try await relations(b) == [a: "related"])
            #expect(try await relations(c) == [a: "alternative"])
            #expect(try await api.send(.delete, "/api/v1/vocabulary/entries/\(c)/relations/\(a)", token: token).status == 200)
            #expect(try await relations(a) == [b: "related"])
            #expect(try await api.send(.delete, "/api/v1/vocabulary/entries/\(b)", token: token).status == 204)
            #expect(try await relations(a) == [:], "deleting one side removes the relation from the other")
            #expect(try await api.send(.post, "/api/v1/vocabulary/entries/\(b)/restore", token: token).status == 200)
            #expect(try await relations(a) == [b: "related"], "restoring brings it back on both")
        }
    }

    @Test("a deleted entry can be restored within the undo window; after it, 410")
    func undo() async throws {
        // The plugin's clock is the test's: the window passes when the test moves it, not by waiting.
        let clock = ManualClock()
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: "  vocabulary: { undo_seconds: 4 }\n"), clock: clock.pluginClock) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let entry = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"]], token: token)
            #expect(try await api.send(.post, "/api/v1/vocabulary/entries/\(entry)/restore", token: token).status == 409, "not deleted")
            #expect(try await api.send(.delete, "/api/v1/vocabulary/entries/\(entry)", token: token).status == 204)
            #expect(try await api.search("pomme", token: token).isEmpty, "a deleted entry is not found")
            let restored = try await api.send(.post, "/api/v1/vocabulary/entries/\(entry)/restore", token: token)
            #expect(restored.status == 200 && restored["word"] == "pomme")
            // Versions never go back: 1 created, 2 deleted, 3 restored (a syncing client saw the delete at 2).
            #expect(restored.json["version"] as? Int == 3)
            #expect(try await api.search("pomme", token: token).count == 1)
            #expect(try await api.send(.delete, "/api/v1/vocabulary/entries/\(entry)", token: token).status == 204)
            clock.advance(by: 3.9)
            let within = try await api.send(.post, "/api/v1/vocabulary/entries/\(entry)/restore", token: token)
            #expect(within.status == 200, "still within the window")
            #expect(try await api.send(.delete, "/api/v1/vocabulary/entries/\(entry)", token: token).status == 204)
            clock.advance(by: 4.3)
            let late = try await api.send(.post, "/api/v1/vocabulary/entries/\(entry)/restore", token: token)
            #expect(late.status == 410)
            #expect(late.problemCode == "gone")
            #expect(try await api.send(.post, "/api/v1/vocabulary/entries/e_never/restore", token: token).status == 404)
        }
    }

    @Test("another user's collections, entries and tags answer 404 and never show in search")
    func isolation() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let collection = try await api.make("collections", ["name": "French"], token: ada)
            let tag = try await api.make("tags", ["name": "food"], token: ada)
            let entry = try await api.make("entries", ["collection": collection, "word": "pain", "definitions": ["bread"], "tags": [tag]], token: ada)
            for (method, path) in [
                (HTTPRequest.Method.get, "collections/\(collection)"), (.patch, "collections/\(collection)"), (.delete, "collections/\(collection)"),
                (.get, "collections/\(collection)/entries"), (.get, "entries/\(entry)"), (.patch, "entries/\(entry)"),
                (.delete, "entries/\(entry)"), (.post, "entries/\(entry)/restore"), (.patch, "tags/\(tag)"), (.delete, "tags/\(tag)"),
            ] {
                let body = path.hasPrefix("entries/") ? ["word": "x"] : ["name": "x"]  // a body the route takes: only the owner is wrong
                let reply = try await api.send(method, "/api/v1/vocabulary/\(path)", json: body, token: bob)
                #expect(reply.status == 404, "\(method) \(path): \(reply.status)")
            }
            let borrowed = try await api.send(.post, "/api/v1/vocabulary/entries",
                                              json: ["collection": collection, "word": "x", "definitions": ["y"]] as [String: any Sendable], token: bob)
            #expect(borrowed.status == 404, "adding to another user's collection")
            #expect(try await api.search("pain", token: bob).isEmpty)
            #expect(try await api.send(.get, "/api/v1/vocabulary/search?q=pain&collection=\(collection)", token: bob).status == 404)
            #expect(try await api.search("pain", token: ada).count == 1)
            #expect(try await api.send(.get, "/api/v1/vocabulary/search?q=pain").status == 401)
        }
    }

    @Test("search as you type: accents, ß, CJK substrings, ranking, highlights, collection and tag filters")
    func search() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let other = try await api.make("collections", ["name": "Other"], token: token)
            let food = try await api.make("tags", ["name": "food"], token: token)
            let fr = try await api.make("tags", ["name": "fr"], token: token)
            _ = try await api.make("entries", ["collection": french, "word": "crème brûlée", "definitions": ["custard dessert"], "tags": [food, fr]], token: token)
            _ = try await api.make("entries", ["collection": french, "word": "crevette", "definitions": ["shrimp"], "tags": [food]], token: token)
            _ = try await api.make("entries", ["collection": other, "word": "Straße", "definitions": ["street"]], token: token)
            _ = try await api.make("entries", ["collection": other, "word": "東京都", "definitions": ["Tokyo"]], token: token)
            _ = try await api.make("entries", ["collection": other, "word": "flan", "definitions": ["a crème dessert"]], token: token)
            let hits = try await api.search("creme", token: token)
            #expect(hits.compactMap { $0["word"] as? String } == ["crème brûlée", "flan"], "prefix of the word first, then the definition")
            #expect(hits.compactMap { $0["match"] as? String } == ["prefix", "definition"])
            #expect((hits.first?["highlights"] as? [String: [[Int]]])?["word"] == [[0, 5]])
            #expect((hits.last?["highlights"] as? [String: [[Int]]])?["definitions.0"] == [[2, 7]])
            #expect(try await api.search("strasse", token: token).first?["word"] as? String == "Straße")
            #expect(try await api.search("京都", token: token).first?["word"] as? String == "東京都")
            #expect(try await api.search("cr", token: token, extra: "&all=food,fr").compactMap { $0["word"] as? String } == ["crème brûlée"])
            #expect(try await api.search("cr", token: token, extra: "&none=fr").compactMap { $0["word"] as? String } == ["crevette", "flan"])
            #expect(try await api.search("cr", token: token, extra: "&any=\(fr)").count == 1, "tags by id too")
            #expect(try await api.search("cr", token: token, extra: "&collection=Other").compactMap { $0["word"] as? String } == ["flan"])
            #expect(try await api.send(.get, "/api/v1/vocabulary/search?q=cr&all=nosuchtag", token: token).status == 404)
            #expect(try await api.send(.get, "/api/v1/vocabulary/search?q=cr&limit=0", token: token).status == 400)
        }
    }

    @Test("CSV import keeps the good rows and reports the bad ones; export gives them back; wrong files are refused")
    func csv() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let csv = [
                "Word,Definition,Tags,Collection",
                "pain,\"bread\nloaf\",food fr,French",
                ",no word,,French",
                "Haus,house,de,German",
                "\"quote \"\"x\"\"\",has a quote,,",
                "nodefinition,,,French",
            ].joined(separator: "\r\n") + "\r\n"
            let job = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports?collection=Misc", bytes: Data(csv.utf8), contentType: "text/csv", token: token),
                token: token)
            #expect(job["state"] == "succeeded")
            #expect(job.json["imported"] as? Int == 3)
            #expect(job.json["errorCount"] as? Int == 2)
            let rows = (job.json["errors"] as? [[String: any Sendable]] ?? []).compactMap { $0["row"] as? Int }
            #expect(rows == [3, 6])
            let exported = try await api.send(.get, "/api/v1/vocabulary/export?format=csv", token: token)
            #expect(exported.status == 200)
            #expect(exported.text.contains(",pain,\"bread\nloaf\",,,,food fr,French,,\r\n"))
            #expect(exported.text.contains(",\"quote \"\"x\"\"\",has a quote,,,,,Misc,,\r\n"))
            #expect(exported.text.contains(",Haus,house,,,,de,German,,\r\n"))

            let zipAsCSV = try await api.upload(.post, "/api/v1/vocabulary/imports?format=csv", bytes: Data([0x50, 0x4B, 0x03, 0x04, 0, 0]),
                                                token: token)
            #expect(zipAsCSV.status == 415)
            #expect(zipAsCSV["detail"]?.contains("apkg") == true)
            let textAsAnki = try await api.upload(.post, "/api/v1/vocabulary/imports?format=apkg", bytes: Data(csv.utf8), token: token)
            #expect(textAsAnki.status == 415)
            #expect(textAsAnki["detail"]?.contains("not an Anki package") == true)
            let noFormat = try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: Data(csv.utf8), token: token)
            #expect(noFormat.status == 400)
            let count = try await api.send(.get, "/api/v1/vocabulary/export?format=csv", token: token).text.split(separator: "\r\n").count
            #expect(count == 4, "header and the 3 rows: nothing more from the refused files")
        }
    }

    @Test("Anki: an export imports back with the same words, definitions, tags and decks")
    func ankiRoundTrip() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let food = try await api.make("tags", ["name": "food"], token: token)
            _ = try await api.make("entries", ["collection": french, "word": "pain & <beurre>", "definitions": ["bread", "and butter"], "tags": [food]],
                                   token: token)
            let package = try await api.send(.get, "/api/v1/vocabulary/export?format=apkg", token: token)
            #expect(package.status == 200)
            #expect(package.body.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04]))
            let (bob, _) = try await api.signUp("bob")
            let job = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package.body, contentType: "application/zip", token: bob), token: bob)
            #expect(job["state"] == "succeeded" && job.json["imported"] as? Int == 1)
            let hit = try #require(try await api.search("pain", token: bob).first)
            #expect(hit["word"] as? String == "pain & <beurre>")
            #expect(hit["definitions"] as? [String] == ["bread", "and butter"])
            let tags = try await api.send(.get, "/api/v1/vocabulary/tags", token: bob).list("items").compactMap { $0["name"] as? String }
            #expect(tags == ["food"])
            let decks = try await api.send(.get, "/api/v1/vocabulary/collections", token: bob).list("items").compactMap { $0["name"] as? String }
            #expect(decks == ["French"])
        }
    }

    @Test("Anki: importing our own export again updates each word (matched by the note's guid, the entry's id), it adds no copy")
    func ankiReimportUpdates() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let pain = try await api.make("entries", ["collection": french, "word": "pain", "definitions": ["bread"], "example": "du pain"], token: token)
            let beurre = try await api.make("entries", ["collection": french, "word": "beurre", "definitions": ["butter"]], token: token)
            #expect(try await api.send(.post, "/api/v1/vocabulary/entries/\(pain)/relations", json: ["kind": "related", "entry": beurre],
                                       token: token).status == 200)
            let package = try await api.send(.get, "/api/v1/vocabulary/export?format=apkg", token: token).body
            // Edited here after the export: the file's version comes back, as Anki's import would bring it.
            #expect(try await api.send(.patch, "/api/v1/vocabulary/entries/\(pain)", json: ["example": "changed"], token: token).status == 200)
            let job = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package, contentType: "application/zip", token: token), token: token)
            #expect(job["state"] == "succeeded" && job.json["imported"] as? Int == 0 && job.json["updated"] as? Int == 2, "\(job.text)")
            let listed = try await api.send(.get, "/api/v1/vocabulary/search?limit=100", token: token).items
            #expect(listed.compactMap { $0["id"] as? String }.sorted() == [beurre, pain].sorted(), "the same two entries, no copies")
            let entry = try await api.send(.get, "/api/v1/vocabulary/entries/\(pain)", token: token)
            #expect(entry["example"] == "du pain")
            #expect((entry.json["relations"] as? [[String: String]])?.count == 1, "\(entry.text)")
            // Into another account, or into another collection of this one, the same file adds words.
            let (bob, _) = try await api.signUp("bob")
            let bobs = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package, contentType: "application/zip", token: bob), token: bob)
            #expect(bobs.json["imported"] as? Int == 2 && bobs.json["updated"] as? Int == 0)
            #expect(try await api.send(.patch, "/api/v1/vocabulary/collections/\(french)", json: ["name": "Français"], token: token).status == 200)
            let again = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package, contentType: "application/zip", token: token), token: token)
            #expect(again.json["imported"] as? Int == 2 && again.json["updated"] as? Int == 0, "\(again.text)")
        }
    }

    @Test("an import file and an export travel as blob parts: each message small enough for NATS, the parts let go of once read")
    func importAndExportInParts() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, host in
            let (_, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            let filler = String(repeating: "lorem ipsum ", count: 125)
            let rows = (0..<3000).map { "word\($0),definition \($0) \(filler),tag\($0 % 7),Big" }
            let csv = Data(("word,definition,tags,collection\n" + rows.joined(separator: "\n")).utf8)
            let blobs = BusBlobStore(bus: host.bus)
            let file = try await BlobParts.put(csv, in: blobs)
            #expect(file.size == csv.count)
            #expect(file.parts.count == (csv.count + BlobParts.partSize - 1) / BlobParts.partSize && file.parts[0].size == BlobParts.partSize,
                    "4.6 MB: full parts and the rest")
            #expect(file.parts.count > 2)

            // The request as NATS would carry it: a few hundred bytes, whatever the file's size.
            let wire = try JSONEncoder().encode(StartImport(owner: owner, format: .csv, file: file, collection: nil))
            #expect(wire.count < 4096)
            var job = try await host.bus.request(try JSONDecoder().decode(StartImport.self, from: wire), timeout: .seconds(30))
            for part in file.parts { #expect(try await blobs.stat(part.sha256) == nil, "copied out, then released") }
            while job.state == .running {
                try await Task.sleep(for: .milliseconds(50))
                job = try await host.bus.request(GetImportJob(owner: owner, id: job.id), timeout: .seconds(10))
            }
            #expect(job.state == .succeeded && job.imported == 3000)

            let export = try await host.bus.request(ExportVocabulary(owner: owner, format: .csv, collection: "Big"), timeout: .seconds(60))
            #expect(export.entries == 3000 && export.file.parts.count > 2)
            #expect(try JSONEncoder().encode(export).count < 4096)
            var text = Data()
            try await export.file.forEach(from: blobs) { text.append($0) }
            let lines = String(decoding: text, as: UTF8.self).split(separator: "\r\n")
            #expect(lines.count == 3001 && lines.contains { $0.contains(",word2999,definition 2999 lorem") })
            await export.file.release(on: host.bus)
            for part in export.file.parts { #expect(try await blobs.stat(part.sha256) == nil) }

            // Parts that are gone: the job says so and starts nothing.
            let gone = BlobParts(parts: [BlobRef.of(Data("never stored".utf8))])
            let error = await #expect(throws: BusError.self) {
                try await host.bus.request(StartImport(owner: owner, format: .csv, file: gone, collection: nil), timeout: .seconds(10))
            }
            #expect(error?.code == .invalid && error?.message.contains("no longer stored") == true)
        }
    }
}
