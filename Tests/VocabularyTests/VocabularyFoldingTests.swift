import AppHostTestKit
import Foundation
import HTTPTypes
import StorageAPI
import Testing

/// The web client folds, sorts and highlights offline (`Plugins/Web/Client/vocab.js`); it must do
/// it as the server does. `Tests/WebClient/fold-cases.json` holds the cases, and the node tests
/// hold vocab.js to the same file: here the server answers them.
@Suite("Foreign Note: one folding and sort rule for the server and the web client")
struct VocabularyFoldingTests {
    struct Cases: Decodable {
        var fold: [[String]]
        var order: [String]
        var highlights: [Highlight]

        struct Highlight: Decodable {
            var text: String
            var query: String
            var ranges: [[Int]]
            init(from decoder: any Decoder) throws {
                var items = try decoder.unkeyedContainer()
                text = try items.decode(String.self)
                query = try items.decode(String.self)
                ranges = try items.decode([[Int]].self)
            }
        }
    }

    static func cases() throws -> Cases {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WebClient/fold-cases.json")
        return try JSONDecoder().decode(Cases.self, from: Data(contentsOf: file))
    }

    @Test("SearchText.fold gives what the web client's fold gives (emoji, symbols, accents, case, ligatures, full width, Han)")
    func folding() throws {
        for pair in try Self.cases().fold {
            #expect(pair.count == 2 && SearchText.fold(pair[0]) == pair[1], "\(pair)")
        }
    }

    @Test("highlights: the same UTF-16 ranges as the web client's")
    func highlights() throws {
        for item in try Self.cases().highlights {
            #expect(SearchText.highlights(item.text, SearchText.terms(item.query)) == item.ranges, "\(item.text) / \(item.query)")
        }
    }

    @Test("a collection browsed lists its words in the order the web client sorts them offline")
    func order() async throws {
        let order = try Self.cases().order
        try await TestApp.run(yaml: vocabularyYAML) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let words = try await api.make("collections", ["name": "Words"], token: token)
            for word in order.reversed() {
                _ = try await api.make("entries", ["collection": words, "word": word, "definitions": ["x"]], token: token)
            }
            let listed = try await api.send(.get, "/api/v1/vocabulary/search?collection=Words&limit=100", token: token)
            #expect(listed.list("items").compactMap { $0["word"] as? String } == order)
            let page = try await api.send(.get, "/api/v1/vocabulary/collections/\(words)/entries?limit=100", token: token)
            #expect(page.status == 200)
            #expect(page.list("items").compactMap { $0["word"] as? String } == order)
        }
    }
}
