import Foundation
import Testing

/// Storage's write path is written once: ``WritePipeline`` (StorageAPI) decides idempotency replay,
/// owners and expected versions, versions going on from tombstones, and earlier versions kept or
/// forgotten; each backend supplies only its table operations. These checks keep a backend from
/// growing its own copy of a rule again, and the stores split by concern.
@Suite("Architecture: storage")
struct StorageRulesTests {
    static let storage = ImportRulesTests.root.appendingPathComponent("Plugins/Storage")
    static let pipeline = "StorageAPI/WritePipeline.swift"

    /// Every Swift file under Plugins/Storage, by its path there, with its text.
    static func sources() throws -> [(path: String, text: String)] {
        guard let files = FileManager.default.enumerator(atPath: storage.path) else { return [] }
        var found: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            found.append((file, try String(contentsOf: storage.appendingPathComponent(file), encoding: .utf8)))
        }
        return found
    }

    @Test("only the write pipeline applies the write rules")
    func rulesLiveInThePipeline() throws {
        let sources = try Self.sources()
        #expect(sources.contains { $0.path == Self.pipeline }, "found \(Self.pipeline)")
        // The rule, and how a copy of it would show.
        let rules = ["idempotency replay": "IdempotencyRules.mismatch(", "expected versions": "RecordRules.check(expectedVersion",
                     "earlier versions kept": "history == true", "earlier versions forgotten": "forgetsOnDelete == true",
                     "ids made for inserts": "RecordIDs.make()", "tombstones' versions": "version + 1"]
        for (path, text) in sources where path != Self.pipeline && path != "StorageAPI/RecordRules.swift" {
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            for (rule, mark) in rules {
                #expect(!code.contains(mark), "\(path) applies a write rule (\(rule): '\(mark)') that belongs to WritePipeline")
            }
        }
    }

    @Test("every backend writes through the pipeline")
    func backendsRunThePipeline() throws {
        var backends = 0
        for (path, text) in try Self.sources() where text.contains("public func write(_ batch: WriteBatch)") {
            // The bus client forwards the batch to the storage plugin, whose backend runs the pipeline.
            guard !path.hasSuffix("BusRecordStore.swift") else { continue }
            backends += 1
            #expect(text.contains("WritePipeline("), "\(path) writes a batch without WritePipeline")
        }
        #expect(backends >= 3, "memory, SQLite and PostgreSQL write batches")
    }

    @Test("no Swift file under Plugins/Storage is over 700 lines")
    func filesStaySmall() throws {
        for (path, text) in try Self.sources() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 700, "Plugins/Storage/\(path) has \(lines) lines; split it by concern (Type+Concern.swift)")
        }
    }
}
