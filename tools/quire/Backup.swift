import AppConfig
import AppHost
import ArgumentParser
import Foundation
import PluginCatalog
import Storage
import StorageAPI

/// `quire backup` / `quire restore`: an app's storage to a directory and back (see StorageBackup).
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy an app's records and blobs to a new directory, while the server runs.",
        discussion: "SQLite: its online backup API (a consistent snapshot). PostgreSQL: pg_dump. Blobs: copied after the records.")

    @Option(name: .long, help: "The app's YAML file.")
    var config: String

    @Option(name: .long, help: "A file whose first line is the passphrase the server's keys are sealed with (default: storage.backup.passphrase or passphrase_file; without one the keys are left out).")
    var passphraseFile: String?

    @Argument(help: "The directory to write; it must not exist yet.")
    var output: String

    func run() async throws {
        let output = self.output
        let passphraseFile = self.passphraseFile
        try withStorage(config, tool: "quire backup") { storage, app, progress in
            let passphrase = try BackupPassphrase.resolve(flag: passphraseFile, storage: storage)
            let done = try StorageBackup.backup(storage, appName: app, to: URL(fileURLWithPath: output), passphrase: passphrase, progress: progress)
            print("backed up \(app): \(done.records) and \(done.blobs) blobs in \(output)")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup back into the storage the config names (stop the server first).",
        discussion: """
            Every file is checked against the manifest's SHA-256 first; a damaged backup is refused, naming the file, and nothing \
            is changed. Then the records replace what is there (SQLite keeps the old file as <file>.before-restore) and missing \
            blobs are copied in. --from takes a backup folder, a destination folder (its newest backup is taken), or \
            rclone:REMOTE:PATH (copied down first, with storage.backup.rclone_config or --rclone-config).
            """)

    @Option(name: .long, help: "The app's YAML file.")
    var config: String

    @Option(name: .long, help: "The backup: a folder, a folder of scheduled backups (the newest), or rclone:REMOTE:PATH.")
    var from: String?

    @Option(name: .long, help: "The rclone config file for an rclone: backup (default: storage.backup.rclone_config).")
    var rcloneConfig: String?

    @Option(name: .long, help: "A file whose first line is the passphrase the backup's keys were sealed with (default: storage.backup.passphrase or passphrase_file).")
    var passphraseFile: String?

    @Argument(help: "A directory `quire backup` wrote (or use --from).")
    var input: String?

    func run() async throws {
        guard let source = from ?? input else {
            FileHandle.standardError.write(Data("quire restore: say which backup: --from FOLDER or --from rclone:REMOTE:PATH.\n".utf8))
            throw ExitCode(1)
        }
        let rcloneConfig = self.rcloneConfig
        let passphraseFile = self.passphraseFile
        var keysRefused = false
        try withStorage(config, tool: "quire restore") { storage, app, progress in
            if storage.backend == .sqlite, let pid = DatabaseInUse.holder(of: storage.path) {
                throw RestoreRefused(message: "a running process (pid \(pid), a quire serve?) has \(storage.path) open. "
                    + "Stop the server first (Ctrl-C, or systemctl stop quire-\(app)), then run this again; nothing was changed. [server_running]")
            }
            let (folder, cleanup) = try BackupSource.local(source, storage: storage, rcloneConfig: rcloneConfig, progress: progress)
            defer { cleanup() }
            // The passphrase is read first: a file that cannot be read is said before anything changes.
            let passphrase = try BackupPassphrase.resolve(flag: passphraseFile, storage: storage)
            let blobs = try StorageBackup.restore(storage, appName: app, from: folder, progress: progress)
            print("restored \(app) from \(source)\(folder.path.hasSuffix(source) ? "" : " (\(folder.lastPathComponent))"): the records and \(blobs) blobs")
            let keys = BackupKeys.restore(from: folder, into: storage.keyFiles, passphrase: passphrase, progress: progress)
            keysRefused = Self.report(keys)
        }
        // The data is back either way; 3 says the keys are not (a script must not take it for a whole restore).
        if keysRefused { throw ExitCode(3) }
    }

    /// Says what became of the backup's keys; true when they were sealed and could not be opened.
    static func report(_ keys: BackupKeys.Outcome) -> Bool {
        if !keys.restored.isEmpty {
            print("restored the server's keys: \(keys.restored.joined(separator: "; ")) "
                  + "(session tokens signed before the backup stay valid, phones keep their push subscriptions and their trust in the CA)")
        }
        if !keys.unchanged.isEmpty { print("keys already in place, unchanged: \(keys.unchanged.joined(separator: "; "))") }
        let warn = { (text: String) in FileHandle.standardError.write(Data("quire restore: \(text)\n".utf8)) }
        if let none = keys.noneInBackup { warn(none) }
        if let refusal = keys.refusal { warn(refusal) }
        if !keys.notRestored.isEmpty {
            warn("not restored, so at the server's next start: " + keys.notRestored.joined(separator: "; ") + ".")
        }
        return keys.refusal != nil
    }
}

