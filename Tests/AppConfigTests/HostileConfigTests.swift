import AppConfig
import Foundation
import Testing

@Suite("App config: hostile and broken files")
struct HostileConfigTests {
    func diagnostics(_ body: () throws -> Void) -> [ConfigDiagnostic] {
        do {
            try body()
            return []
        } catch let error as ConfigError {
            return error.diagnostics
        } catch {
            return [ConfigDiagnostic(location: SourceLocation(file: "?", line: 0, column: 0), path: "", message: "\(error)")]
        }
    }

    @Test("a billion-laughs document is refused at once, with a position, instead of growing without bound")
    func aliasBomb() {
        var yaml = "app: x\nplugins:\n  storage: {}\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for level in 1...9 {
            yaml += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let found = diagnostics { _ = try YAMLLoader.parse(yaml, file: "bomb.yaml") }
        #expect(found.count == 1)
        #expect(found.first?.message.contains("more than \(YAMLLoader.maxNodes) values") == true)
        #expect(found.first.map { $0.location.file == "bomb.yaml" && $0.location.line >= 4 } == true)
    }

    @Test("a small alias still reads: only expansion past the budget is refused")
    func smallAlias() throws {
        let root = try YAMLLoader.parse("app: x\nbase: &base { port: 9000 }\nserver: *base\nplugins:\n  storage: {}\n", file: "ok.yaml")
        let config = AppConfig(root: root, environment: [:])
        #expect(config.server.port == 9000)
    }

    @Test("a control character is reported at its own line and column, and never echoed raw")
    func controlCharacter() {
        let found = diagnostics { _ = try YAMLLoader.parse("app: x\nserver:\n  host: ab\u{1B}]0;pwned\u{07}cd\n", file: "ctl.yaml") }
        let diagnostic = found.first
        #expect(diagnostic?.location.line == 3)
        #expect(diagnostic?.location.column == 11)
        #expect(diagnostic?.description.unicodeScalars.contains { $0.properties.generalCategory == .control } == false)
        #expect(diagnostic?.message.contains("U+001B") == true)
    }

    @Test("invalid UTF-8 is named as such, at its line and column, not blamed on the path or permissions")
    func invalidUTF8() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("quire-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try (Data("app: x\nplugins:\n  notes: { time_zone: Eur".utf8) + Data([0xFF, 0xFE]) + Data("ope }\n".utf8)).write(to: file)
        let found = diagnostics { _ = try YAMLLoader.load(file: file.path) }
        #expect(found.count == 1)
        #expect(found.first?.message.contains("not valid UTF-8") == true)
        #expect(found.first?.message.contains("permissions") == false)
        #expect(found.first?.location.line == 3)
        #expect(found.first?.location.column == "  notes: { time_zone: Eur".count + 1)
    }

    @Test("a value quoted in a message is escaped and shortened: no terminal escapes, no 5 MB lines")
    func messagesArePrintable() throws {
        let huge = String(repeating: "x", count: 5_000_000)
        let config = AppConfig(root: try YAMLLoader.parse("app: x\nserver: { port: \"\(huge)\" }\nplugins:\n  storage: {}\n", file: "big.yaml"),
                               environment: [:])
        _ = config.server
        let found = diagnostics { try config.reader.finish() }
        let text = found.map(\.description).joined(separator: "\n")
        #expect(!found.isEmpty)
        #expect(text.count < 2_000)
        #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" })
        #expect(ConfigText.printable("a\u{0}b\u{1B}c") == "a\\u{0}b\\u{1B}c")
    }
}
