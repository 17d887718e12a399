import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// Foreign Note's records in sync's feed, and an entry edited on two devices.
@Suite("Foreign Note: sync")
struct VocabularySyncTests {
    static let yaml = TestApp.yaml(extraPlugins: "  vocabulary: { undo_seconds: 1 }\n  sync: {}\n")

    @Test("collections, tags and entries come as their GET routes show them; a deleted entry as a tombstone")
    func feed() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let food = try await api.make("tags", ["name": "food"], token: token)
            let entry = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"], "tags": [food]], token: token)
            let page = try await api.send(.get, "/api/v1/sync/changes", token: token)
            #expect(page.items.map { $0["kind"] as? String } == ["vocabulary.collection", "vocabulary.tag", "vocabulary.entry"])
            let shown = try await api.send(.get, "/api/v1/vocabulary/entries/\(entry)", token: token).json
            let record = try #require(page.items.last?["record"] as? [String: any Sendable])
            #expect(record["word"] as? String == "pomme")
            #expect(record["tags"] as? [String] == [food])
            #expect(record["version"] as? Int == shown["version"] as? Int)
            #expect(record["sortKey"] == nil, "internal fields stay internal")
            #expect(try await api.send(.delete, "/api/v1/vocabulary/entries/\(entry)", token: token).status == 204)
            let next = try await api.send(.get, "/api/v1/sync/changes?after=\(try #require(page["nextCursor"]))", token: token)
            #expect(next.items.map { $0["deleted"] as? Bool } == [true])
        }
    }

    @Test("an entry edited offline on an older version merges; the same field reports what it replaced")
    func merge() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let entry = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"]], token: token)
            let path = "/api/v1/vocabulary/entries/\(entry)"
            #expect(try await api.send(.patch, path, json: ["note": "fruit"], token: token, headers: [.ifMatch: "\"1\""]).status == 200)
            let merged = try await api.send(.patch, path, json: ["definitions": ["apple", "pome"]], token: token, headers: [.ifMatch: "\"1\""])
            #expect(merged.status == 200)
            #expect(merged["note"] == "fruit")
            #expect(merged.json["definitions"] as? [String] == ["apple", "pome"])
            #expect(merged.json["replaced"] == nil)
            let clash = try await api.send(.patch, path, json: ["note": "a fruit"], token: token, headers: [.ifMatch: "\"1\""])
            #expect((clash.json["replaced"] as? [String: any Sendable])?["note"] as? String == "fruit")
            #expect(try await api.send(.patch, path, json: ["note": "x"], token: token, headers: [.ifMatch: "\"40\""]).status == 412)
        }
    }

    @Test("an edit sent again with its Idempotency-Key (the outbox after a reload) is answered with the entry as it is, not made over a later edit")
    func editSentAgain() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let entry = try await api.make("entries", ["collection": french, "word": "rue", "definitions": ["street"]], token: token)
            let path = "/api/v1/vocabulary/entries/\(entry)"
            let key = HTTPField.Name("Idempotency-Key")!
            #expect(try await api.send(.patch, path, json: ["definitions": ["road (A)"]], token: token, headers: [.ifMatch: "\"1\"", key: "word-a"]).status == 200)
            let b = try await api.send(.patch, path, json: ["definitions": ["lane (B)"]], token: token, headers: [.ifMatch: "\"1\"", key: "word-b"])
            #expect((b.json["replaced"] as? [String: any Sendable])?["definitions"] as? [String] == ["road (A)"])
            let again = try await api.send(.patch, path, json: ["definitions": ["road (A)"]], token: token, headers: [.ifMatch: "\"1\"", key: "word-a"])
            #expect(again.status == 200)
            #expect(again.json["definitions"] as? [String] == ["lane (B)"], "A's edit is not made a second time over B's")
            #expect(again.json["replaced"] == nil)
            #expect(try await api.send(.get, path, token: token).json["definitions"] as? [String] == ["lane (B)"])
        }
    }
}
