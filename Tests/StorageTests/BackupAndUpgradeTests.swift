import Foundation
import GRDB
import Logging
@testable import Storage
import StorageAPI
@testable import StoragePostgres
@testable import StorageSQLite
import Testing

/// Retention (restic's `forget --keep-*` rules over a fake clock: backup names are their times),
/// a damaged backup refused by name, and SQLite upgrades: a database of an older schema copied
/// before it is migrated (the copy holds exactly the old database), a newer one refused.
@Suite("Backups and upgrades")
struct BackupAndUpgradeTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-backup-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("names are UTC times and back")
    func names() throws {
        let date = Date(timeIntervalSince1970: 1_738_367_999)  // 2025-01-31 23:59:59 UTC
        #expect(BackupFiles.name(for: date) == "2025-01-31T235959Z")
        #expect(BackupFiles.date(ofName: "2025-01-31T235959Z") == date)
        #expect(BackupFiles.date(ofName: "2025-02-30T000000Z") == nil)
        #expect(BackupFiles.date(ofName: "notes") == nil)
    }

    @Test("retention keeps the newest of each of the last days, weeks and months, and the last N")
    func retention() {
        // Backups at 06:00 and 18:00 every day of 2025 up to Sunday 16 March, then three today.
        var names: [String] = []
        let start = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01 00:00 UTC
        for day in 0..<75 {
            for hour in [6, 18] { names.append(BackupFiles.name(for: start.addingTimeInterval(Double(day * 86_400 + hour * 3600)))) }
        }
        let kept = BackupRetention(last: 2, daily: 3, weekly: 2, monthly: 3).keep(names)
        #expect(kept == [
            "2025-03-16T180000Z", "2025-03-16T060000Z",  // last 2
            "2025-03-15T180000Z", "2025-03-14T180000Z",  // daily 3 (with the 16th)
            "2025-03-09T180000Z",  // weekly 2: the week before's Sunday (with this week's newest)
            "2025-02-28T180000Z", "2025-01-31T180000Z",  // monthly 3: the last of February and of January (with March's)
        ])
        #expect(BackupRetention(last: 0, daily: 0, weekly: 0, monthly: 0).keep(names) == ["2025-03-16T180000Z"], "the newest always stays")
        #expect(BackupRetention().keep(["junk", "2025-03-16T180000Z"]).contains("junk"), "what is not a backup's name is never deleted")
    }

    @Test("a backup's checksums are checked, and a damaged file is named")
    func damagedBackupRefused() throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        let store = try SQLiteRecordStore(path: data.appendingPathComponent("app.sqlite").path)
        try store.close()
        let blob = Data("a photo".utf8)
        let sha = BlobRef.of(blob).sha256
        let blobs = data.appendingPathComponent("blobs/\(sha.prefix(2))")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        try blob.write(to: blobs.appendingPathComponent(sha))
        let config = StoragePlugin.Config(backend: .sqlite, path: data.appendingPathComponent("app.sqlite").path, postgres: nil,
                                          blobs: data.appendingPathComponent("blobs").path, durability: .normal, maxBlobBytes: 1 << 20,
                                          blobGrace: 0, blobSweep: .seconds(60), retention: 0, history: true, compactEvery: .seconds(60))
        let first = root.appendingPathComponent("b1")
        _ = try StorageBackup.backup(config, appName: "app", to: first) { _ in }
        let second = root.appendingPathComponent("b2")
        _ = try StorageBackup.backup(config, appName: "app", to: second, previous: first) { _ in }
        let key = "blobs/\(sha.prefix(2))/\(sha)"
        let inode = { (url: URL) in try FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(key).path)[.systemFileNumber] as? Int }
        #expect(try inode(first) == inode(second), "an unchanged blob is hard-linked from the backup before")
        _ = try BackupFiles.verify(second) { _ in }
        // Damage a copy (not the shared, hard-linked file).
        let damaged = root.appendingPathComponent("damaged")
        try FileManager.default.copyItem(at: second, to: damaged)
        try FileManager.default.removeItem(at: damaged.appendingPathComponent(key))
        try Data("a photX".utf8).write(to: damaged.appendingPathComponent(key))
        #expect {
            try BackupFiles.verify(damaged) { _ in }
        } throws: { error in
            "\(error)".contains(key) && "\(error)".contains("damaged")
        }
    }

    @Test("a backup taken now is read back against its checksums and marked verified; its size and what it added are measured; the restore points list it with its command")
    func backUpNowAndRestorePoints() async throws {
        let root = try Self.folder().appendingPathComponent("with space")
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        let data = root.appendingPathComponent("data")
        let store = try SQLiteRecordStore(path: data.appendingPathComponent("app.sqlite").path)
        try store.close()
        let blob = Data(repeating: 7, count: 5000)
        let sha = BlobRef.of(blob).sha256
        let blobs = data.appendingPathComponent("blobs/\(sha.prefix(2))")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        try blob.write(to: blobs.appendingPathComponent(sha))
        let folder = root.appendingPathComponent("backups")
        // One made before Quire verified backups: listed, not verified.
        let old = folder.appendingPathComponent("2025-01-31T235959Z")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        try Data(#"{"format":2,"backend":"sqlite","records":"records.sqlite","files":{}}"#.utf8).write(to: old.appendingPathComponent("manifest.json"))
        var config = StoragePlugin.Config(backend: .sqlite, path: data.appendingPathComponent("app.sqlite").path, postgres: nil,
                                          blobs: data.appendingPathComponent("blobs").path, durability: .normal, maxBlobBytes: 1 << 20,
                                          blobGrace: 0, blobSweep: .seconds(60), retention: 0, history: true, compactEvery: .seconds(60))
        let schedule = BackupSchedule(every: .seconds(86_400), keep: BackupRetention(last: 10), destinations: [folder.path],
                                      rcloneConfig: nil, staging: root.appendingPathComponent("staging").path)
        config.backup = schedule
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let scheduler = BackupScheduler(schedule: schedule, storage: config, appName: "app", logger: logger, collectors: CollectorBox())
        let now = Date()
        let started = try scheduler.start(requestedBy: "acc_test", now: now)
        #expect(started.running && started.lastRun?.state == .running && started.lastRun?.trigger == "operator")
        #expect(await scheduler.backUpNow(now: now), "a scheduled run that comes due meanwhile waits for the running one and counts it")
        let first = try #require(scheduler.status.lastRun)
        #expect(first.state == .succeeded && first.name == BackupFiles.name(for: now) && scheduler.status.succeeded == 1, "one backup, not two")
        #expect(first.written == [folder.appendingPathComponent(first.name).path])
        let manifestBytes = try #require(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("\(first.name)/manifest.json").path)[.size] as? Int)
        #expect((first.bytes ?? 0) > 5000 + manifestBytes && first.files == 3, "the records, the blob, the manifest: \(first)")
        #expect(first.newBytes == first.bytes, "the first holds only new files")
        #expect(BackupFiles.verifiedAt(folder.appendingPathComponent(first.name)) != nil)

        #expect(await scheduler.backUpNow(now: now), "taken in the same second, it gets the next second's name")
        let second = try #require(scheduler.status.lastRun)
        #expect(second.name == BackupFiles.name(for: now.addingTimeInterval(1)) && second.state == .succeeded)
        #expect((second.newBytes ?? .max) < (second.bytes ?? 0) - 5000, "the unchanged blob is not counted as added: \(second)")

        let points = scheduler.restorePoints()
        #expect(points.enabled && points.unreadable.isEmpty)
        #expect(points.points.map(\.name) == [second.name, first.name, "2025-01-31T235959Z"])
        #expect(points.points.map(\.verified) == [true, true, false])
        let newest = try #require(points.points.first)
        #expect(newest.kind == "folder" && newest.to == folder.path && newest.bytes == second.bytes)
        #expect(newest.restoreCommand.hasSuffix("--from '\(folder.path)/\(second.name)'"), "a path with a space is quoted: \(newest.restoreCommand)")
    }

    @Test("a missed backup is said after a failing destination's reason, never instead of it (the operator's panel reads this)")
    func missedKeepsTheFailure() async throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        let store = try SQLiteRecordStore(path: data.appendingPathComponent("app.sqlite").path)
        try store.close()
        let good = root.appendingPathComponent("backups")
        let file = root.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: file)
        var config = StoragePlugin.Config(backend: .sqlite, path: data.appendingPathComponent("app.sqlite").path, postgres: nil,
                                          blobs: data.appendingPathComponent("blobs").path, durability: .normal, maxBlobBytes: 1 << 20,
                                          blobGrace: 0, blobSweep: .seconds(60), retention: 0, history: true, compactEvery: .seconds(60))
        let schedule = BackupSchedule(every: .seconds(2), keep: BackupRetention(last: 10),
                                      destinations: [good.path, file.appendingPathComponent("backups").path],
                                      rcloneConfig: nil, staging: root.appendingPathComponent("staging").path)
        config.backup = schedule
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let scheduler = BackupScheduler(schedule: schedule, storage: config, appName: "app", logger: logger, collectors: CollectorBox())
        _ = await scheduler.backUpNow(now: Date())
        let failed = try #require(scheduler.status.lastFailureReason)
        #expect(failed.contains("could not be written"), "\(failed)")
        scheduler.missed(1, at: Date(), because: "the backup before took longer than `every` (2 s).")
        let reason = try #require(scheduler.status.lastFailureReason)
        #expect(reason.contains("could not be written") && reason.contains("1 scheduled backup was missed"), "\(reason)")
    }

    @Test("a backup whose file does not read back as written is refused by the check, and one hard-linked from a verified backup is not read again")
    func verifyTrusting() throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data")
        try SQLiteRecordStore(path: data.appendingPathComponent("app.sqlite").path).close()
        let blob = Data("a photo".utf8)
        let sha = BlobRef.of(blob).sha256
        let blobs = data.appendingPathComponent("blobs/\(sha.prefix(2))")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        try blob.write(to: blobs.appendingPathComponent(sha))
        let config = StoragePlugin.Config(backend: .sqlite, path: data.appendingPathComponent("app.sqlite").path, postgres: nil,
                                          blobs: data.appendingPathComponent("blobs").path, durability: .normal, maxBlobBytes: 1 << 20,
                                          blobGrace: 0, blobSweep: .seconds(60), retention: 0, history: true, compactEvery: .seconds(60))
        let first = root.appendingPathComponent("b1")
        _ = try StorageBackup.backup(config, appName: "app", to: first) { _ in }
        try BackupFiles.verifyAndMark(first, trusting: nil)
        let second = root.appendingPathComponent("b2")
        _ = try StorageBackup.backup(config, appName: "app", to: second, previous: first) { _ in }
        // The records file of the second is damaged after it was written: the check names it.
        let records = second.appendingPathComponent("records.sqlite")
        let handle = try FileHandle(forWritingTo: records)
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data("damage".utf8))
        try handle.close()
        #expect {
            try BackupFiles.verifyAndMark(second, trusting: first)
        } throws: { error in
            "\(error)".contains("records.sqlite") && "\(error)".contains("damaged")
        }
        #expect(BackupFiles.verifiedAt(second) == nil, "not marked verified")
    }

    @Test("an older schema is copied before it is migrated; the copy is the old database, row for row")
    func snapshotBeforeMigrating() throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("old.sqlite").path
        // A database as the version before v5 left it, with a record in it.
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteRecordStore.migrator.migrate(queue, upTo: "v4: spatial indexes")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO records VALUES ('notes', 'n1', 'acc_1', 1, 1.0, 1.0, '{\"title\":\"kept\"}')")
            }
            try queue.close()
        }
        let original = try Self.dump(path)
        let plan = try SQLiteRecordStore.migrationPlan(path: path)
        #expect(plan.current == 4 && plan.latest == 5 && plan.pending.count == 1 && !plan.isNewer)
        #expect(try Self.dump(path) == original, "--plan changes nothing")
        let store = try SQLiteRecordStore(path: path)
        try store.close()
        let snapshot = try #require(store.upgradeSnapshot)
        #expect(snapshot == path + ".before-v4-to-v5")
        #expect(try Self.dump(snapshot) == original, "the copy holds the database as it was before the upgrade")
        #expect(try Self.dump(path) != original, "and the database itself was upgraded")
        #expect(try SQLiteRecordStore.migrationPlan(path: path).pending.isEmpty)
    }

    @Test("a database written by a newer Quire is refused, saying so")
    func newerRefused() throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("new.sqlite").path
        try SQLiteRecordStore(path: path).close()
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')") }
            try queue.close()
        }
        #expect {
            try SQLiteRecordStore(path: path)
        } throws: { error in
            "\(error)".contains("newer Quire") && "\(error)".contains("v99: from the future")
        }
        #expect(!FileManager.default.fileExists(atPath: path + ".before-v99-to-v5"))
    }

    @Test("a PostgreSQL dump's schema is read from its pg_restore listing (a restore into another schema renames it)")
    func dumpedSchema() {
        let listing = """
            ;
            ; Archive created at 2026-11-25 21:22:02 UTC
            ;     Format: CUSTOM
            ;
            ; Selected TOC Entries:
            ;
            25; 2615 19038 SCHEMA - acc_e47c9358a923de69 quire
            219; 1259 19039 TABLE acc_e47c9358a923de69 records quire
            """
        #expect(PostgresBackup.dumpedSchema(listing) == "acc_e47c9358a923de69")
        #expect(PostgresBackup.dumpedSchema("; no entries\n219; 1259 19039 TABLE public records quire\n") == nil)
    }

    /// Every table's rows as SQL text, in a fixed order (what `.dump` shows, header fields aside).
    static func dump(_ path: String) throws -> String {
        var readOnly = Configuration()
        readOnly.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: readOnly)
        defer { try? queue.close() }
        return try queue.read { db in
            var text = ""
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            for table in tables {
                let schema = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]) ?? ""
                text += schema + "\n"
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map(\.description).sorted()
                text += rows.joined(separator: "\n") + "\n"
            }
            return text
        }
    }
}
