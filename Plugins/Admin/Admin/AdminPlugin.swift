public import AppConfig
import AuthAPI
import Bus
import Foundation
public import HTTPKit
import Hummingbird
import Logging
import NotesAPI
public import PluginKit
import QuotasAPI
import StorageAPI
import VocabularyAPI

/// The `admin` plugin: the server operator's API under `/api/v1/admin` — accounts (search,
/// disable, enable, delete with all their data), storage, imports running and failed, health, the
/// last warnings and errors, backups. Its routes exist only for operators: everyone else, signed in
/// or not, gets the 404 of a path that does not exist. Every change an operator makes is logged
/// with who made it.
///
/// ```yaml
/// admin: {}
/// auth: { first_account_is_admin: true }   # or: quire admin grant NAME --config FILE
/// ```
public struct AdminPlugin: Plugin {
    public struct Config: Sendable {}

    public static let descriptor = PluginDescriptor(
        id: "admin", summary: "The operator's API: accounts, storage, jobs, health, recent problems (404 to everyone else)",
        dependencies: ["storage", "auth"])

    public static func configure(_ section: ConfigSection) -> Config { Config() }

    let bus: any MessageBus
    let logger: Logger
    let recentLog: RecentLog
    let busTransport: String

    public init(config: Config, context: PluginContext) async throws {
        bus = context.bus
        logger = context.logger
        recentLog = context.recentLog
        busTransport = context.busTransport
    }

