import Foundation
import Testing
import VocabularyFormats

@Suite("CSV import: hostile files")
struct CSVFormatTests {
    @Test("a file of a million blank lines ends cleanly: blank rows are skipped in a loop, not by recursion")
    func blankLines() throws {
        var source = try CSVSource(data: Data("word,definition\n".utf8) + Data(repeating: 10, count: 1_000_000) + Data("chat,cat\n".utf8))
        var rows: [String] = []
        while let row = source.next() {
            if case .success(let imported) = row { rows.append(imported.word) }
        }
        #expect(rows == ["chat"])
    }

    @Test("an unclosed quote on the last line is a row error, not a lost row")
    func unclosedQuote() throws {
        var source = try CSVSource(data: Data("word,definition\nchat,\"cat\n".utf8))
        var errors = 0
        while let row = source.next() {
            if case .failure = row { errors += 1 }
        }
        #expect(errors == 1)
    }
}
