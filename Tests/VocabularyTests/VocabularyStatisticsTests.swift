import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// Foreign Note's statistics (heatmap, true retention, forecast) and "Fit my parameters" over HTTP,
/// on a clock the test moves.
@Suite("Foreign Note: statistics and fitted parameters")
struct VocabularyStatisticsTests {
    static let yaml = TestApp.yaml(extraPlugins: "  vocabulary: { review_fuzz: false, review_fit_min_reviews: 10, undo_seconds: 60 }\n  sync: {}\n")
    static let base = "/api/v1/vocabulary"

    func review(_ api: APIClient, _ token: String, _ entry: String, _ rating: String) async throws {
        let reply = try await api.send(.post, "\(Self.base)/review", json: ["entry": entry, "rating": rating], token: token)
        guard reply.status == 201 else { throw TestAppFailure("review: \(reply.status) \(reply.text)") }
    }

    func signIn(_ api: APIClient, _ username: String) async throws -> String {
        let login = try await api.send(.post, "/api/v1/auth/login", json: ["username": username, "password": "a good password"])
        guard login.status == 200, let token = login["access_token"] else { throw TestAppFailure("login \(username): \(login.status)") }
        return token
    }

    func counts(_ list: Any?) -> [Int] {
        (list as? [[String: any Sendable]] ?? []).map { $0["reviews"] as? Int ?? -1 }
    }

