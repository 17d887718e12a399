import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// Card kinds: per collection (forward only by default), each kind its own card; `review_card_kinds:
/// false` turns them off for the server.
@Suite("Foreign Note: card kinds")
struct VocabularyCardKindsTests {
    func kinds(_ api: APIClient, _ token: String) async throws -> [String] {
        try await api.send(.get, "/api/v1/vocabulary/review/next?limit=50", token: token).items.compactMap { $0["kind"] as? String }
    }

    @Test("forward by default; reverse and cloze once the collection turns them on, one card of a word at a time, each its own card")
    func perCollection() async throws {
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: "  vocabulary: {}\n  sync: {}\n")) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let pomme = try await api.make("entries", ["collection": french, "word": "Pomme", "definitions": ["apple"], "example": "Une pomme rouge."],
                                           token: token)
            #expect(try await kinds(api, token) == ["forward"])
            let on = try await api.send(.put, "/api/v1/vocabulary/collections/\(french)/cards", json: ["cardKinds": ["reverse", "cloze", "forward"]],
                                        token: token)
            #expect(on.status == 200 && on.json["cardKinds"] as? [String] == ["forward", "reverse", "cloze"])
            var seen: [String] = []
            for _ in 0..<4 {
                let items = try await api.send(.get, "/api/v1/vocabulary/review/next?limit=50", token: token).items
                #expect(items.count <= 1, "one card of a word per session")
                guard let item = items.first, let kind = item["kind"] as? String else { break }
                seen.append(kind)
                if kind == "cloze" {
                    let cloze = item["cloze"] as? [String: any Sendable]
                    #expect(cloze?["question"] as? String == "Une _____ rouge." && cloze?["answer"] as? String == "pomme", "the word found ignoring case")
                }
                let rated = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": pomme, "rating": "easy", "kind": kind], token: token)
                #expect(rated.status == 201)
            }
            #expect(seen == ["forward", "reverse", "cloze"])
            let bad = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": pomme, "rating": "easy", "kind": "sideways"], token: token)
            #expect(bad.status == 422 && bad["field"] == "kind")
        }
    }

    @Test("review_card_kinds: false: the route says card kinds are off, and only word → definition is offered")
    func off() async throws {
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: "  vocabulary: { review_card_kinds: false }\n  sync: {}\n")) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            _ = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"], "example": "Une pomme."], token: token)
            let put = try await api.send(.put, "/api/v1/vocabulary/collections/\(french)/cards", json: ["cardKinds": ["forward", "reverse"]], token: token)
            #expect(put.status == 404 && put.text.contains("review_card_kinds"))
            #expect(try await kinds(api, token) == ["forward"])
        }
    }
}