    public func routes(_ routes: PluginRoutes) throws {
        let bus = self.bus
        let isOperator: @Sendable (Identity) async -> Bool = { identity in
            guard let account = try? await bus.request(GetAccount(accountID: identity.accountID), timeout: .seconds(5)) else { return false }
            return account.isOperator && !account.disabled
        }
        let users = AdminUsers(bus: bus, logger: logger)
        let status = AdminStatus(bus: bus, recentLog: recentLog, busTransport: busTransport, logger: logger)

        try routes.addOperator(.get, "me", summary: "Whether I am an operator: 200 {accountId, username, operator} for operators, 404 for everyone else",
                               isOperator: isOperator) { _, _, identity in
            let account = try await bus.request(GetAccount(accountID: identity.accountID), timeout: .seconds(5))
            return try .json(Operator(accountId: account.accountID, username: account.username, operator: true))
        }
        try routes.addOperator(.get, "users", query: ["q", "limit", "cursor"],
                               summary: "Accounts by username, with what each stores; ?q= keeps usernames starting with it (or one account id)",
                               isOperator: isOperator) { request, _, _ in
            let limit = try request.limit(default: 50, max: 200)
            return try .json(try await users.list(search: try request.query("q"), limit: limit, cursor: try request.query("cursor")))
        }
        try routes.addOperator(.get, "users/{id}", summary: "One account: what it stores, its quotas and its imports", isOperator: isOperator) {
            _, context, _ in
            try .json(try await users.detail(try Self.id(context)))
        }
        try routes.addOperator(.put, "users/{id}/quota",
                               summary: "Set what one account may store: {maxStoredBytes: bytes (1 to 1 TiB)}, or null for the app's limit; answers its quota",
                               isOperator: isOperator) { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(QuotaInput.self, context: context)
            return try .json(try await users.setQuota(try Self.id(context), input.maxStoredBytes, by: identity))
        }
        try routes.addOperator(.post, "users/{id}/disable", summary: "Disable an account: it cannot sign in, and is signed out everywhere at once",
                               isOperator: isOperator) { _, context, identity in
            try .json(try await users.setDisabled(try Self.id(context), true, by: identity))
        }
        try routes.addOperator(.post, "users/{id}/enable", summary: "Enable a disabled account: it may sign in again", isOperator: isOperator) {
            _, context, identity in
            try .json(try await users.setDisabled(try Self.id(context), false, by: identity))
        }
        try routes.addOperator(.delete, "users/{id}", summary: "Delete an account with everything it stores (records, files) and every session",
                               isOperator: isOperator) { _, context, identity in
            try .json(try await users.delete(try Self.id(context), by: identity))
        }
        try routes.addOperator(.get, "storage", summary: "What the server stores in all, the data folder's disk, the backend", isOperator: isOperator) { _, _, _ in
            try .json(try await status.storage())
        }
        try routes.addOperator(.get, "jobs", query: ["state", "limit", "cursor"],
                               summary: "Imports (notes, vocabulary) and deletions of collections' entries, running and failed, newest first; ?state=running|failed|succeeded",
                               isOperator: isOperator) { request, _, _ in
            let state = try request.query("state")
            guard state == nil || ["running", "failed", "succeeded"].contains(state ?? "") else {
                throw Problem.badRequest("'state' is running, failed or succeeded (or leave it out for running and failed).", field: "state")
            }
            let all = try await status.jobs(states: state.map { [$0] } ?? ["running", "failed"])
            return try .json(try ListPage.slice(all, request: request, pageSize: 50, max: 200))
        }
        try routes.addOperator(.get, "health", summary: "Database, bus, NATS and PostgreSQL when configured, disk free of the data folder",
                               isOperator: isOperator) { _, _, _ in
            try .json(await status.health())
        }
        try routes.addOperator(.get, "logs", query: ["limit", "cursor"], summary: "This node's last 100 warnings and errors, newest first, with their request ids",
                               isOperator: isOperator) { request, _, _ in
            try .json(try ListPage.slice(status.logs(), request: request, pageSize: 100, max: 100))
        }
        try routes.addOperator(.get, "backups", summary: "Scheduled backups: their status and the last one taken (or being taken), or not-configured",
                               isOperator: isOperator) { _, _, _ in
            try .json(await status.backups())
        }
        try routes.addOperator(.post, "backups", summary: "Back up now: 202 with the status, the backup running; GET backups follows it",
                               isOperator: isOperator) { _, _, identity in
            try .json(try await status.backUpNow(by: identity), status: .accepted)
        }
        try routes.addOperator(.get, "backups/restore-points", query: ["limit", "cursor"],
                               summary: "The backups kept in every destination, newest first, with the command that restores each",
                               isOperator: isOperator) { request, _, _ in
            let points = try await status.restorePoints()
            let page = try ListPage.slice(points.points, request: request, pageSize: 50, max: 200)
            return try .json(AdminRestorePoints(items: page.items, nextCursor: page.nextCursor, unreadable: points.unreadable,
                                                workingDirectory: points.workingDirectory))
        }
    }

    static func id(_ context: QuireContext) throws -> String {
        let id = context.parameters.get("id") ?? ""
        guard id.hasPrefix("acc_"), id.count <= 64 else {
            throw Problem.notFound("There is no account '\(id.prefix(40))'; account ids start with acc_ (see GET /api/v1/admin/users).")
        }
        return id
    }
}

/// `PUT users/{id}/quota`'s body.
struct QuotaInput: Decodable {
    var maxStoredBytes: Int?
}

struct Operator: Encodable {
    var accountId: String
    var username: String?
    var `operator`: Bool
}

/// An account in the operator's list.
struct AdminUser: Encodable, Sendable {
    var accountId: String
    var username: String?
    var kind: String
    var createdAt: Date
    var `operator`: Bool
    var disabled: Bool
    /// Its records' bytes and the files they hold; nil when storage could not measure it.
    var storedBytes: Int?
    /// What it may store (the quotas plugin's limit, its own or the app's); nil without the plugin.
    var maxStoredBytes: Int?

    init(_ account: AccountRecord, storedBytes: Int?, maxStoredBytes: Int? = nil) {
        self.maxStoredBytes = maxStoredBytes
        accountId = account.accountID
        username = account.username
        kind = account.kind
        createdAt = account.createdAt
        self.operator = account.isOperator
        disabled = account.disabled
        self.storedBytes = storedBytes
    }
}

