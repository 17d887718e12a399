import AppConfig
import Foundation
@testable import Storage
import StorageSQLite
import Testing

/// The server's keys in a backup: sealed with a passphrase (scrypt, AES-256-GCM), opened only
/// with it, refused when a byte changed; and a backup's keys put back by a restore elsewhere.
@Suite("Sealed keys in backups")
struct SealedKeysTests {
    /// A cheap scrypt for tests (the cost is read back from the header, so opening needs nothing else).
    static let cheap = SealedKeys.Cost(n: 1 << 10, r: 8, p: 1)
    static let entries = [
        SealedKeys.Entry(name: "auth.secret_file", relative: "", content: Data("token-signing-key-0123456789".utf8)),
        SealedKeys.Entry(name: "server.tls.dir", relative: "quire-ca.key", content: Data((0..<200).map { UInt8($0) })),
    ]

    @Test("what is sealed opens with the passphrase, as it was; the keys' bytes are not in the file")
    func roundTrip() throws {
        let sealed = try SealedKeys.seal(Self.entries, passphrase: "correct horse battery staple", cost: Self.cheap)
        #expect(try SealedKeys.open(sealed, passphrase: "correct horse battery staple") == Self.entries)
        #expect(sealed.range(of: Data("token-signing-key".utf8)) == nil)
        let again = try SealedKeys.seal(Self.entries, passphrase: "correct horse battery staple", cost: Self.cheap)
        #expect(again != sealed, "a new salt and nonce each time")
        #expect(String(decoding: sealed, as: UTF8.self).contains(#""n":1024"#))
        // The standard cost opens too (what backups use).
        let standard = try SealedKeys.seal(Self.entries, passphrase: "correct horse battery staple")
        #expect(try SealedKeys.open(standard, passphrase: "correct horse battery staple") == Self.entries)
    }

    @Test("a wrong passphrase is told as such")
    func wrongPassphrase() throws {
        let sealed = try SealedKeys.seal(Self.entries, passphrase: "correct horse battery staple", cost: Self.cheap)
        #expect(throws: SealedKeys.Failure.wrongPassphrase) { try SealedKeys.open(sealed, passphrase: "correct horse battery stapler") }
        #expect(throws: SealedKeys.Failure.wrongPassphrase) { try SealedKeys.open(sealed, passphrase: "") }
    }

