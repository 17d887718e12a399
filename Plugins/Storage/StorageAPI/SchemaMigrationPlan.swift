/// What opening a database with this build would do to its schema (`quire migrate --plan`).
public struct SchemaMigrationPlan: Sendable, Equatable, CustomStringConvertible {
    /// The database, without a password.
    public var database: String
    /// Its schema version now (0: empty or not there yet) and this build's.
    public var current: Int
    public var latest: Int
    /// The migrations this build would apply, in order ("v5: sync — scopes, …").
    public var pending: [String]
    /// Migrations the database has that this build does not know: written by a newer Quire.
    public var unknown: [String]
    /// Where the database is copied before it is changed (SQLite), or what is asked first (PostgreSQL).
    public var safeguard: String?

    public init(database: String, current: Int, latest: Int, pending: [String], unknown: [String], safeguard: String?) {
        self.database = database
        self.current = current
        self.latest = latest
        self.pending = pending
        self.unknown = unknown
        self.safeguard = safeguard
    }

    public var isNewer: Bool { !unknown.isEmpty }

    /// The refusal for a database a newer Quire wrote.
    public var newerRefusal: String {
        "The database \(database) was written by a newer Quire (schema \(unknown.joined(separator: ", "))), which this build (schema v\(latest)) "
            + "does not know; run that newer Quire (or a later one), or restore a backup made with this version (quire restore)."
    }

    public var description: String {
        if isNewer { return newerRefusal }
        if pending.isEmpty { return "\(database): schema v\(current), up to date; nothing to change." }
        var lines = [current == 0 ? "\(database): new or empty; these migrations would create the schema (v\(latest)):"
                                  : "\(database): schema v\(current); these migrations would bring it to v\(latest):"]
        lines += pending.map { "  - \($0)" }
        if let safeguard { lines.append(safeguard) }
        return lines.joined(separator: "\n")
    }
}
