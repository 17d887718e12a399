import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

@Suite("Foreign Note: misspelt members")
struct VocabularyStrictnessTests {
    @Test("an entry created or edited with a misspelt member is refused with 400 naming it; the version stays")
    func misspeltEntryMembers() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("eve")
            let collection = try await api.make("collections", ["name": "French"], token: token)
            let created = try await api.send(.post, "/api/v1/vocabulary/entries",
                                             json: ["collection": collection, "word": "pain", "definitions": ["bread"], "defintions": ["x"]] as [String: any Sendable],
                                             token: token)
            #expect(created.status == 400)
            #expect(created["field"] == "defintions")

            let entry = try await api.make("entries", ["collection": collection, "word": "chat", "definitions": ["cat"]], token: token)
            let before = try await api.send(.get, "/api/v1/vocabulary/entries/\(entry)", token: token)
            let edited = try await api.send(.patch, "/api/v1/vocabulary/entries/\(entry)", json: ["wrod": "chien"], token: token)
            #expect(edited.status == 400)
            #expect(edited["field"] == "wrod")
            let after = try await api.send(.get, "/api/v1/vocabulary/entries/\(entry)", token: token)
            #expect(after.json["version"] as? Int == before.json["version"] as? Int)
            #expect(after["word"] == "chat")
        }
    }

    @Test("a missing tag's message names the route that exists")
    func missingTagNamesTheRealRoute() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("fay")
            let collection = try await api.make("collections", ["name": "German"], token: token)
            let reply = try await api.send(.post, "/api/v1/vocabulary/entries",
                                           json: ["collection": collection, "word": "Haus", "definitions": ["house"], "tags": ["t_nope"]] as [String: any Sendable],
                                           token: token)
            #expect(reply.status == 422)
            #expect(reply["detail"]?.contains("POST /api/v1/vocabulary/tags") == true, "\(reply.text)")
        }
    }
}
