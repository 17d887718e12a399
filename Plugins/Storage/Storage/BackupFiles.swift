import Crypto
public import Foundation
import StorageAPI

/// The files of one backup: a folder holding `manifest.json`, the records (`records.sqlite` or
/// `records.pgdump`) and `blobs/<aa>/<sha256>`. The manifest lists every other file with its
/// SHA-256, so a restore can check all of them before it touches anything.
public enum BackupFiles {
    /// The manifest's `format`: 2 lists every file's checksum under `files`.
    static let format = 2

    /// A backup's name is the UTC time it was taken, sortable and safe in every file system and
    /// object store: `2025-01-31T235959Z`.
    public static func name(for date: Date) -> String {
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// The time in a backup's name, nil for a name that is not one.
    public static func date(ofName name: String) -> Date? {
        let characters = Array(name)
        guard characters.count == 18, characters[4] == "-", characters[7] == "-", characters[10] == "T", characters[17] == "Z" else { return nil }
        func number(_ from: Int, _ length: Int) -> Int? { Int(String(characters[from..<(from + length)])) }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(13, 2), let second = number(15, 2) else { return nil }
        let parts = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard parts.isValidDate(in: utcCalendar) else { return nil }
        return utcCalendar.date(from: parts)
    }

    static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        calendar.firstWeekday = 2  // ISO weeks start on Monday
        calendar.minimumDaysInFirstWeek = 4
        return calendar
    }()

