import AppHostTestKit
import Foundation
import HTTPTypes
import StorageAPI
import Testing

/// The sync plugin's pull, over HTTP, on Napkin Notes' plugins (the live connection is exercised
/// by tools/acceptance/sync.py against the real server).
@Suite("Sync: the change feed")
struct SyncFeedTests {
    static let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  sync: {}\n")

    @Test("a pull returns the user's records as GET shows them, then only what changed, deletes as tombstones")
    func pull() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let first = try #require(try await api.createNote(["title": "one"], token: token)["id"])
            let second = try #require(try await api.createNote(["title": "two"], token: token)["id"])
            _ = try await api.send(.patch, "/api/v1/notes/\(first)", json: ["title": "one, edited"], token: token)
            let page = try await api.send(.get, "/api/v1/sync/changes", token: token)
            #expect(page.status == 200)
            #expect(page.items.map { $0["id"] as? String } == [second, first], "each record once, in the order of its latest change")
            let record = try #require(page.items.last?["record"] as? [String: any Sendable])
            let shown = try await api.send(.get, "/api/v1/notes/\(first)", token: token).json
            #expect(record["title"] as? String == "one, edited")
            #expect(record["version"] as? Int == shown["version"] as? Int)
            #expect(page.items.last?["kind"] as? String == "notes.note")
            let cursor = try #require(page["nextCursor"])
            #expect(page.json["hasMore"] as? Bool == false)

            #expect(try await api.send(.delete, "/api/v1/notes/\(second)", token: token).status == 204)
            let next = try await api.send(.get, "/api/v1/sync/changes?after=\(cursor)", token: token)
            #expect(next.items.count == 1)
            #expect(next.items.first?["id"] as? String == second)
            #expect(next.items.first?["deleted"] as? Bool == true)
            #expect(next.items.first?["record"] == nil)
            let idle = try await api.send(.get, "/api/v1/sync/changes?after=\(try #require(next["nextCursor"]))", token: token)
            #expect(idle.items.isEmpty)
            #expect(idle["nextCursor"] == next["nextCursor"], "an empty pull keeps the cursor")
        }
    }

    @Test("pages follow limit; another user's changes never appear; a foreign cursor is 400")
    func pagingAndIsolation() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            for index in 0..<5 { _ = try await api.createNote(["title": "n\(index)"], token: ada) }
            var seen: [String] = []
            var cursor = ""
            repeat {
                let page = try await api.send(.get, "/api/v1/sync/changes?limit=2" + (cursor.isEmpty ? "" : "&after=\(cursor)"), token: ada)
                #expect(page.items.count <= 2)
                seen += page.items.compactMap { $0["id"] as? String }
                cursor = try #require(page["nextCursor"])
                if page.json["hasMore"] as? Bool != true { break }
            } while true
            #expect(seen.count == 5)
            // A page larger than a storage 'in' list (100) is read in chunks.
            for index in 0..<150 { _ = try await api.createNote(["title": "m\(index)"], token: ada) }
            let big = try await api.send(.get, "/api/v1/sync/changes?limit=1000", token: ada)
            #expect(big.status == 200)
            #expect(big.items.count == 155)
            #expect(try await api.send(.get, "/api/v1/sync/changes", token: bob).items.isEmpty)
            let bad = try await api.send(.get, "/api/v1/sync/changes?after=not-a-cursor", token: ada)
            #expect(bad.status == 400)
            #expect(bad["field"] == "after")
            #expect(try await api.send(.get, "/api/v1/sync/changes").status == 401)
            #expect(try await api.send(.get, "/api/v1/sync/live", token: ada).status == 426)
        }
    }
}

@Suite("Field merge")
struct FieldMergeTests {
    @Test("fields changed on one side are taken; the same field on both keeps the edit and reports the value it replaced")
    func merge() {
        let base: JSONValue = .object(["title": .string("a"), "text": .string("x"), "date": .string("d")])
        let edited: JSONValue = .object(["title": .string("a"), "text": .string("mine"), "date": .string("d")])
        let untouched: JSONValue = .object(["title": .string("theirs"), "text": .string("x"), "date": .string("d")])
        let clash: JSONValue = .object(["title": .string("a"), "text": .string("theirs"), "date": .string("d2")])
        let merged = FieldMerge.merge(base: base, edited: edited, current: untouched)
        #expect(merged.merged == .object(["title": .string("theirs"), "text": .string("mine"), "date": .string("d")]))
        #expect(merged.replaced.isEmpty)
        let clashed = FieldMerge.merge(base: base, edited: edited, current: clash)
        #expect(clashed.merged == .object(["title": .string("a"), "text": .string("mine"), "date": .string("d2")]))
        #expect(clashed.replaced == ["text": .string("theirs")])
        let same = FieldMerge.merge(base: base, edited: edited, current: edited)
        #expect(same.replaced.isEmpty, "both sides made the same change: nothing replaced")
    }
}
