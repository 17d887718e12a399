public import Foundation

/// `pg_dump` and `pg_restore` driven for `quire backup` and `quire restore`. The password goes
/// through the environment, never the command line (which `ps` shows).
public enum PostgresBackup {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Dumps Quire's schema into `file` (`pg_dump --format=custom`: one transaction's snapshot,
    /// taken beside a running server).
    public static func dump(_ settings: PostgresRecordStore.Settings, to file: URL) throws {
        try runTool("pg_dump", settings, ["--format=custom", "--no-owner", "--schema=\(settings.schema)", "--file=\(file.path)"])
    }

    /// Restores a dump made by ``dump(_:to:)`` in one transaction, replacing what the schema holds.
    /// The dump holds Quire's schema only, restored whole — except `public`, which holds the
    /// extensions and is never dropped: its own entry is left out (`scratch` holds the list).
    ///
    /// A dump of another schema than the config's (a backup restored into a new schema, or beside
    /// the one it was taken from) is restored under its own name and renamed to the config's in
    /// the same transaction; a schema of that name already in the database is set aside meanwhile
    /// and put back, untouched. (pg_restore alone would write into the dump's schema, whatever the
    /// config says.) `public` is never renamed: a dump of it restores into `public` only, and
    /// `public` takes only a dump of itself.
    public static func restore(_ file: URL, into settings: PostgresRecordStore.Settings, scratch: URL) throws {
        let listing = String(decoding: try run("pg_restore", ["--list", file.path], environment: ProcessInfo.processInfo.environment),
                             as: UTF8.self)
        let source = dumpedSchema(listing) ?? settings.schema
        if source != settings.schema {
            try restore(file, from: source, into: settings, scratch: scratch)
            return
        }
        var arguments = ["--clean", "--if-exists", "--no-owner", "--single-transaction"]
        if settings.schema == "public" {
            let entries = listing.split(separator: "\n").filter { !$0.contains(" SCHEMA - public ") && !$0.contains("COMMENT - SCHEMA public ") }
            try Data(entries.joined(separator: "\n").utf8).write(to: scratch)
            arguments.append("--use-list=\(scratch.path)")
        }
        try runTool("pg_restore", settings, arguments + [file.path])
    }

    /// The schema a dump's `pg_restore --list` creates (`… SCHEMA - name owner`), if it names one.
    static func dumpedSchema(_ listing: String) -> String? {
        for line in listing.split(separator: "\n") where !line.hasPrefix(";") {
            let words = line.split(separator: " ")
            guard let at = words.firstIndex(of: "SCHEMA"), at + 2 < words.count, words[at + 1] == "-" else { continue }
            return String(words[at + 2])
        }
        return nil
    }

    /// A dump of schema `source` restored as the config's schema, in one transaction (see ``restore(_:into:scratch:)``).
    private static func restore(_ file: URL, from source: String, into settings: PostgresRecordStore.Settings, scratch: URL) throws {
        let target = settings.schema
        guard source.utf8.count <= 63, source.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw Failure("The backup's records are of a schema named '\(source)', which Quire does not make; it was not made by quire backup.")
        }
        guard source != "public", target != "public" else {
            let url = source == "public" ? "no search_path (or search_path=public)" : "search_path=\(source)"
            throw Failure("This backup is of the PostgreSQL schema \(source) and the config's database URL names the schema \(target); "
                          + "the public schema is restored only from a backup of itself. Restore it with a URL that has \(url); nothing was changed.")
        }
        let (from, to) = (PostgresSQL.identifier(source), PostgresSQL.identifier(target))
        let asideName = "quire_restore_aside_\(UUID().uuidString.prefix(8).lowercased())"
        let aside = PostgresSQL.identifier(asideName)
        // The dump as SQL (no connection): it creates `source` and everything in it.
        _ = try run("pg_restore", ["--no-owner", "--file=\(scratch.path)", file.path], environment: ProcessInfo.processInfo.environment)
        let before = """
            DO $quire$ BEGIN
              IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '\(source)') THEN ALTER SCHEMA \(from) RENAME TO \(aside); END IF;
            END $quire$;
            DROP SCHEMA IF EXISTS \(to) CASCADE;
            """
        let after = """
            ALTER SCHEMA \(from) RENAME TO \(to);
            DO $quire$ BEGIN
              IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '\(asideName)') THEN ALTER SCHEMA \(aside) RENAME TO \(from); END IF;
            END $quire$;
            """
        try runTool("psql", settings, ["--quiet", "--no-psqlrc", "--set=ON_ERROR_STOP=1", "--single-transaction",
                                       "--command=\(before)", "--file=\(scratch.path)", "--command=\(after)"])
    }

    /// Runs `pg_dump` or `pg_restore` against the configured database.
    static func runTool(_ name: String, _ settings: PostgresRecordStore.Settings, _ arguments: [String]) throws {
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

extension PostgresBackup {
    /// Notes in the database that a backup was taken now (`quire_backups`): a migration of the
    /// schema asks for a recent one first (see ``PostgresRecordStore/prepare()``).
    public static func recordBackup(_ settings: PostgresRecordStore.Settings, location: String) throws {
        let schema = PostgresSQL.identifier(settings.schema)
        let place = location.replacingOccurrences(of: "'", with: "''")
        try runTool("psql", settings, ["--quiet", "--set=ON_ERROR_STOP=1", "--command=SET search_path TO \(schema); "
            + "CREATE TABLE IF NOT EXISTS quire_backups (taken_at timestamptz NOT NULL DEFAULT now(), location text NOT NULL); "
            + "INSERT INTO quire_backups (location) VALUES ('\(place)')"])
    }
}
