import Bus
import Foundation
public import StorageAPI

/// Where the PostgreSQL database is and how to reach it, read from its URL
/// (`postgres://user:password@host:port/database?sslmode=…&search_path=…`).
public struct PostgresSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// The schema Quire's tables live in (`public` unless the URL says `?search_path=`).
    public var schema: String
    public var maxConnections: Int
    /// Refuse to migrate an existing schema without a `quire backup` from the last 24 hours
    /// (`quire_backups`); `storage.migrate_without_backup: true` turns it off.
    public var requireBackupBeforeMigrating = true

    public enum TLSMode: String, Sendable { case disable, prefer, require }

    /// Reads `postgres://user:password@host:port/database?sslmode=…&search_path=…`.
    /// - Throws: a sentence saying what is wrong with it.
    public init(url text: String, maxConnections: Int = 20) throws(StorageError) {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw StorageError.invalid("'\(Self.redacted(text))' is not a PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.",
                                       field: "url")
        }
        guard let host = url.host, !host.isEmpty else {
            throw StorageError.invalid("The PostgreSQL URL names no host; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.", field: "url")
        }
        guard let user = url.user, !user.isEmpty else {
            throw StorageError.invalid("The PostgreSQL URL names no user; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.", field: "url")
        }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw StorageError.invalid("The PostgreSQL URL names no database; write postgres://USER:PASSWORD@HOST:PORT/DATABASE.", field: "url")
        }
        let options = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        for name in options.keys where !["sslmode", "search_path"].contains(name) {
            throw StorageError.invalid("The PostgreSQL URL's option '\(name)' is not one Quire reads (sslmode, search_path).", field: "url")
        }
        guard let tls = TLSMode(rawValue: options["sslmode"] ?? "prefer") else {
            throw StorageError.invalid("sslmode is disable, prefer or require, not '\(options["sslmode"] ?? "")'.", field: "url")
        }
        let schema = options["search_path"] ?? "public"
        guard !schema.isEmpty, schema.utf8.count <= 63, schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw StorageError.invalid("search_path is one schema name (letters, digits, '_'), not '\(schema)'.", field: "url")
        }
        self.host = host
        self.port = url.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = url.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.tls = tls
        self.schema = schema
        self.maxConnections = maxConnections
    }

    /// The URL without its password, for messages and logs.
    public static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "***"
        return url.string ?? "postgres://…"
    }

    /// Where it connects, without the password.
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" + (schema == "public" ? "" : " (schema \(schema))") }
}