struct AdminUserDetail: Encodable, Sendable {
    struct Storage: Encodable, Sendable {
        var recordBytes: Int
        var blobBytes: Int
    }
    struct Quota: Encodable, Sendable {
        var storedBytes: Int
        var maxStoredBytes: Int
        var operationsToday: Int
        var maxOperationsPerDay: Int
        var maxImageBytes: Int
    }
    var user: AdminUser
    var storage: Storage?
    /// Nil when the app has no quotas plugin.
    var quota: Quota?
    var jobs: [AdminJob]
}

struct AdminDeleted: Encodable, Sendable {
    var accountId: String
    var username: String?
    /// Records deleted, in all and by collection.
    var records: Int
    var collections: [String: Int]
}

/// What the operator does to accounts; each change is logged with the operator's id.
struct AdminUsers: Sendable {
    let bus: any MessageBus
    let logger: Logger

    func list(search: String?, limit: Int, cursor: String?) async throws -> ListPage<AdminUser> {
        if let search, search.count > 64 { throw Problem.badRequest("'q' is at most 64 characters.", field: "q") }
        let reply: ListAccounts.Reply
        do {
            reply = try await bus.request(ListAccounts(search: search, limit: limit, cursor: cursor), timeout: .seconds(10))
        } catch {
            if error.code == .invalid { throw Problem.badRequest("The cursor is not one this list gave; start from the first page.", field: "cursor") }
            throw error
        }
        var items: [AdminUser] = []
        let limits = try? await bus.request(GetStoredBytesLimits(owners: reply.accounts.map(\.accountID)), timeout: .seconds(10))
        for account in reply.accounts {
            let usage = try? await bus.request(GetStorageUsage(owner: account.accountID), timeout: .seconds(10))
            items.append(AdminUser(account, storedBytes: usage?.total, maxStoredBytes: limits?.maxStoredBytes[account.accountID]))
        }
        return ListPage(items: items, nextCursor: reply.nextCursor)
    }

    func account(_ id: String) async throws -> AccountRecord {
        let found: AccountRecord
        do {
            found = try await bus.request(GetAccount(accountID: id), timeout: .seconds(5))
        } catch {
            if error.code == .notFound { throw Problem.notFound("There is no account '\(id.prefix(40))'; it may have been deleted. Search the list again.") }
            throw error
        }
        return found
    }

    func detail(_ id: String) async throws -> AdminUserDetail {
        let account = try await account(id)
        let usage = try? await bus.request(GetStorageUsage(owner: id), timeout: .seconds(10))
        var quota: AdminUserDetail.Quota?
        if let used = try? await bus.request(GetQuotaUsage(owner: id), timeout: .seconds(10)) {
            quota = .init(storedBytes: used.storedBytes, maxStoredBytes: used.maxStoredBytes, operationsToday: used.operationsToday,
                          maxOperationsPerDay: used.maxOperationsPerDay, maxImageBytes: used.maxImageBytes)
        }
        let jobs = try await AdminStatus.jobs(bus: bus, states: ["running", "failed", "succeeded"]).filter { $0.owner == id }
        return AdminUserDetail(user: AdminUser(account, storedBytes: usage?.total, maxStoredBytes: quota?.maxStoredBytes),
                               storage: usage.map { .init(recordBytes: $0.recordBytes, blobBytes: $0.blobBytes) }, quota: quota, jobs: jobs)
    }

    func setDisabled(_ id: String, _ disabled: Bool, by identity: Identity) async throws -> AdminUser {
        if id == identity.accountID {
            throw Problem.invalid("You cannot disable or enable your own account here; ask another operator, or use quire admin on the server.")
        }
        _ = try await account(id)
        let account = try await bus.request(SetAccountDisabled(accountID: id, disabled: disabled), timeout: .seconds(30))
        logger.notice(disabled ? "admin: account disabled, its sessions ended" : "admin: account enabled",
                      metadata: ["operator": "\(identity.accountID)", "account": "\(id)"])
        let usage = try? await bus.request(GetStorageUsage(owner: id), timeout: .seconds(10))
        return AdminUser(account, storedBytes: usage?.total)
    }