    @Test("statistics: reviews per day, true retention by day and interval, the 30-day forecast; only the user's own; signed in only")
    func statistics() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, _ in
            var (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            var entries: [String] = []
            for word in ["un", "deux", "trois"] {
                entries.append(try await api.make("entries", ["collection": french, "word": word, "definitions": ["n"]], token: token))
            }
            try await review(api, token, entries[0], "easy")
            try await review(api, token, entries[1], "easy")
            try await review(api, token, entries[2], "good")
            var stats = try await api.send(.get, "\(Self.base)/review/statistics", token: token).json
            #expect(counts(stats["heatmap"]) == [3] && stats["reviewsInYear"] as? Int == 3)
            let forecast = counts(stats["forecast"])
            #expect(forecast.count == 30 && forecast[0] == 1 && forecast[8] == 2 && forecast.reduce(0, +) == 3,
                    "the learning card today, the two easy ones in 8 days: \(forecast)")
            #expect((stats["retentionByDay"] as? [[String: any Sendable]])?.allSatisfy { $0["reviewed"] as? Int == 0 } == true,
                    "first reviews are not counted in true retention")

            clock.advance(by: 9 * 86_400)
            token = try await signIn(api, "ada")
            try await review(api, token, entries[0], "good")
            try await review(api, token, entries[1], "again")
            stats = try await api.send(.get, "\(Self.base)/review/statistics", token: token).json
            #expect(counts(stats["heatmap"]) == [3, 2])
            let days = try #require(stats["retentionByDay"] as? [[String: any Sendable]])
            #expect(days.count == 30 && days.last?["reviewed"] as? Int == 2 && days.last?["recalled"] as? Int == 1 && days.last?["label"] as? String == stats["today"] as? String)
            let intervals = try #require(stats["retentionByInterval"] as? [[String: any Sendable]])
            let bucket = intervals.first { $0["label"] as? String == "8–14 days" }
            #expect(bucket?["reviewed"] as? Int == 2 && bucket?["recalled"] as? Int == 1, "\(intervals)")
            #expect(counts(stats["forecast"])[0] == 2, "the overdue learning card and the lapsed one are due today")

            // A word deleted, and a collection deleted: their cards are not coming up, in the undo
            // window (kept for an Undo) nor after it (gone with the word).
            func upcoming() async throws -> [Int] { counts(try await api.send(.get, "\(Self.base)/review/statistics", token: token).json["forecast"]) }
            let before = try await upcoming()
            #expect(try await api.send(.delete, "\(Self.base)/entries/\(entries[2])", token: token).status == 204)
            let spanish = try await api.make("collections", ["name": "Spanish"], token: token)
            let uno = try await api.make("entries", ["collection": spanish, "word": "uno", "definitions": ["one"]], token: token)
            try await review(api, token, uno, "good")
            #expect(try await upcoming()[0] == before[0], "today: the lapsed card and uno's, not the deleted word's (\(before))")
            #expect(try await api.send(.delete, "\(Self.base)/collections/\(spanish)", token: token).status == 204)
            #expect(try await upcoming().reduce(0, +) == before.reduce(0, +) - 1, "neither the deleted word's card nor the deleted collection's")
            clock.advance(by: 120)  // past the undo window: the janitor empties the trash
            token = try await signIn(api, "ada")
            var cardsGone = 0
            for _ in 0..<100 where cardsGone < 2 {
                let feed = try await api.send(.get, "/api/v1/sync/changes?limit=500", token: token).items
                cardsGone = feed.filter { $0["kind"] as? String == "vocabulary.card" && $0["deleted"] as? Bool == true }.count
                if cardsGone < 2 { try await Task.sleep(for: .milliseconds(200)) }
            }
            let feed = try await api.send(.get, "/api/v1/sync/changes?limit=500", token: token).items
            #expect(cardsGone == 2, "the deleted word's card and the deleted collection's are deleted for good: \(feed.map { "\($0["kind"] ?? "") \($0["deleted"] ?? "")" })")
            #expect(try await upcoming().reduce(0, +) == before.reduce(0, +) - 1)

            let (bob, _) = try await api.signUp("bob")
            let theirs = try await api.send(.get, "\(Self.base)/review/statistics", token: bob).json
            #expect(counts(theirs["heatmap"]).isEmpty && counts(theirs["forecast"]).reduce(0, +) == 0, "ada's reviews are not bob's")
            #expect(try await api.send(.get, "\(Self.base)/review/statistics").status == 401)
            #expect(try await api.send(.get, "\(Self.base)/review/statistics?tzOffset=5000", token: bob).status == 400)
        }
    }

    @Test("fit my parameters: too few reviews is 422 invalid, reason too_few_reviews; then a job to succeeded, the parameters schedule new cards; back to default")
    func fitParameters() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, _ in
            var (token, _) = try await api.signUp("ada")
            let french = try await api.make("collections", ["name": "French"], token: token)
            var entries: [String] = []
            for index in 0..<12 {
                entries.append(try await api.make("entries", ["collection": french, "word": "mot\(index)", "definitions": ["w"]], token: token))
            }
            for entry in entries { try await review(api, token, entry, "easy") }
            let early = try await api.send(.post, "\(Self.base)/review/parameters/fit", token: token)
            #expect(early.status == 422 && early["code"] == "invalid" && early["reason"] == "too_few_reviews" && early.json["minimum"] as? Int == 10 && early.json["reviews"] as? Int == 0,
                    "\(early.status) \(early.text)")
            #expect(early.text.contains("at least 10 reviews"))

            clock.advance(by: 9 * 86_400)
            token = try await signIn(api, "ada")
            for entry in entries { try await review(api, token, entry, "good") }
            let started = try await api.send(.post, "\(Self.base)/review/parameters/fit", token: token)
            #expect(started.status == 202 && started["state"] == "running", "\(started.status) \(started.text)")
            let id = try #require(started["id"])
            var job: [String: any Sendable] = [:]
            for _ in 0..<200 {
                job = try await api.send(.get, "\(Self.base)/review/parameters/fit/\(id)", token: token).json
                if job["state"] as? String != "running" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(job["state"] as? String == "succeeded" && job["progress"] as? Double == 1 && job["predicted"] as? Int == 12, "\(job)")
            let (bob, _) = try await api.signUp("bob")
            #expect(try await api.send(.get, "\(Self.base)/review/parameters/fit/\(id)", token: bob).status == 404, "ada's job is not bob's")

            let settings = try await api.send(.get, "\(Self.base)/review/settings", token: token).json
            let fitted = try #require(settings["fitted"] as? [String: any Sendable])
            let parameters = try #require(fitted["parameters"] as? [Double])
            #expect(parameters.count == 21 && fitted["reviews"] as? Int == 12)
            // Every easy card was recalled after 9 days: the fitted initial stability of "easy" is
            // above the default's 8.3 days, and a new card's "easy" interval follows it.
            #expect(parameters[3] > 8.3)
            let extra = try await api.make("entries", ["collection": french, "word": "nouveau", "definitions": ["new"]], token: token)
            func easyInterval() async throws -> Int? {
                let items = try await api.send(.get, "\(Self.base)/review/next?limit=100", token: token).items
                let card = items.first { ($0["entry"] as? [String: any Sendable])?["id"] as? String == extra }
                return (card?["intervals"] as? [String: Int])?["easy"]
            }
            let fittedEasy = try #require(try await easyInterval())
            #expect(fittedEasy > 8 * 86_400, "\(fittedEasy)")

            let reset = try await api.send(.delete, "\(Self.base)/review/parameters", token: token)
            #expect(reset.status == 200 && (reset.json["fitted"] == nil || reset.json["fitted"] is NSNull))
            #expect(try await easyInterval() == 8 * 86_400, "back to the defaults")
        }
    }

    @Test("review_fit: false in the YAML turns fitting off: 404 saying so; the statistics stay")
    func fitOff() async throws {
        let yaml = TestApp.yaml(extraPlugins: "  vocabulary: { review_fit: false }\n")
        try await TestApp.run(yaml: yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let off = try await api.send(.post, "\(Self.base)/review/parameters/fit", token: token)
            #expect(off.status == 404 && off.text.contains("review_fit"), "\(off.status) \(off.text)")
            #expect(try await api.send(.get, "\(Self.base)/review/statistics", token: token).status == 200)
        }
    }
}
