import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// Napkin Notes' planned features composed from plugins by the shipped `config/apps/napkin-notes.yaml`
/// alone: search as you type, categories with a filter, where a note was written (geo) and
/// reminders; mail is there, commented out, for an operator with a mail server.
@Suite("Napkin Notes' planned features: search, categories, places and reminders from the shipped YAML")
struct NapkinFeaturesTests {
    /// The shipped YAML, its storage in memory and its secret fixed: the composition under test is
    /// the file's.
    static func shippedYAML() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var yaml = try String(contentsOf: root.appendingPathComponent("config/apps/napkin-notes.yaml"), encoding: .utf8)
        let storage = try #require(yaml.range(of: "  storage:\n"))
        let auth = try #require(yaml.range(of: "  auth:\n"))
        yaml.replaceSubrange(storage.lowerBound..<auth.lowerBound, with: "  storage: { backend: memory, blob_grace_seconds: 0 }\n")
        return yaml.replacingOccurrences(of: "${QUIRE_AUTH_SECRET:-}", with: "test-secret-0123456789-0123456789-0123456789")
            .replacingOccurrences(of: "port: \"${QUIRE_PORT:-8080}\"", with: "port: 0")
    }

    func note(_ api: APIClient, _ token: String, _ body: [String: any Sendable]) async throws -> String {
        let reply = try await api.send(.post, "/api/v1/notes", json: body, token: token)
        guard reply.status == 201, let id = reply["id"] else { throw TestAppFailure("POST note: \(reply.status) \(reply.text)") }
        return id
    }

    @Test("the YAML switches on search, categories, geo and reminders; each works through the plugins' own routes")
    func composed() async throws {
        try await TestApp.run(yaml: try Self.shippedYAML()) { api, _ in
            let manifest = try await api.send(.get, "/api/v1/manifest").json
            let plugins = manifest["plugins"] as? [[String: any Sendable]] ?? []
            let notes = plugins.first { $0["id"] as? String == "notes" }
            let features = notes?["features"] as? [String] ?? []
            #expect(features.contains("search") && features.contains("categories"))
            #expect(plugins.contains { $0["id"] as? String == "geo" })
            #expect(plugins.contains { $0["id"] as? String == "reminders" })
            // Mail ships commented out: without a mail server the phone uses mailto: instead.
            #expect(!plugins.contains { $0["id"] as? String == "mail" })

            let (token, _) = try await api.signUp("ada")
            let groceries = try await note(api, token, ["title": "Groceries", "text": "milk, eggs", "category": " Home "])
            let meeting = try await note(api, token, ["title": "Meeting", "text": "bring the groceries list", "category": "Work"])
            let plan = try await note(api, token, ["title": "Plan", "text": "quarterly plan", "category": "Work"])
            _ = try await note(api, token, ["title": "Loose thought"])

            // Categories: trimmed, listed with counts, and a filter in the user's order.
            #expect(try await api.send(.get, "/api/v1/notes/\(groceries)", token: token)["category"] == "Home")
            let categories = try await api.send(.get, "/api/v1/notes/categories", token: token).items
            #expect(categories.map { "\($0["name"] ?? "")=\($0["count"] ?? "")" } == ["Home=1", "Work=2"])
            let work = try await api.send(.get, "/api/v1/notes?category=Work", token: token).items.compactMap { $0["id"] as? String }
            #expect(work == [meeting, plan])
            #expect(try await api.send(.post, "/api/v1/notes", json: ["category": String(repeating: "x", count: 41)], token: token).status == 422)
            #expect(try await api.send(.patch, "/api/v1/notes/\(plan)", json: ["category": NSNull()] as [String: any Sendable], token: token).status == 200)
            #expect(try await api.send(.get, "/api/v1/notes?category=Work", token: token).items.count == 1)

            // Search as you type: the title before the text; a category narrows it.
            let hits = try await api.send(.get, "/api/v1/notes/search?q=grocer", token: token).items
            let found = hits.compactMap { ($0["note"] as? [String: any Sendable])?["id"] as? String }
            #expect(found == [groceries, meeting])
            #expect(hits.first?["match"] as? String == "prefix")
            #expect((hits.first?["highlights"] as? [String: any Sendable])?["title"] != nil)
            let narrowed = try await api.send(.get, "/api/v1/notes/search?q=grocer&category=Work", token: token).items
            #expect(narrowed.compactMap { ($0["note"] as? [String: any Sendable])?["id"] as? String } == [meeting])

            // Where it was written: a geotag on the note, and the notes near a place.
            let tagged = try await api.send(.put, "/api/v1/geo/tags", json: ["subject": "notes/\(groceries)", "latitude": 48.8584, "longitude": 2.2945] as [String: any Sendable],
                                            token: token)
            #expect(tagged.status == 200)
            let near = try await api.send(.get, "/api/v1/geo/near?lat=48.86&lon=2.29&radiusKm=2&kind=notes", token: token).items
            #expect(near.compactMap { ($0["geotag"] as? [String: any Sendable])?["subject"] as? String } == ["notes/\(groceries)"])

            // Deleting the note lets go of where it was written (geo follows notes' event: a moment later).
            #expect(try await api.send(.delete, "/api/v1/notes/\(groceries)", token: token).status == 204)
            var tag = 200
            for _ in 0..<50 where tag != 404 {
                tag = try await api.send(.get, "/api/v1/geo/tags?subject=notes/\(groceries)", token: token).status
                if tag != 404 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(tag == 404)
            #expect(try await api.send(.get, "/api/v1/geo/near?lat=48.86&lon=2.29&radiusKm=2&kind=notes", token: token).items.isEmpty)
        }
    }

    @Test("without the switches, the same routes say what is off and how to turn it on")
    func switchedOff() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let search = try await api.send(.get, "/api/v1/notes/search?q=x", token: token)
            #expect(search.status == 404 && search.text.contains("search: true"))
            let category = try await api.send(.post, "/api/v1/notes", json: ["title": "t", "category": "Work"], token: token)
            #expect(category.status == 404 && category.text.contains("categories: true"))
            #expect(try await api.send(.get, "/api/v1/notes/categories", token: token).status == 404)
        }
    }
}
