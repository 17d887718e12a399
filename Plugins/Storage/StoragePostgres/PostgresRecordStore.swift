import Bus
import Foundation
public import Logging
import PostgresNIO
public import ServiceLifecycle
public import StorageAPI
import Synchronization

/// Records on a PostgreSQL server (postgres-nio's connection pool): the same contract as SQLite's,
/// for several `quire serve` nodes sharing one database. Every batch is one transaction; every
/// value is bound, never written into the SQL. The change log's sequences are taken at the end of
/// each writing transaction from one counter row, so they follow commit order without gaps even
/// with many writers: a reader that saw sequence n never later finds a change below n appear.
///
/// Run it as a service (its pool's connections live there), then ``prepare()`` it.
public final class PostgresRecordStore: RecordStore, BlobHolds, RecordUsage, RecordSearching, RecordSpatialIndexing, ChangeLogCompacting, Service {
    /// Where the database is and how to reach it (read from its URL by ``PostgresSettings``).
    public typealias Settings = PostgresSettings

    public let settings: Settings
    let client: PostgresClient
    let logger: Logger
    /// Each collection's blob fields, history and scope, and the declared names of its unique
    /// indexes by their PostgreSQL names (to say which one a conflict hit), from `collections`.
    let collections = Mutex<Collections>(Collections())
    /// Until ``prepare()`` has run, requests are answered ``unreachable`` (503, Retry-After) and
    /// declarations wait here; they are applied, in order, once the database answers.
    let readiness = Mutex(Readiness.waiting([]))

    enum Readiness {
        case waiting([CollectionSchema])
        case ready
    }

    struct Collections {
        var blobFields: [String: [String]] = [:]
        var logs: [String: LogSpec] = [:]
        var indexNames: [String: String] = [:]
        var spatial: [String: SpatialIndexSpec] = [:]
        var search: [String: SearchIndexSpec] = [:]
    }

