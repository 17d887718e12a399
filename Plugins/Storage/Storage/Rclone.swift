import Foundation

/// Off-site copies through the `rclone` command (Debian's `rclone`): a destination written
/// `rclone:REMOTE:PATH` in `storage.backup.to`, with the rclone config file `rclone_config` names
/// (its credentials stay in that file: never on a command line, never in a log).
public struct Rclone: Sendable {
    /// `REMOTE:PATH`, the part after `rclone:`.
    public let remote: String
    public let configFile: String

    public init(remote: String, configFile: String) {
        self.remote = remote
        self.configFile = configFile
    }

    /// The destination for a `to:` entry, nil when it is a folder.
    public static func destination(_ entry: String, configFile: String?) -> Rclone? {
        guard entry.hasPrefix("rclone:") else { return nil }
        return Rclone(remote: String(entry.dropFirst("rclone:".count)), configFile: configFile ?? "")
    }

    func path(_ name: String) -> String { remote.hasSuffix(":") || remote.hasSuffix("/") ? remote + name : remote + "/" + name }

    /// Uploads the backup folder `local` as `REMOTE:PATH/<name>`. Files the `previous` backup there
    /// already has (same size and checksum) are copied on the server's side (`--copy-dest`), not
    /// uploaded again; each upload is checked against its checksum.
    func upload(_ local: URL, name: String, previous: String?) throws {
        var arguments = ["copy", local.path, path(name), "--checksum"]
        if let previous { arguments += ["--copy-dest", path(previous)] }
        _ = try run(arguments)
    }

    /// The backups under `REMOTE:PATH`, oldest first.
    func list() throws -> [String] {
        let listed = try run(["lsf", "--dirs-only", remote])
        return listed.split(separator: "\n").map { $0.hasSuffix("/") ? String($0.dropLast()) : String($0) }
            .filter { BackupFiles.date(ofName: $0) != nil }.sorted()
    }

    /// The backup `name` under `REMOTE:PATH`, as `quire restore --from` takes it.
    func location(_ name: String) -> String { "rclone:" + path(name) }

    /// Every backup's size under `REMOTE:PATH` in one listing (`rclone lsjson -R`): its bytes, its
    /// files, and when its `verified.json` was written (uploaded with it once checked), by name.
    func sizes() throws -> [String: (bytes: Int, files: Int, verifiedAt: Date?)] {
        let listed = try run(["lsjson", "-R", "--files-only", "--no-mimetype", remote])
        guard let entries = try? JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]] else {
            throw StorageBackup.Failure("rclone lsjson of rclone:\(remote) answered something that is not its JSON listing; check the rclone version (Debian's rclone).")
        }
        var found: [String: (bytes: Int, files: Int, verifiedAt: Date?)] = [:]
        for entry in entries {
            guard let path = entry["Path"] as? String, let slash = path.firstIndex(of: "/") else { continue }
            let name = String(path[..<slash])
            guard BackupFiles.date(ofName: name) != nil else { continue }
            var sizes = found[name] ?? (0, 0, nil)
            sizes.bytes += (entry["Size"] as? Int) ?? 0
            sizes.files += 1
            if path[path.index(after: slash)...] == BackupFiles.verifiedFile {
                sizes.verifiedAt = (entry["ModTime"] as? String).flatMap(Self.date) ?? BackupFiles.date(ofName: name)
            }
            found[name] = sizes
        }
        return found
    }

    /// RFC 3339 as rclone writes it (nanoseconds, an offset), to the second.
    static func date(_ text: String) -> Date? {
        var text = text
        if let dot = text.firstIndex(of: "."),
           let end = text[dot...].firstIndex(where: { $0 == "Z" || $0 == "+" || $0 == "-" }) {
            text.removeSubrange(dot..<end)
        }
        return ISO8601DateFormatter().date(from: text)
    }

    /// Deletes the backup `name` under `REMOTE:PATH`.
    func delete(_ name: String) throws { _ = try run(["purge", path(name)]) }

    /// Whether `REMOTE:PATH` itself holds a backup (a `manifest.json`).
    func holdsBackup() -> Bool { ((try? run(["lsf", remote + (remote.hasSuffix(":") ? "" : "/") + "manifest.json"])) ?? "").contains("manifest.json") }

    /// nil when `REMOTE:PATH` is one backup itself, else the name of the newest backup under it.
    public func newestOrSelf() throws -> String? {
        if holdsBackup() { return nil }
        guard let newest = try list().last else {
            throw StorageBackup.Failure("rclone:\(remote) holds no Quire backup (no manifest.json, no backup folders); check the path.")
        }
        return newest
    }

    /// Copies `REMOTE:PATH[/name]` down into the local folder `local`.
    public func download(name: String?, to local: URL) throws {
        _ = try run(["copy", name.map(path) ?? remote, local.path, "--checksum"])
    }

    /// Runs rclone with the config file; answers its standard output or fails with one sentence.
    private func run(_ arguments: [String]) throws -> String {
        guard let tool = ["/usr/bin/rclone", "/usr/local/bin/rclone"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw StorageBackup.Failure("rclone is not installed; install Debian's rclone (tools/setup does) to copy backups to rclone:\(remote).")
        }
        guard !configFile.isEmpty else {
            throw StorageBackup.Failure("rclone:\(remote) needs an rclone config: set storage.backup.rclone_config to its file.")
        }
        guard FileManager.default.isReadableFile(atPath: configFile) else {
            throw StorageBackup.Failure("The rclone config \(configFile) cannot be read; check storage.backup.rclone_config and the file's permissions.")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--config", configFile, "--retries", "2", "--low-level-retries", "3"] + arguments
        let (out, errors) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both at once: either may fill its pipe while the other is being read.
        let said = ErrorsBox()
        let reader = Thread { said.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = said.wait()
        guard process.terminationStatus == 0 else {
            let lines = String(decoding: errorText, as: UTF8.self).split(separator: "\n")
                .filter { $0.contains("ERROR") || $0.contains("Failed") || $0.contains("error") }
            let text = (lines.isEmpty ? String(decoding: errorText, as: UTF8.self).split(separator: "\n") : lines).prefix(2).joined(separator: " ")
            throw StorageBackup.Failure("rclone \(arguments.first ?? "") to rclone:\(remote) failed (exit \(process.terminationStatus)): \(text)")
        }
        return String(decoding: printed, as: UTF8.self)
    }
}

/// Standard error read on a thread of its own, handed over once it ends.
private final class ErrorsBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?
    func set(_ value: Data) {
        condition.lock()
        data = value
        condition.signal()
        condition.unlock()
    }
    func wait() -> Data {
        condition.lock()
        defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data ?? Data()
    }
}
