import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// No review is lost: a review made offline on one phone that arrives after a later review from
/// another phone is kept, and the card is recomputed from its whole log in time order.
@Suite("Foreign Note: late reviews are kept")
struct VocabularyLateReviewTests {
    static let yaml = TestApp.yaml(extraPlugins: "  vocabulary: { review_fuzz: false }\n  sync: {}\n")

    func review(_ api: APIClient, _ token: String, _ entry: String, _ rating: String, _ id: String, _ at: Date,
                kind: String? = nil) async throws -> APIClient.Reply {
        var body: [String: any Sendable] = ["entry": entry, "rating": rating, "id": id, "reviewedAt": ISO8601DateFormatter().string(from: at)]
        if let kind { body["kind"] = kind }
        return try await api.send(.post, "/api/v1/vocabulary/review", json: body, token: token)
    }

    /// The records of one kind in sync's feed.
    func feed(_ api: APIClient, _ token: String, _ kind: String) async throws -> [[String: any Sendable]] {
        try await api.send(.get, "/api/v1/sync/changes?limit=500", token: token).items
            .filter { $0["kind"] as? String == kind }.compactMap { $0["record"] as? [String: any Sendable] }
    }

    static let compared = ["state", "step", "stability", "difficulty", "due", "lastReview", "reps", "lapses"]

    @Test("two phones' interleaved reviews arriving out of order give the card they give in order; none is refused or counted twice")
    func outOfOrder() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let inOrder = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"]], token: token)
            let late = try await api.make("entries", ["collection": french, "word": "poire", "definitions": ["pear"]], token: token)
            let start = clock.now
            // Phone A (offline) at 0 s, 11 min and 3 days; phone B (online) at 2 min, 2 days and 6 days.
            let reviews: [(phone: String, rating: String, at: TimeInterval)] = [
                ("A", "good", 0), ("B", "again", 120), ("A", "good", 660), ("B", "good", 2 * 86_400),
                ("A", "hard", 3 * 86_400), ("B", "good", 6 * 86_400),
            ]
            clock.advance(by: 7 * 86_400)
            let login = try await api.send(.post, "/api/v1/auth/login", json: ["username": "ada", "password": "a good password"])
            let token2 = try #require(login["access_token"], "signed in again: a week on, the first token has expired")
            for (index, item) in reviews.enumerated() {
                let reply = try await review(api, token2, inOrder, item.rating, "r_in_\(index)", start.addingTimeInterval(item.at))
                #expect(reply.status == 201, "in order \(index): \(reply.status) \(reply.text)")
            }
            // The same reviews of the other word: B's arrive first, then A's come back online.
            let arrival = reviews.enumerated().filter { $0.element.phone == "B" } + reviews.enumerated().filter { $0.element.phone == "A" }
            for (index, item) in arrival {
                let reply = try await review(api, token2, late, item.rating, "r_late_\(index)", start.addingTimeInterval(item.at))
                #expect(reply.status == 201, "late \(index): \(reply.status) \(reply.text)")
            }
            // A's outbox sends one again (it never heard the answer): applied once.
            let again = try await review(api, token2, late, "good", "r_late_2", start.addingTimeInterval(660))
            #expect(again.status == 200 && again.json["replayed"] as? Bool == true)

            let cards = try await feed(api, token2, "vocabulary.card")
            let a = try #require(cards.first { $0["entry"] as? String == inOrder })
            let b = try #require(cards.first { $0["entry"] as? String == late })
            for field in Self.compared {
                #expect(String(describing: a[field] ?? "nil") == String(describing: b[field] ?? "nil"), "\(field): \(a[field] ?? "nil") vs \(b[field] ?? "nil")")
            }
            #expect(b["reps"] as? Int == 6 && b["lapses"] as? Int == 0)
            let logs = try await feed(api, token2, "vocabulary.review")
            #expect(logs.filter { $0["entry"] as? String == late }.count == 6, "every review of both phones is in the log, once")
            // The log says what each review found, as in order: B's again at 2 min found a learning card.
            func stateBefore(_ id: String) -> String? { logs.first { $0["id"] as? String == id }?["stateBefore"] as? String }
            for index in reviews.indices {
                #expect(stateBefore("r_in_\(index)") == stateBefore("r_late_\(index)"), "review \(index)")
            }
        }
    }
}