    /// Sets what `id` may store (nil: the app's limit); logged with the operator's id.
    func setQuota(_ id: String, _ maxStoredBytes: Int?, by identity: Identity) async throws -> AdminUserDetail.Quota {
        _ = try await account(id)
        let used: GetQuotaUsage.Reply
        do {
            used = try await bus.request(SetStoredBytesLimit(owner: id, maxStoredBytes: maxStoredBytes), timeout: .seconds(10))
        } catch {
            if error.code == .noHandler {
                throw Problem.invalid("This app has no quotas: add `quotas: {}` to its YAML (docs/operations.md, \"Operators\") to limit what each user stores.")
            }
            throw error
        }
        logger.notice("admin: storage quota set", metadata: ["operator": "\(identity.accountID)", "account": "\(id)",
                                                             "maxStoredBytes": "\(maxStoredBytes.map(String.init) ?? "the app's")"])
        return .init(storedBytes: used.storedBytes, maxStoredBytes: used.maxStoredBytes, operationsToday: used.operationsToday,
                     maxOperationsPerDay: used.maxOperationsPerDay, maxImageBytes: used.maxImageBytes)
    }

    func delete(_ id: String, by identity: Identity) async throws -> AdminDeleted {
        if id == identity.accountID {
            throw Problem.invalid("You cannot delete your own account here; ask another operator, or revoke your operator role first.")
        }
        let account = try await account(id)
        // Signed out everywhere and unable to sign in while its records go, then every record of it —
        // the account and its sessions among them.
        _ = try await bus.request(SetAccountDisabled(accountID: id, disabled: true), timeout: .seconds(30))
        let erased = try await bus.request(EraseOwner(owner: id), timeout: .seconds(300))
        let total = erased.deleted.values.reduce(0, +)
        logger.notice("admin: account deleted with everything it stored",
                      metadata: ["operator": "\(identity.accountID)", "account": "\(id)", "records": "\(total)"])
        return AdminDeleted(accountId: id, username: account.username, records: total, collections: erased.deleted)
    }
}

/// An import or a deletion of a collection's entries, as the operator sees it.
struct AdminJob: Encodable, Sendable {
    /// `notes.import`, `vocabulary.import` or `vocabulary.purge`.
    var kind: String
    /// The import's id; a purge's collection id.
    var id: String
    var owner: String
    var state: String
    /// An import's file format; nil for a purge.
    var format: String?
    var startedAt: Date
    var finishedAt: Date?
    var failure: String?
    /// An import's notes or rows read so far, imported, and not brought in as they were; nil for a purge.
    var read: Int?
    var imported: Int?
    var problems: Int?
    /// A purge's collection name, and the entries it deleted so far.
    var collection: String? = nil
    var deleted: Int? = nil
}

struct AdminCheck: Encodable, Sendable {
    var name: String
    /// `ok`, `failing` or `not-configured`.
    var status: String
    var detail: String
    var milliseconds: Double?
}

struct AdminHealth: Encodable, Sendable {
    /// `ok` when every check is, else `failing`.
    var status: String
    var checks: [AdminCheck]
}

struct AdminStorage: Encodable, Sendable {
    var backend: String
    var databaseBytes: Int?
    var blobCount: Int
    var blobBytes: Int
    /// The database file and the blobs (what a backup copies); the database's own size is unknown on PostgreSQL.
    var totalBytes: Int
    var dataFolder: String?
    var diskFreeBytes: Int?
    var diskTotalBytes: Int?
}

struct AdminLogEntry: Encodable, Sendable {
    var at: Date
    var level: String
    var message: String
    var requestId: String?
    var fields: [String: String]
}

struct AdminBackups: Encodable, Sendable {
    var status: String
    var detail: String
    var lastSuccessAt: Date?
    var lastFailureAt: Date?
    var nextAt: Date?
    var destination: String?
    /// Whether a backup is being taken now (``lastRun`` is it).
    var running: Bool = false
    /// The backup being taken, or the last one taken since the server started.
    var lastRun: BackupRun?
}

/// The restore points, one page, and the destinations that could not be listed.
struct AdminRestorePoints: Encodable, Sendable {
    var items: [RestorePoints.Point]
    var nextCursor: String?
    var unreadable: [RestorePoints.Unreadable]
    var workingDirectory: String?

    enum CodingKeys: String, CodingKey { case items, nextCursor, unreadable, workingDirectory }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)  // null on the last page, as every list says
        try container.encode(unreadable, forKey: .unreadable)
        try container.encodeIfPresent(workingDirectory, forKey: .workingDirectory)
    }
}

