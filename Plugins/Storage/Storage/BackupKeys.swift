public import AppConfig
public import Foundation

/// The server's keys in a backup and back: read from where the config keeps them (``KeyFile``),
/// sealed with the operator's passphrase into `keys.sealed` (``SealedKeys``), and put back by
/// `quire restore` where the restoring config keeps them. No key's bytes are ever logged or said;
/// only the settings' names and the paths.
public enum BackupKeys {
    /// The file in a backup folder (listed in the manifest with its checksum like every other).
    static let fileName = "keys.sealed"
    /// A key file larger than this is not a key (a folder holding something else): left out.
    static let maxFileBytes = 1 << 20

    /// The passphrase in `file`: its first line, without surrounding whitespace.
    /// - Throws: a sentence saying what is wrong with the file.
    public static func passphrase(file: String) throws -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw StorageBackup.Failure("cannot read the backup passphrase file \(file); check that it exists and that this user may read it")
        }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        try check(line, from: file)
        return line
    }

    /// A passphrase is at least 12 characters.
    static func check(_ passphrase: String, from source: String) throws {
        guard passphrase.count >= 12 else {
            throw StorageBackup.Failure("the backup passphrase in \(source) is shorter than 12 characters; use a long random one (quire deploy writes one: 43 characters)")
        }
    }

    /// Every key file that exists now, as entries to seal; and the names of those not there (not made yet).
    static func collect(_ files: [KeyFile]) -> (entries: [SealedKeys.Entry], absent: [String]) {
        var entries: [SealedKeys.Entry] = []
        var absent: [String] = []
        let manager = FileManager.default
        for file in files {
            if file.isFolder {
                let root = URL(fileURLWithPath: file.path).standardizedFileURL
                var found = 0
                if let walker = manager.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey, .fileSizeKey]) {
                    for case let url as URL in walker {
                        guard let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey, .fileSizeKey]),
                              values.isRegularFile == true, values.isSymbolicLink != true, (values.fileSize ?? 0) <= maxFileBytes,
                              let content = try? Data(contentsOf: url) else { continue }
                        let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count).drop { $0 == "/" })
                        entries.append(.init(name: file.name, relative: relative, content: content))
                        found += 1
                    }
                }
                if found == 0 { absent.append(file.name) }
            } else if let content = try? Data(contentsOf: URL(fileURLWithPath: file.path)), content.count <= maxFileBytes {
                entries.append(.init(name: file.name, relative: "", content: content))
            } else {
                absent.append(file.name)
            }
        }
        return (entries.sorted { ($0.name, $0.relative) < ($1.name, $1.relative) }, absent)
    }

    /// What a backup was given about keys: which it sealed, which it left out for want of a passphrase.
    struct Written {
        var sealed: [String] = []
        var leftOut: [String] = []
        var checksum: String?
    }

    /// Seals the key files into `folder/keys.sealed` with `passphrase`; without one, notes which
    /// were left out. Says what it did through `progress` (names, never contents).
    static func write(_ files: [KeyFile], passphrase: String?, into folder: URL, progress: (String) -> Void) throws -> Written {
        let (entries, absent) = collect(files)
        let names = Array(Set(entries.map(\.name))).sorted()
        guard !names.isEmpty else { return Written() }
        if !absent.isEmpty { progress("keys not made yet, so not in the backup: \(absent.joined(separator: ", "))") }
        guard let passphrase else {
            progress("keys left out (no storage.backup.passphrase): \(names.joined(separator: ", "))")
            return Written(leftOut: names)
        }
        progress("sealing the keys with the backup passphrase (scrypt, AES-256-GCM): \(names.joined(separator: ", "))")
        let url = folder.appendingPathComponent(fileName)
        try SealedKeys.seal(entries, passphrase: passphrase).write(to: url, options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return Written(sealed: names, checksum: try BackupFiles.sha256(of: url))
    }

    /// What `quire restore` did with a backup's keys.
    public struct Outcome: Sendable {
        /// Each key put back, with where.
        public var restored: [String] = []
        /// Keys already in place with the same bytes.
        public var unchanged: [String] = []
        /// Each key not put back, with what that means.
        public var notRestored: [String] = []
        /// A sentence ending in a code (`[unauthenticated: no_passphrase]`, `[unauthenticated: wrong_passphrase]`,
        /// `[invalid: keys_damaged]`) when the backup's keys could not be opened; nil otherwise.
        public var refusal: String?
        /// The backup holds no keys because none was sealed (taken without a passphrase, or before Quire sealed them).
        public var noneInBackup: String?
    }

    /// Puts the keys of the backup in `folder` back where `files` (the restoring config's) keep
    /// them. A key file there with other bytes is kept beside it as `<file>.before-restore`.
    public static func restore(from folder: URL, into files: [KeyFile], passphrase: String?, progress: (String) -> Void) -> Outcome {
        var outcome = Outcome()
        let manifest = try? BackupFiles.Manifest.read(from: folder)
        let sealed = manifest?.keys ?? []
        func lost(_ names: [String]) -> [String] {
            names.map { name in "\(name): " + (files.first { $0.name == name }?.without ?? "not used by this config") }
        }
        guard !sealed.isEmpty, FileManager.default.fileExists(atPath: folder.appendingPathComponent(fileName).path) else {
            let leftOut = manifest?.keysLeftOut ?? []
            if !files.isEmpty {
                outcome.noneInBackup = leftOut.isEmpty
                    ? "This backup holds no keys (taken before Quire sealed them into backups, or with none made yet)."
                    : "This backup holds no keys: it was taken without a backup passphrase (storage.backup.passphrase or passphrase_file), so \(leftOut.joined(separator: ", ")) stayed out."
                outcome.notRestored = lost(files.map(\.name))
            }
            return outcome
        }
        guard let passphrase else {
            outcome.refusal = "The backup's keys (\(sealed.joined(separator: ", "))) are sealed with a passphrase and none was given, so they were not restored; "
                + "run quire restore again with --passphrase-file FILE (or storage.backup.passphrase_file / passphrase in the YAML) to put them back. [unauthenticated: no_passphrase]"
            outcome.notRestored = lost(sealed)
            return outcome
        }
        let entries: [SealedKeys.Entry]
        do {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(fileName)) else { throw SealedKeys.Failure.damaged("it cannot be read") }
            entries = try SealedKeys.open(data, passphrase: passphrase)
        } catch SealedKeys.Failure.wrongPassphrase {
            outcome.refusal = "The passphrase given does not open the backup's keys (\(sealed.joined(separator: ", "))), so they were not restored; "
                + "find the passphrase the server had when the backup was taken (quire deploy wrote it to /etc/quire/quire-<app>.backup-passphrase) and run quire restore again with it. [unauthenticated: wrong_passphrase]"
            outcome.notRestored = lost(sealed)
            return outcome
        } catch {
            outcome.refusal = "The backup's keys could not be opened: \(error); they were not restored. Restore them from another backup. [invalid: keys_damaged]"
            outcome.notRestored = lost(sealed)
            return outcome
        }
        var notPlaced: Set<String> = []
        for name in Array(Set(entries.map(\.name))).sorted() {
            guard let place = files.first(where: { $0.name == name }) else {
                notPlaced.insert(name)
                continue
            }
            var changed = false
            do {
                for entry in entries where entry.name == name {
                    guard !entry.relative.hasPrefix("/"), !entry.relative.split(separator: "/").contains("..") else {
                        throw StorageBackup.Failure("it names \(entry.relative), outside its folder")
                    }
                    let target = entry.relative.isEmpty ? URL(fileURLWithPath: place.path)
                        : URL(fileURLWithPath: place.path).appendingPathComponent(entry.relative)
                    if try put(entry.content, at: target) { changed = true }
                }
                if changed {
                    outcome.restored.append("\(name) → \(place.path)")
                    progress("key restored: \(name) → \(place.path)")
                } else {
                    outcome.unchanged.append("\(name) (\(place.path))")
                }
            } catch {
                outcome.notRestored.append("\(name): could not be written to \(place.path) (\(error)); \(place.without)")
            }
        }
        for name in notPlaced.sorted() {
            outcome.notRestored.append("\(name): this config does not use it (the backup's app had it), so it was left out")
        }
        return outcome
    }

    /// Writes `content` at `target` (0600, its folders 0700) unless it is there already; a
    /// different file there is kept as `<file>.before-restore`. Answers whether it wrote.
    static func put(_ content: Data, at target: URL) throws -> Bool {
        let manager = FileManager.default
        if let existing = try? Data(contentsOf: target), existing == content { return false }
        try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
                                    attributes: [.posixPermissions: 0o700])
        if manager.fileExists(atPath: target.path) {
            let aside = target.path + ".before-restore"
            try? manager.removeItem(atPath: aside)
            try manager.moveItem(atPath: target.path, toPath: aside)
        }
        guard manager.createFile(atPath: target.path, contents: content, attributes: [.posixPermissions: 0o600]) else {
            throw StorageBackup.Failure("cannot create \(target.path); check that its folder is writable")
        }
        return true
    }
}