    public init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database,
            tls: settings.tls == .disable ? .disable
                : settings.tls == .require ? .require(.makeClientConfiguration()) : .prefer(.makeClientConfiguration()))
        configuration.options.maximumConnections = settings.maxConnections
        configuration.options.connectTimeout = .seconds(5)
        if settings.schema != "public" {
            configuration.options.additionalStartupParameters = [("search_path", "\(settings.schema), public")]
        }
        // The pool logs each failed connection attempt at info; this store says once per wait what is wrong.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .notice)
        client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
    }

    /// The pool: connections are made and kept while this runs.
    public func run() async {
        await client.run()
    }

    // MARK: Running

    static func binds(_ values: String...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }

    static func record(_ row: PostgresRow) throws -> StorageAPI.Record {
        record(try row.decode((String, String, String, Int64, Double, Double, String).self))
    }

    /// A record from `PostgresSQL.recordColumns`, in their order.
    static func record(_ columns: (String, String, String, Int64, Double, Double, String)) -> StorageAPI.Record {
        let (collection, id, owner, version, created, updated, data) = columns
        return StorageAPI.Record(collection: collection, id: id, owner: owner, version: version,
                                 createdAt: Date(timeIntervalSince1970: created), updatedAt: Date(timeIntervalSince1970: updated),
                                 data: JSONDocument(trustedBytes: Data(data.utf8)))
    }

    func records(_ query: PostgresQuery) async throws(StorageError) -> [StorageAPI.Record] {
        try await run { connection in
            var found: [StorageAPI.Record] = []
            for try await row in try await connection.query(query, logger: self.logger) { found.append(try Self.record(row)) }
            return found
        }
    }

    /// Runs `body` on a pooled connection, mapping what PostgreSQL says to storage errors.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StorageError) -> T {
        do {
            return try await leasing(body)
        } catch {
            throw map(error, uniqueViolation: nil)
        }
    }

    /// How long a request waits for a connection before it is told the database cannot be reached
    /// (the pool keeps trying to connect meanwhile; a request never hangs on an outage).
    static let leaseTimeout: Duration = .seconds(5)

    /// `body` on a connection from the pool, or ``unreachable`` when none comes within
    /// ``leaseTimeout``. Only the wait is timed: once leased, a statement runs to its end.
    /// Until the store is prepared, only ``prepare()`` (`gated: false`) gets one.
    func leasing<T: Sendable>(gated: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        if gated, readiness.withLock({ if case .ready = $0 { false } else { true } }) { throw Self.unreachable }
        let leased = LeaseFlag()
        let client = self.client
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    leased.set()
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: Self.leaseTimeout)
                if !leased.isSet { throw Self.unreachable }
                return nil
            }
            while let value = try await group.next() {
                if let value {
                    group.cancelAll()
                    return value
                }
            }
            throw Self.unreachable
        }
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws. A unique
    /// violation is a conflict naming the declared index, unless `onUniqueViolation` says otherwise.
    func transaction<T: Sendable>(gated: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T,
                                          onUniqueViolation: ((String) -> StorageError?)? = nil) async throws(StorageError) -> T {
        let logger = self.logger
        do {
            return try await leasing(gated: gated) { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let value = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch {
            throw map(error, uniqueViolation: onUniqueViolation)
        }
    }

    /// What PostgreSQL said, as a storage error; anything unexpected is logged here with the
    /// server's own words (never the values bound) and reaches the client as an internal error.
    func map(_ error: any Error, uniqueViolation: ((String) -> StorageError?)?) -> StorageError {
        let mapped = Self.map(error, uniqueViolation: uniqueViolation, names: collections.withLock { $0.indexNames })
        if mapped.code == .internal || mapped.code == .unavailable, let error = error as? PSQLError {
            logger.error("storage: PostgreSQL failed a statement",
                         metadata: ["sqlState": "\(error.serverInfo?[.sqlState] ?? "\(error.code)")", "error": "\(error.serverInfo?[.message] ?? "")"])
        }
        return mapped
    }

    /// The database is down or restarting: 503 with Retry-After; the pool reconnects by itself.
    static let unreachable = StorageError(.unavailable, "The database cannot be reached just now; try again in a few seconds.",
                                          details: ["retryAfter": "2"])

    /// A deadlock or serialization failure: the transaction can simply run again.
    static let busy = StorageError(.unavailable, "The database was busy; try again.", details: ["reason": "busy", "retryAfter": "1"])

    /// Text with U+0000 in it, which PostgreSQL cannot store: the client's input, never a 500.
    static let nulCharacter = StorageError(.invalid, "The text contains a NUL character (U+0000), which cannot be stored; remove it and try again.",
                                           details: ["reason": "nul_character"])

    static func map(_ error: any Error, uniqueViolation: ((String) -> StorageError?)?, names: [String: String] = [:]) -> StorageError {
        if let error = error as? StorageError { return error }
        if let error = error as? BusError { return StorageError(error.code, error.message, details: error.details) }
        guard let error = error as? PSQLError else { return StorageError(.internal, "Unexpected storage error.") }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let constraint = error.serverInfo?[.constraintName] ?? ""
            if state == "23505" {
                if let special = uniqueViolation?(constraint) { return special }
                return StorageError(.conflict, "Another item already has the same unique value.",
                                    details: ["index": names[constraint] ?? constraint])
            }
            if state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03" { return unreachable }
            if state == "53100" { return .unavailable("The database's disk is full; free space and try again.") }
            if state == "40001" || state == "40P01" { return busy }
            // PostgreSQL's text and jsonb cannot hold U+0000 (SQLite can): say so, as bad input.
            if state == "22P05" || state == "22021" { return nulCharacter }
            return StorageError(.internal, "Database error \(state).")
        default:
            return isUnreachable(error.code) ? unreachable : StorageError(.internal, "Database error.")
        }
    }

    /// The connection went, whichever side noticed first: the server closed it, the pool did, or
    /// the client's end found it closed (`clientClosedConnection`: a postmaster killed mid-query).
    /// All are the database being unreachable for now (503), never a bug (500).
    static func isUnreachable(_ code: PSQLError.Code) -> Bool {
        [.connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown].contains(code)
    }
}

extension PostgresRecordStore.Collections {
    mutating func remember(_ schema: CollectionSchema) {
        if !schema.blobFields.isEmpty { blobFields[schema.name] = schema.blobFields }
        logs[schema.name] = LogSpec(schema)
        spatial[schema.name] = schema.spatial
        search[schema.name] = schema.search
        for index in schema.indexes where index.unique {
            indexNames[PostgresSQL.indexName(collection: schema.name, index: index.name)] = index.name
        }
    }
}

/// Whether a request got its connection (shared by the request and its timer).
final class LeaseFlag: Sendable {
    let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