/// What the operator reads: storage, imports, health, recent problems, backups.
struct AdminStatus: Sendable {
    let bus: any MessageBus
    let recentLog: RecentLog
    let busTransport: String
    let logger: Logger

    func storage() async throws -> AdminStorage {
        let status = try await bus.request(GetStorageStatus(), timeout: .seconds(30))
        return AdminStorage(backend: status.backend, databaseBytes: status.databaseBytes, blobCount: status.blobCount, blobBytes: status.blobBytes,
                            totalBytes: (status.databaseBytes ?? 0) + status.blobBytes, dataFolder: status.dataFolder,
                            diskFreeBytes: status.diskFreeBytes, diskTotalBytes: status.diskTotalBytes)
    }

    func jobs(states: [String]) async throws -> [AdminJob] {
        try await Self.jobs(bus: bus, states: states)
    }

    /// Every plugin's imports in those states, newest first; a plugin this app does not have is skipped.
    static func jobs(bus: any MessageBus, states: [String]) async throws -> [AdminJob] {
        var jobs: [AdminJob] = []
        for state in states {
            if let notesState = NoteImportJob.State(rawValue: state) { jobs += try await noteJobs(bus: bus, state: notesState) }
            if let vocabularyState = ImportJob.State(rawValue: state) { jobs += try await vocabularyJobs(bus: bus, state: vocabularyState) }
            if let purgeState = CollectionPurge.State(rawValue: state) { jobs += try await purgeJobs(bus: bus, state: purgeState) }
        }
        return jobs.sorted { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }
    }

    static func noteJobs(bus: any MessageBus, state: NoteImportJob.State) async throws -> [AdminJob] {
        let reply: ListNoteImportJobs.Reply
        do {
            reply = try await bus.request(ListNoteImportJobs(state: state), timeout: .seconds(10))
        } catch {
            if error.code == .noHandler { return [] }
            throw error
        }
        return reply.jobs.map { owned in
            let job = owned.job
            return AdminJob(kind: "notes.import", id: job.id, owner: owned.owner, state: job.state.rawValue, format: job.format.rawValue,
                            startedAt: job.startedAt, finishedAt: job.finishedAt, failure: job.failure, read: job.notesRead,
                            imported: job.imported, problems: job.problemCount)
        }
    }

    static func vocabularyJobs(bus: any MessageBus, state: ImportJob.State) async throws -> [AdminJob] {
        let reply: ListImportJobs.Reply
        do {
            reply = try await bus.request(ListImportJobs(state: state), timeout: .seconds(10))
        } catch {
            if error.code == .noHandler { return [] }
            throw error
        }
        return reply.jobs.map { owned in
            let job = owned.job
            return AdminJob(kind: "vocabulary.import", id: job.id, owner: owned.owner, state: job.state.rawValue, format: job.format.rawValue,
                            startedAt: job.startedAt, finishedAt: job.finishedAt, failure: job.failure, read: job.rowsRead,
                            imported: job.imported, problems: job.errorCount)
        }
    }

