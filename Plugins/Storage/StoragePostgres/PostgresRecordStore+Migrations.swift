import Bus
import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    /// ``prepare()``, waiting for the database while it cannot be reached: one line per attempt,
    /// 1 s, 2 s, 4 s… up to 30 s apart, until it answers or the task is cancelled (shutdown).
    /// Meanwhile requests are answered 503 with Retry-After, and declarations wait for it.
    public func prepareWhenReachable() async throws(StorageError) {
        var wait: Duration = .seconds(1)
        while true {
            do {
                try await prepare()
                return
            } catch where error.code == .unavailable && !Task.isCancelled {
                logger.warning("storage: PostgreSQL cannot be reached; trying again in a moment",
                               metadata: ["database": "\(settings.description)", "retryInSeconds": "\(wait.components.seconds)"])
                do { try await Task.sleep(for: wait) } catch { throw StorageError.unavailable("Stopped while waiting for PostgreSQL.") }
                wait = min(wait * 2, .seconds(30))
            }
        }
    }

    /// What ``prepare()`` would do with the versions `applied`.
    static func plan(applied: Set<Int>, database: String) -> SchemaMigrationPlan {
        let known = PostgresMigrations.all
        let pending = known.filter { !applied.contains($0.version) }
        return SchemaMigrationPlan(database: database, current: applied.max() ?? 0, latest: known.map(\.version).max() ?? 0,
                                   pending: pending.map { "v\($0.version): \($0.name)" },
                                   unknown: applied.subtracting(known.map(\.version)).sorted().map { "v\($0)" },
                                   safeguard: pending.isEmpty || applied.isEmpty ? nil
                                       : "Before that, a quire backup from the last 24 hours is required (or storage.migrate_without_backup: true).")
    }

    /// Whether `quire backup` recorded a backup in the last 24 hours.
    static func recentBackup(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        for try await exists in try await connection.query("SELECT to_regclass('quire_backups') IS NOT NULL", logger: logger).decode(Bool.self) where !exists {
            return false
        }
        for try await count in try await connection.query("SELECT count(*) FROM quire_backups WHERE taken_at > now() - interval '24 hours'", logger: logger)
            .decode(Int.self) {
            return count > 0
        }
        return false
    }

    /// What ``prepare()`` would do to the schema, read without changing anything (`quire migrate --plan`).
    /// Call once ``run()`` is under way.
    public func migrationPlan() async throws(StorageError) -> SchemaMigrationPlan {
        let logger = self.logger
        let database = settings.description
        let applied = try await transaction(gated: false) { connection in
            var applied: Set<Int> = []
            for try await exists in try await connection.query("SELECT to_regclass('quire_migrations') IS NOT NULL", logger: logger).decode(Bool.self) where !exists {
                return applied
            }
            for try await version in try await connection.query("SELECT version FROM quire_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            return applied
        }
        return Self.plan(applied: applied, database: database)
    }

    /// Brings the schema up to date (each migration once, whichever node gets there first), reads
    /// the declared collections and applies the declarations that waited; from then on requests are
    /// served. Call once ``run()`` is under way.
    public func prepare() async throws(StorageError) {
        let schema = settings.schema
        // One lock for the whole database, not one per schema: migrations create extensions, which
        // are the database's, and two schemas migrating at once would both try to.
        let key = PostgresMigrations.lockKey
        let logger = self.logger
        let settings = self.settings
        let texts = try await transaction(gated: false) { connection in
            if schema != "public" { try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(PostgresSQL.identifier(schema))"), logger: logger) }
            try await connection.query("SELECT pg_advisory_xact_lock(\(key))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS quire_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
                                       logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM quire_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            let plan = Self.plan(applied: applied, database: settings.description)
            if plan.isNewer { throw StorageError(.conflict, plan.newerRefusal) }
            if !plan.pending.isEmpty, plan.current > 0, settings.requireBackupBeforeMigrating,
               try await !Self.recentBackup(connection, logger: logger) {
                throw StorageError(.conflict, "The PostgreSQL database \(settings.description) is at schema v\(plan.current) and this Quire would migrate it to "
                                   + "v\(plan.latest), but no quire backup was taken in the last 24 hours; run quire backup --config FILE DIR first "
                                   + "(it is remembered in the database), or set storage.migrate_without_backup: true to migrate without one.")
            }
            for migration in PostgresMigrations.all where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO quire_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                logger.info("storage: PostgreSQL migration applied", metadata: ["version": "\(migration.version)", "migration": "\(migration.name)"])
            }
            var texts: [String] = []
            for try await text in try await connection.query("SELECT schema FROM collections", logger: logger).decode(String.self) {
                texts.append(text)
            }
            return texts
        }
        var known = Collections()
        for text in texts {
            guard let schema = try? JSONDecoder().decode(CollectionSchema.self, from: Data(text.utf8)) else { continue }
            known.remember(schema)
        }
        collections.withLock { $0 = known }
        // The declarations made while the database was away, one at a time, each taken off the
        // queue once applied (an outage in between leaves the rest for the next attempt).
        while let next = readiness.withLock({ state -> CollectionSchema? in
            guard case .waiting(let pending) = state else { return nil }
            if let first = pending.first { return first }
            state = .ready
            return nil
        }) {
            do {
                try await apply(next)
            } catch where error.code != .unavailable {
                logger.error("storage: a collection could not be declared", metadata: ["collection": "\(next.name)", "error": "\(error.message)"])
            }
            readiness.withLock { state in
                if case .waiting(var pending) = state, !pending.isEmpty {
                    pending.removeFirst()
                    state = .waiting(pending)
                }
            }
        }
    }
}
