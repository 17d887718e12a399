import AppConfig
import AppHost
import ArgumentParser
import Foundation
import PluginCatalog
import Storage

/// `quire backup` / `quire restore`: an app's storage to a directory and back (see StorageBackup).
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy an app's records and blobs to a new directory, while the server runs.",
        discussion: "SQLite: its online backup API (a consistent snapshot). PostgreSQL: pg_dump. Blobs: copied after the records.")

    @Option(name: .long, help: "The app's YAML file.")
    var config: String

    @Argument(help: "The directory to write; it must not exist yet.")
    var output: String

    func run() async throws {
        let output = self.output
        try withStorage(config, tool: "quire backup") { storage, app, progress in
            let done = try StorageBackup.backup(storage, appName: app, to: URL(fileURLWithPath: output), progress: progress)
            print("backed up \(app): \(done.records) and \(done.blobs) blobs in \(output)")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup back into the storage the config names (stop the server first).",
        discussion: "The records replace what is there (SQLite keeps the old file as <file>.before-restore); missing blobs are copied in.")

    @Option(name: .long, help: "The app's YAML file.")
    var config: String

    @Argument(help: "A directory `quire backup` wrote.")
    var input: String

    func run() async throws {
        let input = self.input
        try withStorage(config, tool: "quire restore") { storage, app, progress in
            let blobs = try StorageBackup.restore(storage, appName: app, from: URL(fileURLWithPath: input), progress: progress)
            print("restored \(app) from \(input): the records and \(blobs) blobs")
        }
    }
}

/// Runs `body` with the storage section of a valid config (read as the plugin reads it), the
/// app's name and a progress line writer; any failure is one line on stderr and exit 1.
private func withStorage(_ file: String, tool: String,
                         _ body: (StoragePlugin.Config, String, (String) -> Void) throws -> Void) throws {
    let storage: StoragePlugin.Config
    let app: String
    do {
        let config = try AppConfig.load(file: file, environment: ProcessInfo.processInfo.environment)
        _ = try AppHost.validate(config, catalog: PluginCatalog.all)
        guard let entry = config.plugins.first(where: { $0.id == "storage" }) else {
            throw fail(tool, "\(file) has no storage plugin: nothing to back up or restore.")
        }
        (storage, app) = (StoragePlugin.configure(entry.section), config.app)
    } catch let error as ConfigError {
        throw fail(tool, error.description)
    }
    do {
        try body(storage, app) { say(tool, $0) }
    } catch {
        throw fail(tool, "\(error)")
    }
}

private func say(_ tool: String, _ text: String) {
    FileHandle.standardError.write(Data("\(tool): \(text)\n".utf8))
}

private func fail(_ tool: String, _ message: String) -> ExitCode {
    say(tool, message)
    return ExitCode(1)
}
