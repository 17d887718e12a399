import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

@Suite("Foreign Note's first-use tips, kept per account")
struct VocabularyTipsTests {
    @Test("a tip viewed or dismissed is kept for the account (another account's list is its own); DELETE forgets them")
    func seenPerAccount() async throws {
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            func seen(_ token: String) async throws -> [String] {
                try await api.send(.get, "/api/v1/vocabulary/tips", token: token).json["seen"] as? [String] ?? ["(no seen list)"]
            }
            #expect(try await seen(ada) == [])
            #expect(try await api.send(.post, "/api/v1/vocabulary/tips/files/viewed", token: ada).status == 204)
            #expect(try await api.send(.post, "/api/v1/vocabulary/tips/files/dismissed", token: ada).status == 204)
            #expect(try await api.send(.post, "/api/v1/vocabulary/tips/search/viewed", token: ada).status == 204)
            #expect(try await seen(ada) == ["files", "search"])
            #expect(try await seen(bob) == [])
            #expect(try await api.send(.post, "/api/v1/vocabulary/tips/nope/viewed", token: ada).status == 404)
            #expect(try await seen(ada) == ["files", "search"])
            #expect(try await api.send(.delete, "/api/v1/vocabulary/tips", token: ada).status == 204)
            #expect(try await seen(ada) == [])
        }
    }
}
