import Bus
import Foundation
import Testing
@testable import Vocabulary
import VocabularyFormats

/// A field over its cap is a problem of its row, reported in words, and the other rows import:
/// CSV cells and rows, Anki note fields.
@Suite struct ImportLimitsTests {
    let limits = CSVLimits(maxCellBytes: 64 << 10, maxRowBytes: 1 << 20)

    func rows(_ source: inout CSVSource) -> [Result<ImportRow, ImportRowError>] {
        var rows: [Result<ImportRow, ImportRowError>] = []
        while let next = source.next() { rows.append(next) }
        return rows
    }

    func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString).csv")
        try data.write(to: url)
        return url
    }

    @Test func aCSVCellOverTheCapIsAProblemOfItsRowAndTheOthersImport() throws {
        var csv = Data("word,definition\nchat,cat\nhuge,\"".utf8)
        csv.append(Data(repeating: UInt8(ascii: "x"), count: 3 << 20))
        csv.append(Data("\"\nchien,dog\n".utf8))
        let file = try temporaryFile(csv)
        defer { try? FileManager.default.removeItem(at: file) }
        var source = try CSVSource(file: file, limits: limits)
        let read = rows(&source)
        #expect(read.count == 3)
        #expect((try? read[0].get())?.word == "chat")
        guard case .failure(let problem) = read[1] else { Issue.record("the 3 MB cell was read"); return }
        #expect(problem.row == 3)
        #expect(problem.message == "The definition is 3 MB; a field may be at most 64 KB. Shorten it (or split the row) and import it again.")
        #expect((try? read[2].get())?.definitions == ["dog"])
    }

    @Test func aCSVRowOverTheLineCapIsAProblemOfThatRow() throws {
        // Many small cells: each under the cell cap, the row over the row cap.
        let cells = Array(repeating: String(repeating: "y", count: 1000), count: 2000).joined(separator: ",")
        let csv = Data("word,definition\n\(cells)\nc,d\n".utf8)
        var source = try CSVSource(data: csv, limits: limits)
        let read = rows(&source)
        #expect(read.count == 2)
        guard case .failure(let problem) = read[0] else { Issue.record("the 2 MB row was read"); return }
        #expect(problem.row == 2)
        #expect(problem.message.hasPrefix("This row is 1.9 MB; a row may be at most 1 MB."))
        #expect((try? read[1].get())?.word == "c")
    }

    @Test func aCSVOfOneHugeLineIsOneRowsProblemNotTheFilesFailure() throws {
        var csv = Data("lonely,".utf8)
        csv.append(Data(repeating: UInt8(ascii: "x"), count: 2 << 20))
        var source = try CSVSource(data: csv, limits: limits)
        let read = rows(&source)
        #expect(read.count == 1)
        guard case .failure(let problem) = read.first else { Issue.record("the 2 MB line was read"); return }
        #expect(problem.row == 1)
        #expect(problem.message.hasPrefix("The definition is 2 MB; a field may be at most 64 KB."))
    }

    @Test func aCSVReadAChunkAtATimeReadsAsTheWholeDoes() throws {
        // Quotes, doubled quotes and line ends across the 64 KB chunks of the file reader.
        var text = "word,definition,tags\n"
        var index = 0
        while text.utf8.count < 300_000 {
            text += "w\(index),\"says \"\"hi\"\",\nand more\",t\(index % 7)\r\n"
            index += 1
        }
        let data = Data(text.utf8)
        let file = try temporaryFile(data)
        defer { try? FileManager.default.removeItem(at: file) }
        var streamed = try CSVSource(file: file)
        var whole = try CSVSource(data: data)
        let (a, b) = (rows(&streamed), rows(&whole))
        #expect(a.count == index && b.count == index)
        for (x, y) in zip(a, b) {
            let (p, q) = (try x.get(), try y.get())
            #expect(p.word == q.word && p.definitions == q.definitions && p.tags == q.tags && p.number == q.number)
        }
        #expect((try a[5].get()).definitions == ["says \"hi\",", "and more"])
        #expect(streamed.total == whole.total)
    }

    @Test func anAnkiFieldOverTheCapIsAProblemOfItsNoteAndTheOthersImport() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("limits-anki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let notes = [
            AnkiPackage.Note(guid: "g1", word: "chat", definitions: ["cat"], tags: ["animal"], deck: "French"),
            AnkiPackage.Note(guid: "g2", word: "huge", definitions: [String(repeating: "z", count: 2 << 20)], tags: [], deck: "French"),
            AnkiPackage.Note(guid: "g3", word: "chien", definitions: ["dog"], tags: [], deck: "French"),
        ]
        let package = try AnkiPackage.write(notes, scratch: scratch, now: Date())
        // 2 MB of one letter deflates to a few KB: the amplification the cap is for.
        #expect(package.count < 64 << 10)
        let file = scratch.appendingPathComponent("deck.apkg")
        try package.write(to: file)
        let unpacked = scratch.appendingPathComponent("read")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        var source = try AnkiPackage.read(file: file, scratch: unpacked, limits: .init(maxFieldBytes: 64 << 10))
        #expect(source.total == 3)
        var read: [Result<ImportRow, ImportRowError>] = []
        while let next = source.next() { read.append(next) }
        #expect(read.count == 3)
        #expect((try? read[0].get())?.word == "chat")
        #expect((try? read[0].get())?.collection == "French")
        guard case .failure(let problem) = read[1] else { Issue.record("the 2 MB field was read"); return }
        #expect(problem.row == 2)
        #expect(problem.message == "The definition is 2 MB; a field may be at most 64 KB. Shorten it in Anki and export the deck again.")
        #expect((try? read[2].get())?.definitions == ["dog"])
    }

    @Test func anAnkiCollectionPastItsCapIsRefusedAsItUnpacks() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("limits-anki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let notes = [AnkiPackage.Note(guid: "g1", word: "huge", definitions: [String(repeating: "z", count: 3 << 20)], tags: [], deck: "D")]
        let file = scratch.appendingPathComponent("deck.apkg")
        try AnkiPackage.write(notes, scratch: scratch, now: Date()).write(to: file)
        try? FileManager.default.removeItem(at: scratch.appendingPathComponent("collection.anki2"))
        do {
            _ = try AnkiPackage.read(file: file, scratch: scratch, limits: .init(maxFieldBytes: 64 << 10, maxCollectionBytes: 1 << 20))
            Issue.record("a collection past its cap was unpacked")
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.message.contains("more than 1 MB"))
            #expect(!FileManager.default.fileExists(atPath: scratch.appendingPathComponent("collection.anki2").path))
        }
    }
}