    /// Deleted vocabulary collections whose entries are being (or were) deleted.
    static func purgeJobs(bus: any MessageBus, state: CollectionPurge.State) async throws -> [AdminJob] {
        let reply: ListCollectionPurges.Reply
        do {
            reply = try await bus.request(ListCollectionPurges(state: state), timeout: .seconds(10))
        } catch {
            if error.code == .noHandler { return [] }
            throw error
        }
        return reply.purges.map { purge in
            AdminJob(kind: "vocabulary.purge", id: purge.collection, owner: purge.owner, state: purge.state.rawValue, format: nil,
                     startedAt: purge.requestedAt, finishedAt: purge.finishedAt, failure: purge.failure, read: nil, imported: nil, problems: nil,
                     collection: purge.name, deleted: purge.deleted)
        }
    }

    func health() async -> AdminHealth {
        var checks: [AdminCheck] = []
        // The bus: a round trip to storage (over NATS when storage is remote), and NATS' own PING.
        let start = ContinuousClock.now
        let storage: GetStorageStatus.Reply?
        var busProblem: String?
        do {
            storage = try await bus.request(GetStorageStatus(), timeout: .seconds(10))
        } catch {
            storage = nil
            busProblem = error.message
        }
        let busTime = Self.milliseconds(since: start)
        checks.append(AdminCheck(name: "bus", status: busProblem == nil ? "ok" : "failing",
                                 detail: busProblem.map { "Storage did not answer over the bus: \($0)" }
                                     ?? "Requests between plugins are answered (\(busTransport)).", milliseconds: busTime))
        if busTransport == "nats" {
            let natsStart = ContinuousClock.now
            do {
                try await bus.catchUp(since: .now)
                checks.append(AdminCheck(name: "nats", status: "ok", detail: "The NATS server answers.", milliseconds: Self.milliseconds(since: natsStart)))
            } catch {
                checks.append(AdminCheck(name: "nats", status: "failing",
                                         detail: "NATS does not answer: \(error.message). Start it or check bus.url; the node reconnects by itself.",
                                         milliseconds: nil))
            }
        } else {
            checks.append(AdminCheck(name: "nats", status: "not-configured", detail: "The bus is in-process (bus.transport).", milliseconds: nil))
        }
        if let storage {
            let name = storage.backend == "postgres" ? "PostgreSQL" : storage.backend == "sqlite" ? "SQLite" : "memory"
            checks.append(AdminCheck(name: "database", status: storage.databaseOK ? "ok" : "failing",
                                     detail: storage.databaseOK ? "\(name) answers." : "\(name) does not answer: \(storage.databaseProblem ?? "unknown").",
                                     milliseconds: storage.databaseMilliseconds))
            checks.append(storage.backend == "postgres"
                ? AdminCheck(name: "postgresql", status: storage.databaseOK ? "ok" : "failing",
                             detail: storage.databaseOK ? "PostgreSQL answers." : "PostgreSQL does not answer: \(storage.databaseProblem ?? "unknown"). Check storage.url.",
                             milliseconds: storage.databaseMilliseconds)
                : AdminCheck(name: "postgresql", status: "not-configured", detail: "Storage is \(name) (storage.backend).", milliseconds: nil))
            if let free = storage.diskFreeBytes, let total = storage.diskTotalBytes, total > 0 {
                let low = free < 1 << 30 || Double(free) / Double(total) < 0.05
                checks.append(AdminCheck(name: "disk", status: low ? "failing" : "ok",
                                         detail: "\(Self.size(free)) free of \(Self.size(total)) under \(storage.dataFolder ?? "the data folder")"
                                             + (low ? ". Free some space or grow the disk: writes fail when it is full." : "."),
                                         milliseconds: nil))
            } else {
                checks.append(AdminCheck(name: "disk", status: "not-configured", detail: "Storage keeps no files on disk (memory).", milliseconds: nil))
            }
        } else {
            checks.append(AdminCheck(name: "database", status: "failing", detail: "Storage did not answer; see the bus check.", milliseconds: nil))
        }
        let failing = checks.contains { $0.status == "failing" }
        return AdminHealth(status: failing ? "failing" : "ok", checks: checks)
    }

