import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// Review with FSRS-6 over HTTP, on a clock the test moves: what is due, ratings, a review sent
/// twice, backdated reviews, settings, statistics and the sync feed.
@Suite("Foreign Note: review")
struct VocabularyReviewTests {
    static let yaml = TestApp.yaml(extraPlugins: "  vocabulary: { review_fuzz: false }\n  sync: {}\n")

    func next(_ api: APIClient, _ token: String, _ extra: String = "") async throws -> [[String: any Sendable]] {
        let reply = try await api.send(.get, "/api/v1/vocabulary/review/next\(extra)", token: token)
        guard reply.status == 200 else { throw TestAppFailure("review/next: \(reply.status) \(reply.text)") }
        return reply.items
    }

    /// Signs in again: every plugin reads the test's clock, so days after, the access token has expired.
    func signIn(_ api: APIClient, _ username: String) async throws -> String {
        let login = try await api.send(.post, "/api/v1/auth/login", json: ["username": username, "password": "a good password"])
        guard login.status == 200, let token = login["access_token"] else { throw TestAppFailure("login \(username): \(login.status)") }
        return token
    }

    func entryIDs(_ items: [[String: any Sendable]]) -> [String] {
        items.compactMap { ($0["entry"] as? [String: any Sendable])?["id"] as? String }
    }

    @Test("new entries come with each rating's interval; a rating moves the card; due cards come back when the clock reaches them")
    func reviewing() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            let pomme = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"]], token: token)
            let pain = try await api.make("entries", ["collection": french, "word": "pain", "definitions": ["bread"]], token: token)

            let fresh = try await next(api, token)
            #expect(Set(entryIDs(fresh)) == [pomme, pain])
            let first = try #require(fresh.first)
            #expect((first["card"] as? [String: any Sendable])?["state"] as? String == "new")
            let intervals = try #require(first["intervals"] as? [String: Int])
            #expect(intervals == ["again": 60, "hard": 330, "good": 600, "easy": 8 * 86_400])

            let good = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": pomme, "rating": "good", "id": "r_one"], token: token)
            #expect(good.status == 201)
            let card = try #require(good.json["card"] as? [String: any Sendable])
            #expect(card["state"] as? String == "learning" && card["step"] as? Int == 1 && card["reps"] as? Int == 1)
            // The same review again (a retrying outbox): applied once.
            let again = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": pomme, "rating": "good", "id": "r_one"], token: token)
            #expect(again.status == 200 && again.json["replayed"] as? Bool == true)
            #expect((again.json["card"] as? [String: any Sendable])?["reps"] as? Int == 1)

            #expect(entryIDs(try await next(api, token)) == [pain], "pomme is due in 10 minutes")
            clock.advance(by: 601)
            #expect(entryIDs(try await next(api, token)).first == pomme, "due cards before new ones")
            let graduated = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": pomme, "rating": "good"], token: token)
            let review = try #require(graduated.json["card"] as? [String: any Sendable])
            #expect(review["state"] as? String == "review")
            #expect(((graduated.json["review"] as? [String: any Sendable])?["scheduledDays"] as? Double ?? 0) >= 1)

