import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// An `.apkg` round trip keeps every card kind's place in the schedule: word → definition,
/// definition → word and cloze each come back with their own state, due time, memory, reps and
/// lapses, and the collection the import makes has the same kinds on.
@Suite("Foreign Note: card kinds through .apkg")
struct VocabularyCardKindsRoundTripTests {
    static let yaml = TestApp.yaml(extraPlugins: "  vocabulary: { review_fuzz: false }\n  sync: {}\n")

    func signIn(_ api: APIClient, _ username: String) async throws -> String {
        let login = try await api.send(.post, "/api/v1/auth/login", json: ["username": username, "password": "a good password"])
        guard login.status == 200, let token = login["access_token"] else { throw TestAppFailure("login \(username): \(login.status)") }
        return token
    }

    /// A user's cards by (word, kind), and their collections' card kinds by name, as sync's feed shows them.
    func feed(_ api: APIClient, _ token: String) async throws -> (cards: [String: [String: any Sendable]], kinds: [String: [String]]) {
        let items = try await api.send(.get, "/api/v1/sync/changes?limit=500", token: token).items
        var words: [String: String] = [:]
        var kinds: [String: [String]] = [:]
        for item in items {
            guard let record = item["record"] as? [String: any Sendable] else { continue }
            if item["kind"] as? String == "vocabulary.entry", let id = record["id"] as? String { words[id] = record["word"] as? String }
            if item["kind"] as? String == "vocabulary.collection", let name = record["name"] as? String {
                kinds[name] = record["cardKinds"] as? [String] ?? ["forward"]
            }
        }
        var cards: [String: [String: any Sendable]] = [:]
        for item in items where item["kind"] as? String == "vocabulary.card" {
            if let record = item["record"] as? [String: any Sendable], let entry = record["entry"] as? String, let word = words[entry] {
                cards["\(word) \(record["kind"] as? String ?? "forward")"] = record
            }
        }
        return (cards, kinds)
    }

    static func date(_ value: Any?) -> Date? {
        (value as? String).flatMap { try? Date($0, strategy: .iso8601) }
    }

    @Test("export then import: every kind's card has the same state, due day, stability, difficulty, reps and lapses")
    func roundTrip() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, _ in
            var (ada, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: ada)
            let on = try await api.send(.put, "/api/v1/vocabulary/collections/\(french)/cards", json: ["cardKinds": ["forward", "reverse", "cloze"]],
                                        token: ada)
            #expect(on.status == 200)
            let pomme = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"], "example": "Je mange une pomme."],
                                           token: ada)
            let chat = try await api.make("entries", ["collection": french, "word": "chat", "definitions": ["cat"],
                                                      "example": "Le {{c1::chat}} dort."], token: ada)
            _ = try await api.make("entries", ["collection": french, "word": "pain", "definitions": ["bread"]], token: ada)
            func rate(_ entry: String, _ kind: String, _ rating: String) async throws {
                let reply = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": entry, "rating": rating, "kind": kind], token: ada)
                #expect(reply.status == 201, "\(kind) \(rating): \(reply.text)")
            }
            try await rate(pomme, "forward", "easy")
            try await rate(pomme, "reverse", "easy")
            try await rate(pomme, "cloze", "good")
            try await rate(chat, "reverse", "easy")
            try await rate(chat, "cloze", "easy")
            clock.advance(by: 9 * 86_400)
            ada = try await signIn(api, "ada")
            try await rate(pomme, "reverse", "good")
            try await rate(chat, "cloze", "again")
            try await rate(chat, "reverse", "hard")
            let mine = try await feed(api, ada)
            #expect(mine.cards.count == 5)

            let package = try await api.send(.get, "/api/v1/vocabulary/export?format=apkg", token: ada)
            #expect(package.status == 200)
            let (bob, _) = try await api.signUp("bob")
            let job = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package.body, contentType: "application/zip", token: bob), token: bob)
            #expect(job["state"] == "succeeded" && job.json["imported"] as? Int == 3, "cards are not counted as entries")
            let theirs = try await feed(api, bob)
            #expect(theirs.kinds["French"] == ["forward", "reverse", "cloze"], "the collection the import makes has the kinds on")
            #expect(Set(theirs.cards.keys) == Set(mine.cards.keys), "every card reviewed comes back, of its kind")
            for (key, a) in mine.cards {
                guard let b = theirs.cards[key] else { continue }
                #expect(a["state"] as? String == b["state"] as? String, "\(key) state")
                #expect(a["reps"] as? Int == b["reps"] as? Int && a["lapses"] as? Int == b["lapses"] as? Int, "\(key) reps and lapses")
                #expect(abs((a["stability"] as? Double ?? 0) - (b["stability"] as? Double ?? -1)) < 1e-9, "\(key) stability")
                #expect(abs((a["difficulty"] as? Double ?? 0) - (b["difficulty"] as? Double ?? -1)) < 1e-9, "\(key) difficulty")
                let (due, dueThere) = (try #require(Self.date(a["due"])), try #require(Self.date(b["due"])))
                if a["state"] as? String == "review" {
                    #expect(dueThere <= due && due.timeIntervalSince(dueThere) < 86_400, "\(key): due the same day (Anki counts days)")
                } else {
                    #expect(dueThere == due, "\(key): due at the same time")
                }
            }
        }
    }
}
