@testable import AppHost
import Bus
import Foundation
import Logging
import PluginKit
import Testing

/// The operator's recent problems (`GET /api/v1/admin/logs`): a ring of the newest warnings and
/// errors, fed by the log handler.
@Suite("RecentLog: the last 100 warnings and errors, with their request ids")
struct RecentLogTests {
    static func entry(_ number: Int, level: String = "error") -> RecentLog.Entry {
        RecentLog.Entry(at: Date(timeIntervalSince1970: Double(number)), level: level, message: "problem \(number)", requestID: "req-\(number)",
                        fields: [:])
    }

    static func event(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata? = nil) -> LogEvent {
        LogEvent(level: level, message: "\(message)", error: nil, metadata: metadata, source: "Tests", file: #fileID, function: #function, line: #line)
    }

    @Test("empty at first; in order while not full")
    func filling() {
        let ring = RecentLog(capacity: 100)
        #expect(ring.entries.isEmpty && ring.total == 0)
        for number in 1...3 { ring.append(Self.entry(number)) }
        #expect(ring.entries.map(\.message) == ["problem 1", "problem 2", "problem 3"])
        #expect(ring.total == 3)
    }

    @Test("full, it keeps the newest 100, oldest first, and counts the dropped ones in total",
          arguments: [100, 101, 150, 199, 200, 201, 1234])
    func keepsNewest(_ appended: Int) {
        let ring = RecentLog()
        #expect(ring.capacity == 100)
        for number in 1...appended { ring.append(Self.entry(number)) }
        let kept = ring.entries
        #expect(kept.count == 100)
        #expect(kept.map(\.requestID) == ((appended - 99)...appended).map { "req-\($0)" })
        #expect(ring.total == appended)
    }

    @Test("a capacity below one is one")
    func smallest() {
        let ring = RecentLog(capacity: 0)
        ring.append(Self.entry(1))
        ring.append(Self.entry(2))
        #expect(ring.capacity == 1)
        #expect(ring.entries.map(\.message) == ["problem 2"])
    }

    @Test("appends from many tasks at once are all counted, and the ring stays whole")
    func concurrent() async {
        let ring = RecentLog(capacity: 100)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask { for number in 0..<250 { ring.append(Self.entry(task * 1000 + number)) } }
            }
        }
        #expect(ring.total == 2000)
        #expect(ring.entries.count == 100)
        #expect(Set(ring.entries).count == 100)
    }

    @Test("the log handler keeps warnings, errors and criticals only, with the request id apart from the other fields")
    func fedByTheHandler() {
        let ring = RecentLog(capacity: 100)
        var handler = LineLogHandler(label: "quire", metadataProvider: AppHost.requestMetadata)
        handler.recent = ring
        handler[metadataKey: "plugin"] = "notes"
        handler.log(event: Self.event(.trace, "trace"))
        handler.log(event: Self.event(.debug, "debug"))
        handler.log(event: Self.event(.info, "info"))
        handler.log(event: Self.event(.notice, "notice"))
        #expect(ring.entries.isEmpty, "nothing below a warning is kept")
        RequestTrace.$id.withValue("req-42") {
            handler.log(event: Self.event(.warning, "slow import", ["job": "j_1"]))
            handler.log(event: Self.event(.error, "mail failed"))
        }
        handler.log(event: Self.event(.critical, "disk full"))
        let kept = ring.entries
        #expect(kept.map(\.message) == ["slow import", "mail failed", "disk full"])
        #expect(kept.map(\.level) == ["warning", "error", "critical"])
        #expect(kept.map(\.requestID) == ["req-42", "req-42", nil])
        #expect(kept[0].fields == ["job": "j_1", "plugin": "notes"], "the line's fields, without the request id")
        #expect(kept[1].fields == ["plugin": "notes"])
        #expect(kept.allSatisfy { abs($0.at.timeIntervalSinceNow) < 60 })
    }
}
