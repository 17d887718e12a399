public import Foundation
import StorageAPI
import StoragePostgres
import StorageSQLite

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
            try SQLiteBackend.backup(path: path, to: partial.appendingPathComponent(records))
        case .postgres:
            guard let settings = config.postgres else { throw Failure("backend postgres needs a url.") }
            records = "records.pgdump"
            progress("copying the records from \(settings.description) (pg_dump)")
            try PostgresBackup.dump(settings, to: partial.appendingPathComponent(records))
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
            try SQLiteBackend.restore(file, into: path)
        case .postgres:
            guard let settings = config.postgres else { throw Failure("backend postgres needs a url.") }
            progress("restoring the records into \(settings.description) (pg_restore)")
            try PostgresBackup.restore(file, into: settings, scratch: input.appendingPathComponent(".restore-list"))
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
}