    @Test("any byte changed, in the header or the box, is refused; nothing opens")
    func tamperedByte() throws {
        let sealed = try SealedKeys.seal(Self.entries, passphrase: "correct horse battery staple", cost: Self.cheap)
        let text = String(decoding: sealed, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // The box: flip a bit of a decoded byte and encode again (a valid base64 of other bytes).
        guard let box = Data(base64Encoded: String(lines[2])) else { Issue.record("no box"); return }
        for index in [0, 12, box.count / 2, box.count - 1] {  // the nonce, the ciphertext, the tag
            var changed = box
            changed[index] ^= 0x01
            let file = Data((lines[0] + "\n" + lines[1] + "\n" + changed.base64EncodedString() + "\n").utf8)
            #expect {
                try SealedKeys.open(file, passphrase: "correct horse battery staple")
            } throws: { error in
                if case .damaged = error as? SealedKeys.Failure { return true }
                return false
            }
        }
        // The header: its salt or cost changed (authenticated data) is refused, never opened.
        for (from, to) in [(#""n":1024"#, #""n":2048"#), (#""aead":"AES-256-GCM""#, #""aead":"AES-128-GCM""#)] {
            let file = Data(text.replacingOccurrences(of: from, with: to).utf8)
            #expect(throws: (any Error).self) { try SealedKeys.open(file, passphrase: "correct horse battery staple") }
        }
        // Every single byte of the file flipped in turn: never opens to the same keys silently.
        var opened = 0
        for index in stride(from: 0, to: sealed.count, by: 7) {
            var changed = sealed
            changed[index] ^= 0x20
            if let keys = try? SealedKeys.open(changed, passphrase: "correct horse battery staple"), keys == Self.entries { opened += 1 }
        }
        #expect(opened == 0)
    }

    @Test("a backup with a passphrase holds the keys; a restore elsewhere puts them back; without it or with a wrong one, says so")
    func backupAndRestoreKeys() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("quire-sealed-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func keyFiles(in folder: URL) -> [KeyFile] {
            [KeyFile(name: "auth.secret_file", path: folder.appendingPathComponent("app.auth-secret").path, isFolder: false, without: "everyone signs in again"),
             KeyFile(name: "server.tls.dir", path: folder.appendingPathComponent("tls").path, isFolder: true, without: "phones trust a new CA")]
        }
        let a = root.appendingPathComponent("a")
        try FileManager.default.createDirectory(at: a.appendingPathComponent("tls"), withIntermediateDirectories: true)
        try SQLiteRecordStore(path: a.appendingPathComponent("app.sqlite").path).close()
        try Data("secret of A".utf8).write(to: a.appendingPathComponent("app.auth-secret"))
        try Data("CA key of A".utf8).write(to: a.appendingPathComponent("tls/quire-ca.key"))
        var config = StoragePlugin.Config(backend: .sqlite, path: a.appendingPathComponent("app.sqlite").path, postgres: nil,
                                          blobs: a.appendingPathComponent("blobs").path, durability: .normal, maxBlobBytes: 1 << 20,
                                          blobGrace: 0, blobSweep: .seconds(60), retention: 0, history: true, compactEvery: .seconds(60))
        config.keyFiles = keyFiles(in: a)
        let sealedBackup = root.appendingPathComponent("sealed")
        var said: [String] = []
        _ = try StorageBackup.backup(config, appName: "app", to: sealedBackup, passphrase: "a long passphrase") { said.append($0) }
        #expect(try BackupFiles.verify(sealedBackup) { _ in }.keys == ["auth.secret_file", "server.tls.dir"])
        #expect(!said.joined().contains("secret of A"), "no key in what a backup says")
        let plain = root.appendingPathComponent("plain")
        _ = try StorageBackup.backup(config, appName: "app", to: plain) { _ in }
        #expect(!FileManager.default.fileExists(atPath: plain.appendingPathComponent("keys.sealed").path))

        let b = root.appendingPathComponent("b")
        let restored = BackupKeys.restore(from: sealedBackup, into: keyFiles(in: b), passphrase: "a long passphrase") { _ in }
        #expect(restored.refusal == nil && restored.restored.count == 2)
        #expect(try Data(contentsOf: b.appendingPathComponent("app.auth-secret")) == Data("secret of A".utf8))
        #expect(try Data(contentsOf: b.appendingPathComponent("tls/quire-ca.key")) == Data("CA key of A".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: b.appendingPathComponent("app.auth-secret").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let c = root.appendingPathComponent("c")
        let wrong = BackupKeys.restore(from: sealedBackup, into: keyFiles(in: c), passphrase: "another passphrase") { _ in }
        #expect(wrong.refusal?.contains("[unauthenticated: wrong_passphrase]") == true && wrong.notRestored.count == 2)
        #expect(wrong.notRestored.contains { $0.contains("everyone signs in again") })
        #expect(!FileManager.default.fileExists(atPath: c.appendingPathComponent("app.auth-secret").path))
        let none = BackupKeys.restore(from: sealedBackup, into: keyFiles(in: c), passphrase: nil) { _ in }
        #expect(none.refusal?.contains("[unauthenticated: no_passphrase]") == true)
        let old = BackupKeys.restore(from: plain, into: keyFiles(in: c), passphrase: "a long passphrase") { _ in }
        #expect(old.refusal == nil && old.noneInBackup?.contains("without a backup passphrase") == true && old.notRestored.count == 2)
    }
}
