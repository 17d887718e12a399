import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// A member the schema gives a type may be left out (its default), never `null`: null answered 200
/// as if it had been left out, though the schema forbids it.
@Suite("Null where the schema allows none")
struct NullFieldsTests {
    @Test("a drawing's text or stroke with color, size, width or tool null: 400 naming the field; left out: the default")
    func drawing() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let id = try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "x"], token: token)["id"])
            let cases: [(String, String)] = [
                (#"{"strokes": [], "texts": [{"text": "hi", "x": 0.1, "y": 0.5, "color": null}]}"#, "texts[0].color"),
                (#"{"strokes": [], "texts": [{"text": "hi", "x": 0.1, "y": 0.5, "size": null}]}"#, "texts[0].size"),
                (#"{"strokes": [{"points": [{"x": 0, "y": 0}], "color": null}], "texts": []}"#, "strokes[0].color"),
                (#"{"strokes": [{"points": [{"x": 0, "y": 0}], "width": null}], "texts": []}"#, "strokes[0].width"),
                (#"{"strokes": [{"points": [{"x": 0, "y": 0}], "tool": null}], "texts": []}"#, "strokes[0].tool"),
            ]
            for (body, field) in cases {
                let reply = try await api.send(.put, "/api/v1/notes/\(id)/drawing", json: body, token: token)
                #expect(reply.status == 400 && reply["field"] == field, "\(field): \(reply.status) \(reply.text)")
                #expect(reply["detail"]?.contains("null") == true, "\(reply.text)")
            }
            let defaults = try await api.send(.put, "/api/v1/notes/\(id)/drawing",
                                              json: #"{"strokes": [{"points": [{"x": 0, "y": 0}]}], "texts": [{"text": "hi", "x": 0.1, "y": 0.5}]}"#,
                                              token: token)
            #expect(defaults.status == 200, "\(defaults.text)")
        }
    }
}