    func logs() -> [AdminLogEntry] {
        recentLog.entries.reversed().map { AdminLogEntry(at: $0.at, level: $0.level, message: $0.message, requestId: $0.requestID, fields: $0.fields) }
    }

    /// Scheduled backups as the storage plugin that runs them reports them (``GetBackupDetail``),
    /// summed up for the panel: "not configured" when the YAML has no `storage.backup` (or nothing
    /// answers), "failing" when the last attempt failed or was missed, else "ok".
    func backups() async -> AdminBackups {
        let notConfigured = AdminBackups(status: "not-configured",
                                         detail: "Scheduled backups are not configured on this server: add storage.backup to the YAML (see docs/operations.md, \"Backups and upgrades\"), or run quire backup --config FILE OUT yourself.")
        let status: BackupStatus
        do {
            status = try await bus.request(GetBackupDetail(), timeout: .seconds(5))
        } catch {
            if error.code == .noHandler { return notConfigured }
            return AdminBackups(status: "failing", detail: "The backup status could not be read: \(error.message)")
        }
        guard status.enabled else { return notConfigured }
        let destination = status.destinations.map(\.to).joined(separator: ", ")
        let failing = status.lastFailure.map { failure in status.lastSuccess.map { failure > $0 } ?? true } ?? false
        // "every day", "every 6 hours".
        let every = status.everySeconds.map(Self.interval).map { $0.hasPrefix("1 ") ? String($0.dropFirst(2)) : $0 }
        let detail: String
        if failing {
            detail = status.lastFailureReason ?? "The last backup failed; see the server's log."
        } else if let name = status.lastSuccessName {
            detail = "Every \(every ?? "interval"), to \(destination); the last is \(name)\(status.running ? " (another is being taken now)" : "")."
        } else {
            detail = "Every \(every ?? "interval"), to \(destination); none taken yet\(status.running ? " (one is running)" : "")."
        }
        return AdminBackups(status: failing ? "failing" : "ok", detail: detail, lastSuccessAt: status.lastSuccess,
                            lastFailureAt: status.lastFailure, nextAt: status.nextDue, destination: destination.isEmpty ? nil : destination,
                            running: status.running, lastRun: status.lastRun)
    }

    /// "Back up now": asks the storage plugin that runs the backups to take one at once (logged
    /// with the operator's id); answers the status with it running.
    func backUpNow(by identity: Identity) async throws -> AdminBackups {
        do {
            _ = try await bus.request(StartBackup(requestedBy: identity.accountID), timeout: .seconds(10))
        } catch {
            if error.code == .noHandler {
                throw Problem.invalid("Backups are not configured on this server: add storage.backup to the app's YAML (see docs/operations.md, \"Backups and upgrades\"), or run quire backup --config FILE OUT on the server.")
            }
            throw error
        }
        logger.notice("admin: a backup was started", metadata: ["operator": "\(identity.accountID)"])
        return await backups()
    }

    /// The backups kept in every destination (``ListRestorePoints``); none when backups are not configured.
    func restorePoints() async throws -> RestorePoints {
        do {
            // Listing an rclone remote goes over the network: time for a slow one.
            return try await bus.request(ListRestorePoints(), timeout: .seconds(120))
        } catch {
            if error.code == .noHandler { return RestorePoints(enabled: false) }
            throw error
        }
    }

    /// "24 hours", "30 minutes", "2 seconds": an interval as the YAML's `every` reads.
    static func interval(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        for (size, unit) in [(86_400, "day"), (3_600, "hour"), (60, "minute")] where whole >= size && whole % size == 0 {
            return "\(whole / size) \(unit)\(whole / size == 1 ? "" : "s")"
        }
        return "\(whole) second\(whole == 1 ? "" : "s")"
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return ((Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15) * 10).rounded() / 10
    }

    static func size(_ bytes: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .binary)
    }
}
