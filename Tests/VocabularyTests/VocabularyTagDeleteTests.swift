import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// A tag deleted while a deleted collection's words that carry it are purged in the background
/// (web_foreign_note.py deletes a collection, then its tags, at once): the tag is deleted all the
/// same. The tag's delete took its words out of the tag 500 at a time, each write expecting the word
/// as it had read it; a word the purge deleted in between failed that write, and the DELETE
/// answered 404 "No record", leaving the tag on the account (a "red" the walk found later).
@Suite("Foreign Note: deleting a tag")
struct VocabularyTagDeleteTests {
    @Test("a tag deleted while its words' deleted collection is purged is deleted (not 404), and no word keeps it")
    func deleteTagDuringPurge() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            for round in 0..<5 {
                let name = "Fruit\(round)", tagName = "red\(round)"
                _ = try await api.make("collections", ["name": name], token: token)
                let csv = "word,definition,tags\n" + (0..<1500).map { "w\($0),meaning \($0),\(tagName)" }.joined(separator: "\n")
                let started = try await api.upload(.post, "/api/v1/vocabulary/imports?format=csv&collection=\(name)", bytes: Data(csv.utf8),
                                                   token: token)
                #expect(try await api.finishedImport(started, token: token)["state"] == "succeeded")
                let tags = try await api.send(.get, "/api/v1/vocabulary/tags", token: token).list("items")
                let tag = try #require(tags.first { $0["name"] as? String == tagName }?["id"] as? String)
                let collection = try #require(try await api.send(.get, "/api/v1/vocabulary/collections", token: token).list("items")
                    .first { $0["name"] as? String == name }?["id"] as? String)
                #expect(try await api.send(.delete, "/api/v1/vocabulary/collections/\(collection)", token: token).status == 204)
                // At once, while the purge deletes the words in the background.
                let deleted = try await api.send(.delete, "/api/v1/vocabulary/tags/\(tag)", token: token)
                #expect(deleted.status == 204, "round \(round): \(deleted.status) \(deleted.text)")
                let left = try await api.send(.get, "/api/v1/vocabulary/tags", token: token).list("items").compactMap { $0["name"] as? String }
                #expect(!left.contains(tagName), "round \(round): \(left)")
            }
        }
    }
}
