public import Foundation
import GRDB
import StorageAPI
import StoragePostgres

/// `quire backup` and `quire restore`: an app's records and blobs, copied while the server runs.
///
/// A backup is a directory: `manifest.json`, the records (`records.sqlite` from SQLite's online
/// backup API, a consistent snapshot taken beside the running server; or `records.pgdump` from
/// `pg_dump --format=custom`, one transaction's snapshot), and `blobs/` (the content-addressed
/// files, copied after the records so that every blob the snapshot names is there unless it was
/// deleted in between). It is written beside its name and renamed when complete.
public enum StorageBackup {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Writes a backup of `config`'s storage to `output` (a directory that must not exist).
    public static func backup(_ config: StoragePlugin.Config, appName: String, to output: URL,
                              progress: (String) -> Void) throws -> (records: String, blobs: Int) {
        guard !FileManager.default.fileExists(atPath: output.path) else {
            throw Failure("\(output.path) already exists; name a new directory.")
        }
        let partial = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).partial")
        try? FileManager.default.removeItem(at: partial)
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        let records: String
        switch config.backend {
        case .sqlite:
            let path = sqlitePath(config, appName: appName)
            guard FileManager.default.fileExists(atPath: path) else { throw Failure("There is no database at \(path) to back up.") }
            records = "records.sqlite"
            progress("copying the records from \(path) (SQLite online backup)")
            var readOnly = Configuration()
            readOnly.readonly = true
            let source = try DatabasePool(path: path, configuration: readOnly)
            let destination = try DatabaseQueue(path: partial.appendingPathComponent(records).path)
            try source.backup(to: destination)
            try destination.close()
            try source.close()
        case .postgres:
            guard let settings = config.postgres else { throw Failure("backend postgres needs a url.") }
            records = "records.pgdump"
            progress("copying the records from \(settings.description) (pg_dump)")
            try runPostgresTool("pg_dump", settings, ["--format=custom", "--no-owner", "--schema=\(settings.schema)",
                                                      "--file=\(partial.appendingPathComponent(records).path)"])
        case .memory:
            throw Failure("backend memory keeps nothing to back up.")
        }
        let blobs = try copyBlobs(from: URL(fileURLWithPath: config.blobs), to: partial.appendingPathComponent("blobs"), progress: progress)
        let manifest: [String: Any] = ["app": appName, "backend": config.backend.rawValue, "records": records, "blobs": blobs,
                                       "createdAt": ISO8601DateFormatter().string(from: Date())]
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys, .prettyPrinted])
            .write(to: partial.appendingPathComponent("manifest.json"))
        try FileManager.default.moveItem(at: partial, to: output)
        return (records, blobs)
    }

    /// Puts a backup back: the records replace what the storage holds now (SQLite: the old file is
    /// kept beside it as `<file>.before-restore`); blobs missing from the blob folder are copied in.
    /// Run it with the server stopped.
    public static func restore(_ config: StoragePlugin.Config, appName: String, from input: URL,
                               progress: (String) -> Void) throws -> Int {
        let manifestURL = input.appendingPathComponent("manifest.json")
        guard let data = try? Data(contentsOf: manifestURL),
              let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let backend = manifest["backend"] as? String, let records = manifest["records"] as? String else {
            throw Failure("\(input.path) is not a Quire backup (no readable manifest.json).")
        }
        guard backend == config.backend.rawValue else {
            throw Failure("This backup is of a \(backend) database; the config's storage is \(config.backend.rawValue). Restore it with a \(backend) config.")
        }
        let file = input.appendingPathComponent(records)
        switch config.backend {
        case .sqlite:
            let path = sqlitePath(config, appName: appName)
            progress("restoring the records into \(path)")
            let manager = FileManager.default
            if manager.fileExists(atPath: path) {
                let kept = path + ".before-restore"
                try? manager.removeItem(atPath: kept)
                // A clean copy of what is there now (its WAL included), then the restored file in its place.
                let current = try DatabaseQueue(path: path)
                let copy = try DatabaseQueue(path: kept)
                try current.backup(to: copy)
                try copy.close()
                try current.close()
            }
            let source = try DatabaseQueue(path: file.path, configuration: { var c = Configuration(); c.readonly = true; return c }())
            let destination = try DatabaseQueue(path: path)
            try source.backup(to: destination)
            try destination.close()
            try source.close()
        case .postgres:
            guard let settings = config.postgres else { throw Failure("backend postgres needs a url.") }
            progress("restoring the records into \(settings.description) (pg_restore)")
            // The dump holds Quire's schema only (pg_dump --schema): restored whole, the schema too —
            // except `public`, which holds the extensions and is never dropped: its own entry is left out.
            var arguments = ["--clean", "--if-exists", "--no-owner", "--single-transaction"]
            if settings.schema == "public" {
                let entries = try output(of: "pg_restore", ["--list", file.path])
                    .split(separator: "\n").filter { !$0.contains(" SCHEMA - public ") && !$0.contains("COMMENT - SCHEMA public ") }
                let list = input.appendingPathComponent(".restore-list")
                try Data(entries.joined(separator: "\n").utf8).write(to: list)
                arguments.append("--use-list=\(list.path)")
            }
            try runPostgresTool("pg_restore", settings, arguments + [file.path])
        case .memory:
            throw Failure("backend memory keeps nothing to restore into.")
        }
        return try copyBlobs(from: input.appendingPathComponent("blobs"), to: URL(fileURLWithPath: config.blobs), progress: progress)
    }

    static func sqlitePath(_ config: StoragePlugin.Config, appName: String) -> String {
        config.path.isEmpty ? "./data/\(appName).sqlite" : config.path
    }

    /// Copies every blob file not already at the destination; answers how many blobs there are.
    static func copyBlobs(from source: URL, to destination: URL, progress: (String) -> Void) throws -> Int {
        let manager = FileManager.default
        try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        guard let walker = manager.enumerator(at: source, includingPropertiesForKeys: [.isRegularFileKey]) else { return 0 }
        var count = 0
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  BlobRef.isValidHash(url.lastPathComponent) else { continue }
            let relative = url.path.dropFirst(source.path.count).drop { $0 == "/" }
            let target = destination.appendingPathComponent(String(relative))
            if !manager.fileExists(atPath: target.path) {
                try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try manager.copyItem(at: url, to: target)
            }
            count += 1
            if count % 500 == 0 { progress("\(count) blobs") }
        }
        progress("\(count) blobs")
        return count
    }

    /// What a PostgreSQL client tool prints, for a command that needs no database (pg_restore --list).
    static func output(of name: String, _ arguments: [String]) throws -> String {
        String(decoding: try run(name, arguments, environment: ProcessInfo.processInfo.environment), as: UTF8.self)
    }

    /// Runs pg_dump or pg_restore against the configured database; the password goes through the
    /// environment, never the command line (which `ps` shows).
    static func runPostgresTool(_ name: String, _ settings: PostgresRecordStore.Settings, _ arguments: [String]) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = settings.password
        environment["PGSSLMODE"] = settings.tls.rawValue
        _ = try run(name, ["--host=\(settings.host)", "--port=\(settings.port)", "--username=\(settings.username)",
                           "--dbname=\(settings.database)", "--no-password"] + arguments, environment: environment)
    }

    /// Runs a PostgreSQL client tool; answers its standard output, or fails with the first lines of
    /// its standard error. (Only one of the two is ever large, so reading them in turn cannot stall.)
    private static func run(_ name: String, _ arguments: [String], environment: [String: String]) throws -> Data {
        guard let tool = ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure("\(name) is not installed; install Debian's postgresql-client.")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = environment
        let (out, errors) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: said, as: UTF8.self).split(separator: "\n").prefix(3).joined(separator: " ")
            throw Failure("\(name) failed (exit \(process.terminationStatus)): \(text)")
        }
        return printed
    }
}