            // Bad input says what to fix.
            let badRating = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": pain, "rating": "meh"], token: token)
            #expect(badRating.status == 422 && badRating.text.contains("again, hard, good or easy"))
            let future = try await api.send(.post, "/api/v1/vocabulary/review",
                                            json: ["entry": pain, "rating": "good", "reviewedAt": "2100-01-01T00:00:00Z"], token: token)
            #expect(future.status == 422 && future.text.contains("future"))
            let earlier = try await api.send(.post, "/api/v1/vocabulary/review", json: [
                "entry": pomme, "rating": "good", "reviewedAt": ISO8601DateFormatter().string(from: clock.now.addingTimeInterval(-300)),
            ], token: token)
            #expect(earlier.status == 201, "a review older than the card's last is kept: the card is replayed from its log")
            #expect((earlier.json["card"] as? [String: any Sendable])?["reps"] as? Int == 3)
            let (bob, _) = try await api.signUp("bob")
            #expect(try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": pomme, "rating": "good"], token: bob).status == 404)
            #expect(try await next(api, bob).isEmpty)
        }
    }

    @Test("settings: new cards per day, retention bounds; statistics count today's reviews and 30 days' retention")
    func settingsAndStats() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, _ in
            var (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            var entries: [String] = []
            for word in ["un", "deux", "trois"] {
                entries.append(try await api.make("entries", ["collection": french, "word": word, "definitions": ["n"]], token: token))
            }
            let settings = try await api.send(.get, "/api/v1/vocabulary/review/settings", token: token).json
            #expect(settings["desiredRetention"] as? Double == 0.9 && settings["newPerDay"] as? Int == 20 && settings["fuzz"] as? Bool == false)
            #expect(try await api.send(.patch, "/api/v1/vocabulary/review/settings", json: ["desiredRetention": 1.5], token: token).status == 422)
            // Left out keeps a setting; null is not a value the schema allows: 400 naming it, nothing changed.
            for field in ["newPerDay", "desiredRetention", "fuzz"] {
                let null = try await api.send(.patch, "/api/v1/vocabulary/review/settings", json: [field: NSNull()] as [String: any Sendable], token: token)
                #expect(null.status == 400 && null["field"] == field, "\(field): \(null.status) \(null.text)")
            }
            #expect(try await api.send(.get, "/api/v1/vocabulary/review/settings", token: token).json["newPerDay"] as? Int == 20)
            #expect(try await api.send(.patch, "/api/v1/vocabulary/review/settings", json: ["newPerDay": 2], token: token).status == 200)
            #expect(try await next(api, token).count == 2, "two new a day")

            for entry in entries.prefix(2) {
                _ = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": entry, "rating": "easy"], token: token)
            }
            #expect(try await next(api, token).isEmpty, "today's two new cards are taken")
            var stats = try await api.send(.get, "/api/v1/vocabulary/review/stats", token: token).json
            #expect(stats["reviewedToday"] as? Int == 2 && stats["dueToday"] as? Int == 0)
            #expect(stats["retention30Days"] == nil || stats["retention30Days"] is NSNull)

            clock.advance(by: 9 * 86_400)  // both easy cards are due (8 days), and a new day has begun
            token = try await signIn(api, "ada")
            let due = try await next(api, token)
            #expect(Set(entryIDs(due).prefix(2)) == Set(entries.prefix(2)) && due.count == 3, "two due, then a new one")
            _ = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": entries[0], "rating": "good"], token: token)
            let lapse = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": entries[1], "rating": "again"], token: token)
            let lapsed = try #require(lapse.json["card"] as? [String: any Sendable])
            #expect(lapsed["state"] as? String == "relearning" && lapsed["lapses"] as? Int == 1)
            stats = try await api.send(.get, "/api/v1/vocabulary/review/stats", token: token).json
            #expect(stats["reviewedToday"] as? Int == 2)
            #expect(stats["retention30Days"] as? Double == 0.5 && stats["reviewsCounted30Days"] as? Int == 2)
            #expect(stats["dueToday"] as? Int == 1, "the lapsed card is due again in 10 minutes")
            // Its word deleted, the lapsed card is due no more (its card stays for the undo window).
            #expect(try await api.send(.delete, "/api/v1/vocabulary/entries/\(entries[1])", token: token).status == 204)
            stats = try await api.send(.get, "/api/v1/vocabulary/review/stats", token: token).json
            #expect(stats["dueToday"] as? Int == 0, "a deleted word's card is not counted as due")

            // Cards and reviews reach the user's other devices through sync's feed.
            let kinds = try await api.send(.get, "/api/v1/sync/changes?limit=100", token: token).items.compactMap { $0["kind"] as? String }
            #expect(kinds.filter { $0 == "vocabulary.card" }.count == 2)
            #expect(kinds.filter { $0 == "vocabulary.review" }.count == 4)
        }
    }

    @Test(".apkg keeps the schedule: an export writes each card's state, due time and memory, an import reads them back")
    func ankiSchedule() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, _ in
            var (ada, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: ada)
            let learned = try await api.make("entries", ["collection": french, "word": "pomme", "definitions": ["apple"]], token: ada)
            let learning = try await api.make("entries", ["collection": french, "word": "poire", "definitions": ["pear"]], token: ada)
            _ = try await api.make("entries", ["collection": french, "word": "prune", "definitions": ["plum"]], token: ada)
            _ = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": learned, "rating": "easy"], token: ada)
            clock.advance(by: 9 * 86_400)
            ada = try await signIn(api, "ada")
            _ = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": learned, "rating": "good"], token: ada)
            _ = try await api.send(.post, "/api/v1/vocabulary/review", json: ["entry": learning, "rating": "good"], token: ada)
            let mine = try await cards(api, ada)

            let package = try await api.send(.get, "/api/v1/vocabulary/export?format=apkg", token: ada)
            #expect(package.status == 200)
            let (bob, _) = try await api.signUp("bob")
            let job = try await api.finishedImport(
                try await api.upload(.post, "/api/v1/vocabulary/imports", bytes: package.body, contentType: "application/zip", token: bob), token: bob)
            #expect(job["state"] == "succeeded" && job.json["imported"] as? Int == 3, "cards are not counted as entries")
            let theirs = try await cards(api, bob)
            #expect(Set(theirs.keys) == ["pomme", "poire"], "the word never reviewed stays new: no card")
            let (a, b) = (try #require(mine["pomme"]), try #require(theirs["pomme"]))
            #expect(b["state"] as? String == "review" && b["reps"] as? Int == 2)
            #expect(abs((a["stability"] as? Double ?? 0) - (b["stability"] as? Double ?? -1)) < 1e-9)
            #expect(abs((a["difficulty"] as? Double ?? 0) - (b["difficulty"] as? Double ?? -1)) < 1e-9)
            let (due, dueThere) = (try #require(Self.date(a["due"])), try #require(Self.date(b["due"])))
            #expect(dueThere <= due && due.timeIntervalSince(dueThere) < 86_400, "a review is due on the same day (Anki counts days)")
            let (learningHere, learningThere) = (try #require(mine["poire"]), try #require(theirs["poire"]))
            #expect(learningThere["state"] as? String == "learning" && Self.date(learningThere["due"]) == Self.date(learningHere["due"]))
            #expect(try await next(api, bob).count == 1, "nothing of bob's is due but the new word")
        }
    }

    static func date(_ value: Any?) -> Date? {
        (value as? String).flatMap { try? Date($0, strategy: .iso8601) }
    }

    /// A user's cards by their entry's word, as sync's feed shows them.
    func cards(_ api: APIClient, _ token: String) async throws -> [String: [String: any Sendable]] {
        let items = try await api.send(.get, "/api/v1/sync/changes?limit=100", token: token).items
        var words: [String: String] = [:]
        for item in items where item["kind"] as? String == "vocabulary.entry" {
            if let record = item["record"] as? [String: any Sendable], let id = record["id"] as? String { words[id] = record["word"] as? String }
        }
        var cards: [String: [String: any Sendable]] = [:]
        for item in items where item["kind"] as? String == "vocabulary.card" {
            if let record = item["record"] as? [String: any Sendable], let entry = record["entry"] as? String, let word = words[entry] {
                cards[word] = record
            }
        }
        return cards
    }
}
