import ArgumentParser
import Bus
import Foundation
import StorageAPI
import ToolKit
import VocabularyAPI

/// `quire-vocab`: import, export and search a user's vocabulary from the shell, through the app's
/// own plugins (the same checks, jobs and storage as the HTTP API). Safe beside a running server.
@main
struct QuireVocab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-vocab",
        abstract: "Import, export and search Foreign Note vocabulary.",
        subcommands: [ImportCommand.self, ExportCommand.self, SearchCommand.self, ReviewCommand.self])
}

struct UserOptions: ParsableArguments {
    @Option(name: .long, help: "The app's YAML file.")
    var config: String
    @Option(name: .long, help: "The user whose vocabulary it is (a username).")
    var user: String

    /// Builds the app's plugins (no HTTP server), runs `body` with the bus and the user's account
    /// id, then stops them cleanly.
    func run<T: Sendable>(_ body: @Sendable (any MessageBus, String) async throws -> T) async throws -> T {
        try await AppSession(tool: "quire-vocab", config: config).run(as: user, body)
    }
}

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("quire-vocab: \(message)\n".utf8))
    exit(code)
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a CSV (word,definition,tags,collection) or an Anki .apkg; shows progress; nothing is kept if it fails.")

    @Argument(help: "The file to import.") var file: String
    @OptionGroup var user: UserOptions
    @Option(help: "Collection for rows that name none (default: the deck, or 'Imported').") var collection: String?
    @Option(help: "csv or apkg (default: from the file name).") var format: VocabularyFormat?

    func run() async throws {
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else { fail("Cannot read '\(file)'.") }
        let format = self.format ?? (path.lowercased().hasSuffix(".apkg") || path.lowercased().hasSuffix(".zip") ? .apkg : .csv)
        let collection = self.collection
        let started = Date()
        let job = try await user.run { bus, owner in
            let file = try await BlobParts.put(file: URL(fileURLWithPath: path), in: BusBlobStore(bus: bus, timeout: .seconds(60)))
            let job = try await bus.request(StartImport(owner: owner, format: format, file: file, collection: collection),
                                            timeout: .seconds(60))
            return try await followJob(job, running: { $0.state == .running },
                                       next: { try await bus.request(GetImportJob(owner: owner, id: $0.id), timeout: .seconds(30)) },
                                       line: { progress($0, started: started) })
        }
        report(job, seconds: Date().timeIntervalSince(started))
    }

    func progress(_ job: ImportJob, started: Date) -> String {
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(job.rowsRead) / elapsed : 0
        var line = "importing: \(job.rowsRead)"
        if let total = job.rowsTotal, total > 0 {
            line += "/\(total) rows (\(min(100, job.rowsRead * 100 / total))%)"
        } else {
            line += " rows"
        }
        return line + ", \(job.imported) imported, \(job.errorCount) with errors, \(Int(rate)) rows/s"
    }

    func report(_ job: ImportJob, seconds: Double) {
        for error in job.errors { print("row \(error.row): \(error.message)") }
        if job.errorCount > job.errors.count { print("… and \(job.errorCount - job.errors.count) more rows with errors") }
        switch job.state {
        case .succeeded:
            print("imported \(job.imported) entries from \(job.rowsRead) rows in \(String(format: "%.1f", seconds)) s "
                  + "(\(job.collectionsCreated) new collections, \(job.tagsCreated) new tags, \(job.errorCount) rows skipped)")
        case .failed, .running:
            fail(job.failure ?? "The import did not finish.")
        }
    }
}

