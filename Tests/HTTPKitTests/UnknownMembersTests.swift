import Bus
import Foundation
@testable import HTTPKit
import Logging
import Testing

@Suite("Request bodies: members a route does not take are found")
struct UnknownMembersTests {
    struct Stroke: Decodable {
        var points: [[Double]]
        var width: Double?
        var tool: Tool?
        enum Tool: String, Decodable { case pen, eraser }
    }

    struct Drawing: Decodable {
        var strokes: [Stroke]?
        var texts: [String]?
        var taken: Date?
    }

    struct Labels: Decodable {
        var name: String
        var labels: [String: String]?
    }

    func unknown<T: Decodable>(_ json: String, as type: T.Type) throws -> [String] {
        let data = Data(json.utf8)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        _ = try decoder.decode(T.self, from: data)  // the body fits the type
        return UnknownMembers.find(in: data, as: T.self)
    }

    @Test("a misspelt top-level member is named")
    func topLevel() throws {
        #expect(try unknown(#"{"strokez": [{"points": [[0, 0]]}]}"#, as: Drawing.self) == ["strokez"])
    }

    @Test("members nested in objects inside lists are named with their path")
    func nested() throws {
        let json = #"{"strokes": [{"points": [[0, 0]], "widht": 2}, {"points": [], "tool": "eraser", "colour": "red"}], "taken": "2024-05-03T14:22:10Z"}"#
        #expect(try unknown(json, as: Drawing.self) == ["strokes[0].widht", "strokes[1].colour"])
    }

    @Test("a body with only known members, enums and dates has none")
    func clean() throws {
        #expect(try unknown(#"{"strokes": [{"points": [[1, 2]], "width": 0.1, "tool": "pen"}], "texts": ["hi"], "taken": "2024-05-03T14:22:10Z"}"#,
                            as: Drawing.self).isEmpty)
        #expect(try unknown("{}", as: Drawing.self).isEmpty)
    }

    @Test("a dictionary's keys are the client's own, never unknown")
    func dictionaries() throws {
        #expect(try unknown(#"{"name": "a", "labels": {"anything": "goes", "here": "too"}}"#, as: Labels.self).isEmpty)
        #expect(try unknown(#"{"name": "a", "label": {}}"#, as: Labels.self) == ["label"])
    }
}

@Suite("Problems: internal text stays in the log")
struct InternalProblemTests {
    @Test("an internal bus error answers a sentence and the request id, never its own text")
    func internalErrorHidden() {
        var logger = Logger(label: "test")
        logger[metadataKey: "hb.request.id"] = "req-42"
        let problem = ProblemMiddleware<QuireContext>.problem(
            for: BusError(.internal, "Unexpected storage error: SQLITE_CORRUPT in table notes.notes"), logger: logger)
        #expect(problem.status == .internalServerError)
        #expect(!problem.detail.contains("SQLITE"))
        #expect(!problem.detail.contains("notes.notes"))
        #expect(problem.detail.contains("req-42"))
        #expect(problem.extra["requestId"] == "req-42")
    }

    @Test("an unavailable dependency keeps its sentence, which was written for clients")
    func unavailableKeepsItsSentence() {
        let problem = ProblemMiddleware<QuireContext>.problem(for: BusError(.unavailable, "The database is busy; try again."),
                                                              logger: Logger(label: "test"))
        #expect(problem.status == .serviceUnavailable)
        #expect(problem.detail == "The database is busy; try again.")
    }
}
