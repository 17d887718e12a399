import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

@Suite("Napkin Notes: careless and concurrent clients")
struct NotesHardeningTests {
    @Test("a misspelt member of a drawing is refused with 400 naming it, and the saved drawing stays")
    func misspeltDrawingKeepsWork() async throws {
        try await TestApp.run { client, _ in
            let token = try await client.signUp("ann").token
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: ["title": "Walk"], token: token)["id"])
            let drawing: [String: any Sendable] = ["strokes": [["points": [["x": 0.1, "y": 0.1], ["x": 0.5, "y": 0.5]]]]]
            #expect(try await client.send(.put, "/api/v1/notes/\(id)/drawing", json: drawing, token: token).status == 200)

            let typo = try await client.send(.put, "/api/v1/notes/\(id)/drawing", json: ["strokez": [] as [String]], token: token)
            #expect(typo.status == 400)
            #expect(typo["field"] == "strokez")
            #expect(typo["detail"]?.contains("'strokez'") == true)
            let nested = try await client.send(.put, "/api/v1/notes/\(id)/drawing",
                                               json: ##"{"strokes": [{"points": [], "colour": "#ff0000"}]}"##, token: token)
            #expect(nested.status == 400)
            #expect(nested["field"] == "strokes[0].colour")

            let kept = try await client.send(.get, "/api/v1/notes/\(id)/drawing", token: token)
            #expect((kept.json["strokes"] as? [Any])?.count == 1)
        }
    }

    @Test("edits without If-Match that race each other all succeed: the server retries, it never answers 412")
    func noPreconditionNoPreconditionFailure() async throws {
        try await TestApp.run { client, _ in
            let token = try await client.signUp("bob").token
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: ["title": "Shared"], token: token)["id"])
            let writers = 12
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<writers {
                    group.addTask {
                        if index % 3 == 0 {
                            let drawing: [String: any Sendable] = ["strokes": [["points": [["x": 0.1, "y": Double(index) / 20]]]]]
                            return try await client.send(.put, "/api/v1/notes/\(id)/drawing", json: drawing, token: token).status
                        }
                        return try await client.send(.patch, "/api/v1/notes/\(id)", json: ["text": "edit \(index)"], token: token).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: writers))
            let note = try await client.send(.get, "/api/v1/notes/\(id)", token: token)
            #expect(note.json["version"] as? Int == 1 + writers)
        }
    }

    @Test("an If-Match history cannot merge from answers 412 in the note's own words, never storage's")
    func staleIfMatch() async throws {
        try await TestApp.run { client, _ in
            let token = try await client.signUp("cyd").token
            let id = try #require(try await client.send(.post, "/api/v1/notes", json: ["title": "v1"], token: token)["id"])
            #expect(try await client.send(.patch, "/api/v1/notes/\(id)", json: ["title": "v2"], token: token).status == 200)
            let stale = try await client.send(.patch, "/api/v1/notes/\(id)", json: ["title": "v3"], token: token, headers: [.ifMatch: "\"7\""])
            #expect(stale.status == 412)
            #expect(stale["detail"]?.contains("Note '\(id)'") == true)
            let drawing = try await client.send(.put, "/api/v1/notes/\(id)/drawing", json: ["strokes": [] as [String]], token: token,
                                                headers: [.ifMatch: "\"7\""])
            #expect(drawing.status == 412)
            for reply in [stale, drawing] {
                #expect(reply.text.contains("notes.notes") == false)
                #expect(reply.text.contains("Record '") == false)
            }
        }
    }
}
