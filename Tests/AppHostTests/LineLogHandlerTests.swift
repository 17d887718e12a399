@testable import AppHost
import Bus
import Logging
import Testing

struct Refused: Error {}

@Suite("Log lines: the fields of a line, rendered when it is written")
struct LineLogHandlerTests {
    static func event(_ metadata: Logger.Metadata? = nil, error: (any Error)? = nil) -> LogEvent {
        LogEvent(level: .warning, message: "bus: a reply was not sent", error: error, metadata: metadata,
                 source: "BusNATS", file: #fileID, function: #function, line: #line)
    }

    @Test("the line reads like swift-log's stream handler: time, level, label, fields sorted by key, source, message")
    func format() throws {
        var handler = LineLogHandler(label: "quire")
        handler[metadataKey: "zone"] = "eu"
        handler[metadataKey: "app"] = "napkin-notes"
        let line = handler.line(for: Self.event(["message": "notes.list.v1"]))
        let expected = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4} warning quire: app=napkin-notes message=notes.list.v1 zone=eu \[BusNATS\] bus: a reply was not sent\n$/
        #expect(line.wholeMatch(of: expected) != nil, "\(line)")
    }

    @Test("the request's id comes from the provider; a line's own field wins over both")
    func provided() {
        var handler = LineLogHandler(label: "quire", metadataProvider: AppHost.requestMetadata)
        handler[metadataKey: "node"] = "a"
        let traced = RequestTrace.$id.withValue("req-7") { handler.line(for: Self.event(["node": "b"])) }
        #expect(traced.contains(" quire: node=b request=req-7 [BusNATS] "), "\(traced)")
        let untraced = handler.line(for: Self.event())
        #expect(untraced.contains(" quire: node=a [BusNATS] "), "\(untraced)")
    }

    @Test("a line without fields has none; an error is named with its type")
    func bare() {
        let handler = LineLogHandler(label: "")
        #expect(handler.line(for: Self.event()).contains(" warning: [BusNATS] "))
        let failed = handler.line(for: Self.event(error: Refused()))
        #expect(failed.contains("error.message=Refused() error.type=AppHostTests.Refused"), "\(failed)")
    }
}