    /// The SHA-256 of a file, read in 1 MiB pieces, as lowercase hex.
    static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty { hasher.update(data: piece) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Copies `source` to `target`, answering the SHA-256 of what was copied.
    static func copyHashing(_ source: URL, to target: URL) throws -> String {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: target.path, contents: nil) else {
            throw StorageBackup.Failure("Cannot create \(target.path); check that its folder is writable and the disk has room.")
        }
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        var hasher = SHA256()
        while let piece = try input.read(upToCount: 1 << 20), !piece.isEmpty {
            hasher.update(data: piece)
            try output.write(contentsOf: piece)
        }
        try output.synchronize()
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The blob files under `folder` (`<aa>/<sha256>`), as paths relative to it.
    static func blobPaths(in folder: URL) -> [String] {
        let manager = FileManager.default
        guard let walker = manager.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var paths: [String] = []
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  BlobRef.isValidHash(url.lastPathComponent) else { continue }
            paths.append(String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count).drop { $0 == "/" }))
        }
        return paths.sorted()
    }

    /// Copies every blob of `source` into `backup/blobs`. A blob the `previous` backup (same
    /// destination) already has is hard-linked from it, not copied again: a blob's name is its
    /// content's SHA-256, so the same name is the same bytes. Answers each file's checksum by its
    /// path in the backup.
    static func addBlobs(from source: URL, to backup: URL, previous: URL?, progress: (String) -> Void) throws -> [String: String] {
        let manager = FileManager.default
        let blobs = backup.appendingPathComponent("blobs")
        try manager.createDirectory(at: blobs, withIntermediateDirectories: true)
        let earlier = previous.flatMap { try? Manifest.read(from: $0) }?.files ?? [:]
        var sums: [String: String] = [:]
        var (linked, copied) = (0, 0)
        for relative in blobPaths(in: source) {
            let target = blobs.appendingPathComponent(relative)
            let key = "blobs/" + relative
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let previous, let sum = earlier[key], sum == (relative as NSString).lastPathComponent,
               (try? manager.linkItem(at: previous.appendingPathComponent(key), to: target)) != nil {
                sums[key] = sum
                linked += 1
                continue
            }
            let source = source.appendingPathComponent(relative)
            let sum: String
            do {
                sum = try copyHashing(source, to: target)
            } catch where !manager.fileExists(atPath: source.path) {
                // Deleted since it was listed (a record let go of it after the records were copied): not needed.
                try? manager.removeItem(at: target)
                continue
            }
            sums[key] = sum
            copied += 1
            if copied % 500 == 0 { progress("\(copied) blobs copied") }
        }
        progress("blobs: \(copied) copied, \(linked) unchanged (hard-linked from the previous backup)")
        return sums
    }

    /// What `manifest.json` says.
    public struct Manifest: Sendable {
        public var app: String
        public var backend: String
        public var records: String
        public var createdAt: String
        public var blobs: Int
        /// Every other file of the backup by its relative path, with its SHA-256.
        public var files: [String: String]?
        /// The keys sealed into `keys.sealed` (``BackupKeys``), by their settings' names.
        public var keys: [String]? = nil
        /// The keys left out because no backup passphrase was configured.
        public var keysLeftOut: [String]? = nil

        static func read(from folder: URL) throws -> Manifest {
            let url = folder.appendingPathComponent("manifest.json")
            guard let data = try? Data(contentsOf: url),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let backend = object["backend"] as? String, let records = object["records"] as? String else {
                guard FileManager.default.fileExists(atPath: folder.path) else {
                    throw StorageBackup.Failure("There is no \(folder.path); name a folder `quire backup` or a scheduled backup wrote (the admin screen's restore points list them). [not_found]")
                }
                throw StorageBackup.Failure("\(folder.path) is not a Quire backup (no readable manifest.json); name a folder `quire backup` or a scheduled backup wrote. [not_a_backup]")
            }
            return Manifest(app: object["app"] as? String ?? "", backend: backend, records: records,
                            createdAt: object["createdAt"] as? String ?? "", blobs: object["blobs"] as? Int ?? 0,
                            files: object["files"] as? [String: String], keys: object["keys"] as? [String],
                            keysLeftOut: object["keysLeftOut"] as? [String])
        }

        func write(to folder: URL) throws {
            var object: [String: Any] = ["format": BackupFiles.format, "app": app, "backend": backend, "records": records,
                                         "createdAt": createdAt, "blobs": blobs]
            if let files { object["files"] = files }
            if let keys, !keys.isEmpty { object["keys"] = keys }
            if let keysLeftOut, !keysLeftOut.isEmpty { object["keysLeftOut"] = keysLeftOut }
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
                .write(to: folder.appendingPathComponent("manifest.json"), options: .atomic)
        }
    }

    /// Checks every file the manifest lists against its SHA-256, before anything is restored.
    /// - Throws: a sentence naming the first file that is missing or damaged.
    /// With `trusting`, an earlier backup that was verified itself: a file hard-linked from it (the
    /// same file on disk, so the same bytes) is not read again, so checking an incremental backup
    /// reads what it added.
    public static func verify(_ folder: URL, trusting previous: URL? = nil, progress: (String) -> Void) throws -> Manifest {
        let manifest = try Manifest.read(from: folder)
        guard let files = manifest.files else {
            throw StorageBackup.Failure("\(folder.path)/manifest.json lists no checksums (a backup made before Quire kept them), so it cannot be checked; take a new backup with this version.")
        }
        guard files[manifest.records] != nil else {
            throw StorageBackup.Failure("\(folder.path)/manifest.json gives no checksum for the records file \(manifest.records); the backup is damaged, use another one.")
        }
        var checked = 0
        let trusted = previous.flatMap { verifiedAt($0) == nil ? nil : $0 }
        for (path, expected) in files.sorted(by: { $0.key < $1.key }) {
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                throw StorageBackup.Failure("The backup's manifest names \(path), outside the backup; it is damaged or not Quire's, use another one.")
            }
            let url = folder.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw StorageBackup.Failure("The backup is damaged: \(path) is missing from \(folder.path); nothing was changed. Restore from another backup.")
            }
            if let trusted, let inode = fileNumber(url), inode == fileNumber(trusted.appendingPathComponent(path)) {
                checked += 1
                continue
            }
            let found = try sha256(of: url)
            guard found == expected else {
                throw StorageBackup.Failure("The backup is damaged: \(path) does not match its SHA-256 in manifest.json (expected \(expected.prefix(12))…, found \(found.prefix(12))…); nothing was changed. Restore from another backup.")
            }
            checked += 1
            if checked % 500 == 0 { progress("\(checked) of \(files.count) files checked") }
        }
        progress("all \(files.count) files match their checksums")
        return manifest
    }

    /// The file's inode (same on a hard link), nil when it cannot be read.
    static func fileNumber(_ url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.systemFileNumber] as? Int
    }

    /// The file a backup folder gets once every file of it was read back and matched its checksum
    /// (not listed in the manifest: a restore does not need it).
    static let verifiedFile = "verified.json"

    /// Checks a backup just written (``verify(_:trusting:progress:)``) and notes in it that it was.
    static func verifyAndMark(_ folder: URL, trusting previous: URL?, at now: Date = StoreTime.now()) throws {
        let manifest = try verify(folder, trusting: previous) { _ in }
        let object: [String: Any] = ["verifiedAt": ISO8601DateFormatter().string(from: now), "files": manifest.files?.count ?? 0]
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: folder.appendingPathComponent(verifiedFile), options: .atomic)
    }

    /// When the backup in `folder` was verified after it was written; nil when it was not (or before Quire noted it).
    static func verifiedAt(_ folder: URL) -> Date? {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent(verifiedFile)),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let text = object["verifiedAt"] as? String else { return nil }
        return ISO8601DateFormatter().date(from: text)
    }

    /// A backup's size: every file its manifest lists, the manifest, and how many files; with
    /// `previous` (the backup before it in the same folder), the bytes of the files that one did
    /// not have with the same checksum (what this one added).
    static func measure(_ folder: URL, previous: URL? = nil) throws -> (bytes: Int, files: Int, newBytes: Int) {
        let manifest = try Manifest.read(from: folder)
        let earlier = previous.flatMap { try? Manifest.read(from: $0) }?.files ?? [:]
        var bytes = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("manifest.json").path))?[.size] as? Int ?? 0
        var added = bytes
        let files = manifest.files ?? [:]
        for (path, sum) in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(path).path))?[.size] as? Int ?? 0
            bytes += size
            if earlier[path] != sum { added += size }
        }
        return (bytes, files.count + 1, added)
    }

    /// The newest backup in a folder of scheduled backups, nil when it holds none.
    public static func newest(in folder: URL) -> URL? { list(in: folder).last.map { folder.appendingPathComponent($0) } }

    /// The backups in a local destination folder, oldest first (each a folder with a backup's name).
    static func list(in folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { date(ofName: $0) != nil && FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).appendingPathComponent("manifest.json").path) }
            .sorted()
    }
}