/// `quire migrate`: bring the storage's schema up to this build's, or say what that would do (`--plan`).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring the database's schema up to this build's (as serve does at start), or with --plan only say what would change.",
        discussion: """
            SQLite: the database is copied to <file>.before-v<from>-to-v<to> (online backup API) before it is changed. \
            PostgreSQL: refused without a quire backup from the last 24 hours unless storage.migrate_without_backup is true. \
            A database written by a newer Quire is refused.
            """)

    @Option(name: .long, help: "The app's YAML file.")
    var config: String

    @Flag(name: .long, help: "Say what would change; change nothing.")
    var plan = false

    func run() async throws {
        let planOnly = plan
        try await withStorageAsync(config, tool: "quire migrate") { storage, app in
            let before = try await StorageBackup.migrationPlan(storage, appName: app)
            if planOnly || before.isNewer {
                print(before.description)
                if before.isNewer { throw StorageBackup.Failure(before.newerRefusal) }
                return
            }
            guard !before.pending.isEmpty else {
                print(before.description)
                return
            }
            let snapshot = try await StorageBackup.migrate(storage, appName: app)
            print("migrated \(before.database) from schema v\(before.current) to v\(before.latest)" + (snapshot.map { "; the database as it was is kept at \($0)" } ?? ""))
        }
    }
}

/// The backup passphrase: `--passphrase-file`, else the YAML's `storage.backup.passphrase` or `passphrase_file`.
enum BackupPassphrase {
    static func resolve(flag: String?, storage: StoragePlugin.Config) throws -> String? {
        if let flag { return try BackupKeys.passphrase(file: flag) }
        if let given = storage.backup?.passphrase { return given }
        if let file = storage.backup?.passphraseFile { return try BackupKeys.passphrase(file: file) }
        return nil
    }
}

/// Where a restore reads its backup from: a local folder as it is, or an rclone remote copied down.
enum BackupSource {
    static func local(_ source: String, storage: StoragePlugin.Config, rcloneConfig: String?,
                      progress: (String) -> Void) throws -> (URL, () -> Void) {
        if source.hasPrefix("rclone:") {
            guard let remote = Rclone.destination(source, configFile: rcloneConfig ?? storage.backup?.rcloneConfig) else { throw ExitCode(1) }
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("quire-restore-\(UUID().uuidString)")
            let cleanup = { _ = try? FileManager.default.removeItem(at: scratch) }
            do {
                let name = try remote.newestOrSelf()
                progress("copying \(source)\(name.map { "/" + $0 } ?? "") down to \(scratch.path)")
                try remote.download(name: name, to: scratch)
            } catch {
                cleanup()
                throw error
            }
            return (scratch, cleanup)
        }
        let folder = URL(fileURLWithPath: source)
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("manifest.json").path),
           let newest = BackupFiles.newest(in: folder) {
            progress("\(source) holds scheduled backups; taking the newest, \(newest.lastPathComponent)")
            return (newest, {})
        }
        return (folder, {})
    }
}

/// ``withStorage`` for async work.
private func withStorageAsync(_ file: String, tool: String,
                              _ body: (StoragePlugin.Config, String) async throws -> Void) async throws {
    let storage: StoragePlugin.Config
    let app: String
    do {
        let config = try AppConfig.load(file: file, environment: ProcessInfo.processInfo.environment)
        _ = try AppHost.validate(config, catalog: PluginCatalog.all)
        guard let entry = config.plugins.first(where: { $0.id == "storage" }) else {
            throw fail(tool, "\(file) has no storage plugin: there is no database to migrate.")
        }
        (storage, app) = (StoragePlugin.configure(entry.section), config.app)
    } catch let error as ConfigError {
        throw fail(tool, error.description)
    }
    do {
        try await body(storage, app)
    } catch {
        throw fail(tool, "\(error)")
    }
}

/// `quire restore` would change what a running server has open: said as it is.
struct RestoreRefused: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
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
        var configured = StoragePlugin.configure(entry.section)
        configured.keyFiles = config.keyFiles
        (storage, app) = (configured, config.app)
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
