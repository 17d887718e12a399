import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    /// A migration's version: the number in its identifier ("v5: …" is 5).
    static func version(_ identifier: String) -> Int {
        Int(identifier.dropFirst().prefix { $0.isNumber }) ?? 0
    }

    static func plan(_ db: Database, database: String) throws -> SchemaMigrationPlan {
        let migrator = Self.migrator
        let applied = try migrator.appliedIdentifiers(db)
        let known = migrator.migrations
        let current = applied.map(Self.version).max() ?? 0
        let latest = known.map(Self.version).max() ?? 0
        let pending = known.filter { !applied.contains($0) }
        return SchemaMigrationPlan(database: database, current: current, latest: latest, pending: pending,
                                   unknown: applied.filter { !known.contains($0) }.sorted(),
                                   safeguard: pending.isEmpty || applied.isEmpty ? nil
                                       : "Before that, the database is copied (SQLite online backup) to \(database).before-v\(current)-to-v\(latest).")
    }

    /// What opening the database at `path` would do to its schema, read without changing anything.
    public static func migrationPlan(path: String) throws(StorageError) -> SchemaMigrationPlan {
        guard FileManager.default.fileExists(atPath: path) else {
            let known = migrator.migrations
            return SchemaMigrationPlan(database: path, current: 0, latest: known.map(Self.version).max() ?? 0, pending: known, unknown: [], safeguard: nil)
        }
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: readOnly)
            defer { try? queue.close() }
            return try queue.read { db in try plan(db, database: path) }
        } catch {
            throw StorageError.unavailable("Cannot read the schema version of '\(path)': \(error). Check the path and its permissions.")
        }
    }

    /// Copies the database at `path` to `<path>.before-v<from>-to-v<to>` (SQLite's online backup API)
    /// when this build is about to migrate it; answers the copy's path. A copy already there (an
    /// earlier attempt at the same upgrade) is kept: it is the older one. Refuses a newer database.
    static func snapshotBeforeMigrating(path: String) throws(StorageError) -> String? {
        let plan = try migrationPlan(path: path)
        if plan.isNewer { throw StorageError(.conflict, plan.newerRefusal) }
        guard !plan.pending.isEmpty, plan.current > 0 else { return nil }
        let snapshot = "\(path).before-v\(plan.current)-to-v\(plan.latest)"
        if FileManager.default.fileExists(atPath: snapshot) { return snapshot }
        let partial = snapshot + ".partial"
        do {
            try? FileManager.default.removeItem(atPath: partial)
            var readOnly = Configuration()
            readOnly.readonly = true
            let source = try DatabaseQueue(path: path, configuration: readOnly)
            let copy = try DatabaseQueue(path: partial)
            try source.backup(to: copy)
            try copy.close()
            try source.close()
            try FileManager.default.moveItem(atPath: partial, toPath: snapshot)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw StorageError.unavailable("Cannot copy '\(path)' to \(snapshot) before upgrading its schema (\(error)); "
                                           + "nothing was changed. Free some disk space or make the folder writable, then start again.")
        }
        return snapshot
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: records, changes, idempotency") { db in
            try db.execute(sql: """
                CREATE TABLE records (
                    collection TEXT NOT NULL,
                    id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    data TEXT NOT NULL,
                    PRIMARY KEY (collection, id)
                ) WITHOUT ROWID;
                CREATE INDEX records_by_owner ON records(collection, owner, id);
                CREATE TABLE changes (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    owner TEXT NOT NULL,
                    collection TEXT NOT NULL,
                    record_id TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    at REAL NOT NULL
                );
                CREATE INDEX changes_by_owner ON changes(owner, sequence);
                CREATE TABLE idempotency (
                    owner TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    key TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    results TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (owner, scope, key)
                ) WITHOUT ROWID;
                CREATE TABLE collections (name TEXT PRIMARY KEY, schema TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2: search indexes") { db in try SQLiteSearch.createTables(db) }
        migrator.registerMigration("v3: search index kept per batch") { db in try SQLiteSearch.migrateToVersion3(db) }
        migrator.registerMigration("v4: spatial indexes") { db in try SQLiteSpatial.createTables(db) }
        migrator.registerMigration("v5: sync — scopes, earlier versions, compaction") { db in
            try db.execute(sql: """
                ALTER TABLE changes ADD COLUMN scope TEXT;
                CREATE INDEX changes_by_record ON changes(collection, record_id, sequence);
                CREATE INDEX changes_by_scope ON changes(owner, scope, sequence) WHERE scope IS NOT NULL;
                CREATE TABLE versions (
                    collection TEXT NOT NULL,
                    id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    data TEXT NOT NULL,
                    superseded_at REAL NOT NULL,
                    PRIMARY KEY (collection, id, version)
                ) WITHOUT ROWID;
                CREATE TABLE log_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        return migrator
    }
}