extension VocabularyFormat: ExpressibleByArgument {}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Export as CSV or an Anki .apkg.")

    @OptionGroup var user: UserOptions
    @Option(help: "csv or apkg.") var format: VocabularyFormat = .csv
    @Option(help: "One collection (name or id); default all.") var collection: String?
    @Option(name: [.short, .long], help: "Write here (default: standard output for CSV).") var output: String?

    func run() async throws {
        let format = self.format
        let collection = self.collection
        guard output != nil || format == .csv else { fail("An .apkg is binary: give --output FILE.") }
        let output = self.output
        let entries = try await user.run { bus, owner in
            let reply = try await bus.request(ExportVocabulary(owner: owner, format: format, collection: collection), timeout: .seconds(600))
            let blobs = BusBlobStore(bus: bus, timeout: .seconds(60))
            do {
                if let output {
                    try await reply.file.write(to: URL(fileURLWithPath: output), from: blobs)
                } else {
                    try await reply.file.forEach(from: blobs) { bytes in FileHandle.standardOutput.write(bytes) }
                }
            } catch {
                await reply.file.release(on: bus)
                throw error
            }
            await reply.file.release(on: bus)
            return reply.entries
        }
        if let output { FileHandle.standardError.write(Data("exported \(entries) entries to \(output)\n".utf8)) }
    }
}

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search as you type, from the shell.")

    @Argument(help: "The query (the last word matches as a prefix).") var query: String
    @OptionGroup var user: UserOptions
    @Option(help: "Only this collection (name or id).") var collection: String?
    @Option(help: "Entries with all of these tags (comma-separated).") var all: String?
    @Option(help: "Entries with any of these tags.") var any: String?
    @Option(help: "Entries with none of these tags.") var none: String?
    @Option(help: "How many (1-100).") var limit = 20
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        func list(_ text: String?) -> [String] { (text ?? "").split(separator: ",").map(String.init) }
        let template = SearchVocabulary(owner: "", query: query, collection: collection, allTags: list(all), anyTags: list(any),
                                        noTags: list(none), limit: limit)
        let result = try await user.run { bus, owner in
            var request = template
            request.owner = owner
            return try await bus.request(request, timeout: .seconds(10))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            FileHandle.standardOutput.write(try encoder.encode(result))
            print()
            return
        }
        for hit in result.hits {
            print("\(marked(hit.word, hit.highlights["word"] ?? []))\t\(hit.definitions.first ?? "")\t[\(hit.match)]")
        }
        if result.hits.isEmpty { FileHandle.standardError.write(Data("no matches\n".utf8)) }
    }

    /// The word with its matched parts in [brackets].
    func marked(_ text: String, _ ranges: [[Int]]) -> String {
        let units = Array(text.utf16)
        var output: [UInt16] = []
        var position = 0
        for range in ranges where range.count == 2 && range[0] >= position && range[1] <= units.count {
            output += units[position..<range[0]] + Array("[".utf16) + units[range[0]..<range[1]] + Array("]".utf16)
            position = range[1]
        }
        output += units[position...]
        return String(decoding: output, as: UTF16.self)
    }
}

struct ReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Review the words that are due (FSRS-6) from a terminal: Enter shows the answer, 1-4 rate it (again, hard, good, easy), q stops.")

    @OptionGroup var user: UserOptions
    @Option(help: "Only this collection (name or id).") var collection: String?
    @Option(help: "Stop after this many cards.") var limit = 50

    func run() async throws {
        let collection = self.collection
        let limit = self.limit
        let reviewed = try await user.run { bus, owner in
            var reviewed = 0
            while reviewed < limit {
                let cards = try await bus.request(NextReviews(owner: owner, collection: collection, limit: 1), timeout: .seconds(10))
                guard let card = cards.first else {
                    print(reviewed == 0 ? "Nothing to review now." : "Nothing more to review now.")
                    break
                }
                print("\n\(card.word)\(card.state == "new" ? "  (new)" : "")")
                print("  [Enter] show the answer, q to stop", terminator: " ")
                guard let shown = readLine(), shown.lowercased() != "q" else { break }
                for definition in card.definitions { print("  = \(definition)") }
                if let example = card.example { print("  e.g. \(example)") }
                let options = ["again", "hard", "good", "easy"].enumerated().map { index, name in
                    "\(index + 1) \(name) (\(Self.describe(card.intervals[name] ?? 0)))"
                }
                let started = Date()
                var rating: String?
                while rating == nil {
                    print("  " + options.joined(separator: "   "), terminator: " ")
                    guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased(), answer != "q" else { return reviewed }
                    rating = ["1": "again", "2": "hard", "3": "good", "4": "easy"][answer] ?? (["again", "hard", "good", "easy"].contains(answer) ? answer : nil)
                    if rating == nil { print("  Type 1, 2, 3 or 4 (or q to stop).") }
                }
                let took = min(3_600_000, Int(Date().timeIntervalSince(started) * 1000))
                let result = try await bus.request(RecordReview(owner: owner, entry: card.entry, rating: rating ?? "good", durationMs: took),
                                                   timeout: .seconds(10))
                print("  → \(result.state), back \(Self.describe(result.intervalSeconds))")
                reviewed += 1
            }
            return reviewed
        }
        print("\(reviewed) reviewed.")
    }

    /// 45 s, 10 min, 5 h, 8 days, 3.2 months, 1.5 years.
    static func describe(_ seconds: Int) -> String {
        let s = Double(max(0, seconds))
        switch s {
        case ..<60: return "\(Int(s)) s"
        case ..<3_600: return "\(Int((s / 60).rounded())) min"
        case ..<86_400: return "\(Int((s / 3_600).rounded())) h"
        case ..<(30 * 86_400): return "\(Int((s / 86_400).rounded())) days"
        case ..<(365 * 86_400): return String(format: "%.1f months", s / (30 * 86_400))
        default: return String(format: "%.1f years", s / (365 * 86_400))
        }
    }
}
