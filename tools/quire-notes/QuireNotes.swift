import ArgumentParser
import Bus
import Foundation
import NotesAPI
import StorageAPI
import ToolKit

/// `quire-notes`: bring a user's notes in from Evernote or Google Keep from the shell, through the
/// app's own plugins (the same job, checks and storage as the HTTP API). Safe beside a running server.
@main
struct QuireNotes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-notes",
        abstract: "Napkin Notes from the shell: import an Evernote export or a Google Keep Takeout.",
        subcommands: [ImportCommand.self])
}

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("quire-notes: \(message)\n".utf8))
    exit(code)
}

extension NoteImportFormat: ExpressibleByArgument {}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an Evernote .enex or a Google Takeout zip of Keep; shows progress; reports each note it could not bring in.")

    @Argument(help: "The file to import (.enex, or Takeout's .zip).") var file: String
    @Option(name: .long, help: "The app's YAML file.") var config: String
    @Option(name: .long, help: "Whose notes they become (a username).") var user: String
    @Option(help: "enex or keep (default: from the file name).") var format: NoteImportFormat?

    func run() async throws {
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else { fail("Cannot read '\(file)'.") }
        let lower = path.lowercased()
        guard let format = self.format ?? (lower.hasSuffix(".enex") || lower.hasSuffix(".xml") ? .enex : lower.hasSuffix(".zip") ? .keep : nil) else {
            fail("Say what '\(file)' is: --format enex (Evernote) or --format keep (a Google Takeout zip).", code: 64)
        }
        let started = Date()
        let job = try await AppSession(tool: "quire-notes", config: config).run(as: user) { bus, owner in
            let file = try await BlobParts.put(file: URL(fileURLWithPath: path), in: BusBlobStore(bus: bus, timeout: .seconds(60)))
            let job = try await bus.request(StartNoteImport(owner: owner, format: format, file: file), timeout: .seconds(60))
            return try await followJob(job, running: { $0.state == .running },
                                       next: { try await bus.request(GetNoteImportJob(owner: owner, id: $0.id), timeout: .seconds(30)) },
                                       line: { progress($0, started: started) })
        }
        report(job, seconds: Date().timeIntervalSince(started))
    }

    func progress(_ job: NoteImportJob, started: Date) -> String {
        let elapsed = Date().timeIntervalSince(started)
        var line = "importing: \(job.notesRead) notes read"
        if let total = job.progressTotal, total > 0 { line += " (\(min(100, job.progressDone * 100 / total))%)" }
        return line + ", \(job.imported) imported, \(job.problemCount) with problems, \(Int(elapsed > 0 ? Double(job.notesRead) / elapsed : 0)) notes/s"
    }

    func report(_ job: NoteImportJob, seconds: Double) {
        for problem in job.problems {
            print("note \(problem.note)\(problem.title.map { " (\($0.prefix(60)))" } ?? ""): \(problem.message)")
        }
        if job.problemCount > job.problems.count { print("… and \(job.problemCount - job.problems.count) more") }
        switch job.state {
        case .succeeded:
            print("imported \(job.imported) note\(job.imported == 1 ? "" : "s") (\(job.photos) with a photo) of \(job.notesRead) in \(String(format: "%.1f", seconds)) s"
                  + (job.skipped > 0 ? "; \(job.skipped) in Keep's trash left out" : ""))
        case .failed, .running:
            fail(job.failure ?? "The import did not finish.")
        }
    }
}
