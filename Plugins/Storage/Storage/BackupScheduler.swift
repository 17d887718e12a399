public import Foundation
public import Logging
import Metrics
public import ServiceLifecycle
public import StorageAPI
import Synchronization

/// `storage.backup` in the app's YAML: when and where backups are taken while the server runs.
///
/// ```yaml
/// storage:
///   backup: { every: 24h, keep: { daily: 7, weekly: 4, monthly: 6 }, to: [./backups, "rclone:offsite:bucket/quire"],
///             rclone_config: ./rclone.conf }
/// ```
public struct BackupSchedule: Sendable {
    public var every: Duration
    public var keep: BackupRetention
    /// Each `to:` entry as written: a folder, or `rclone:REMOTE:PATH`.
    public var destinations: [String]
    public var rcloneConfig: String?
    /// Where a backup is put together when no destination is a folder (the newest one stays, so
    /// that the next one copies only new blobs).
    public var staging: String

    public init(every: Duration, keep: BackupRetention, destinations: [String], rcloneConfig: String?, staging: String) {
        self.every = every
        self.keep = keep
        self.destinations = destinations
        self.rcloneConfig = rcloneConfig
        self.staging = staging
    }
}

/// Takes the scheduled backups: every `every`, one backup (records and blobs, consistent with each
/// other: blob deletions wait while it is taken) put together in the first folder destination
/// that takes it (or the staging folder), copied to the other folders (unchanged blobs hard-linked
/// from the backup before) and uploaded to each rclone remote (unchanged files copied on the
/// remote's side); then each destination is pruned by the retention rule. A destination that fails
/// or a backup that is missed is a warning in the log, counted on `/metrics`
/// (`quire_backup_runs{outcome}`, `quire_backup_destination_failures{to}`, `quire_backup_missed`,
/// `quire_backup_last_success_timestamp_seconds`), and kept in ``status`` (`storage.backup.status.v1`).
public final class BackupScheduler: Sendable {
    public let schedule: BackupSchedule
    let storage: StoragePlugin.Config
    let appName: String
    let logger: Logger
    let collectors: CollectorBox
    private let state: Mutex<BackupStatus>

    init(schedule: BackupSchedule, storage: StoragePlugin.Config, appName: String, logger: Logger, collectors: CollectorBox) {
        self.schedule = schedule
        self.storage = storage
        self.appName = appName
        self.logger = logger
        self.collectors = collectors
        state = Mutex(BackupStatus(enabled: true, everySeconds: Self.seconds(schedule.every),
                                   destinations: schedule.destinations.map { BackupStatus.Destination(to: $0) }))
    }

    public var status: BackupStatus { state.withLock { $0 } }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The newest backup in the folder a backup is put together in (first folder destination, or staging).
    func newestLocal() -> Date? {
        let folders = schedule.destinations.filter { Rclone.destination($0, configFile: nil) == nil } + [schedule.staging]
        return folders.compactMap { BackupFiles.list(in: URL(fileURLWithPath: $0)).last.flatMap(BackupFiles.date(ofName:)) }.max()
    }

    func setNextDue(_ date: Date) { state.withLock { $0.nextDue = date } }

    /// Records `count` missed backups (a warning, the counter, the status).
    func missed(_ count: Int, at now: Date, because reason: String) {
        guard count > 0 else { return }
        Metrics.Counter(label: "quire_backup_missed").increment(by: count)
        let sentence = "\(count) scheduled backup\(count == 1 ? " was" : "s were") missed: \(reason)"
        logger.warning("storage: \(sentence)")
        state.withLock { status in
            status.missed += count
            status.lastFailure = now
            status.lastFailureReason = sentence
        }
    }

    /// Takes one backup to every destination and prunes them; answers whether every destination took it.
    @discardableResult
    public func backUpNow(now: Date = Date(), next: Date? = nil) async -> Bool {
        state.withLock { $0.running = true }
        let collector = collectors.collector
        collector?.holdDeletions()
        let outcome = await Self.offThread { [self] in
            // Once the records and blobs are copied, deletions go on (the uploads may take long).
            take(now: now, nextDue: next) { if let collector { Task { await collector.releaseDeletions() } } }
        }
        let failures = outcome.failures
        Metrics.Counter(label: "quire_backup_runs", dimensions: [("outcome", failures.isEmpty ? "ok" : "failed")]).increment()
        for (destination, _) in failures {
            Metrics.Counter(label: "quire_backup_destination_failures", dimensions: [("to", destination)]).increment()
        }
        if failures.isEmpty {
            Metrics.Gauge(label: "quire_backup_last_success_timestamp_seconds").record(now.timeIntervalSince1970)
        }
        state.withLock { status in
            status.running = false
            for index in status.destinations.indices {
                let to = status.destinations[index].to
                if let failure = failures.first(where: { $0.destination == to }) {
                    status.destinations[index].lastFailure = now
                    status.destinations[index].lastError = failure.reason
                } else if outcome.succeeded.contains(to) {
                    status.destinations[index].lastSuccess = now
                }
            }
            if failures.isEmpty {
                status.succeeded += 1
                status.lastSuccess = now
                status.lastSuccessName = outcome.name
            } else {
                status.failed += 1
                status.lastFailure = now
                status.lastFailureReason = failures.map(\.reason).joined(separator: " ")
            }
        }
        return failures.isEmpty
    }

    struct Outcome: Sendable {
        var name: String
        var succeeded: Set<String> = []
        var failures: [(destination: String, reason: String)] = []
    }

    /// The blocking part: files, SQLite's backup, pg_dump, rclone. `built` is called once the
    /// records and blobs are copied (blob deletions may go on from then).
    private func take(now: Date, nextDue: Date?, built: () -> Void) -> Outcome {
        let name = BackupFiles.name(for: now)
        var outcome = Outcome(name: name)
        let then = nextDue.map { " The next try is at \(ISO8601DateFormatter().string(from: $0))." } ?? ""
        func fail(_ destination: String, _ error: any Error, _ advice: String) {
            let reason = Self.describe(error)
            // The operator's panel says what the log says: what failed, and what to do.
            outcome.failures.append((destination, "The backup \(name) could not be written to \(destination) (\(reason)); \(advice)."))
            logger.warning("storage: the scheduled backup \(name) could not be written to \(destination) (\(reason)); \(advice).\(then)")
        }
        let folders = schedule.destinations.filter { Rclone.destination($0, configFile: nil) == nil }
        // Put it together in the first folder that takes it, else in the staging folder.
        var source: URL?
        var tried: Set<String> = []
        for folder in folders + [schedule.staging] where source == nil {
            let isStaging = !folders.contains(folder)
            tried.insert(folder)
            let root = URL(fileURLWithPath: folder)
            do {
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                let previous = BackupFiles.list(in: root).last.map { root.appendingPathComponent($0) }
                let target = root.appendingPathComponent(name)
                _ = try StorageBackup.backup(storage, appName: appName, to: target, previous: previous) { logger.debug("storage: backup \(name): \($0)") }
                source = target
                if isStaging {
                    // Staging keeps the newest only: the next backup links its unchanged blobs.
                    for old in BackupFiles.list(in: root) where old != name { try? FileManager.default.removeItem(at: root.appendingPathComponent(old)) }
                } else {
                    outcome.succeeded.insert(folder)
                }
            } catch {
                if isStaging {
                    fail("staging folder \(folder)", error, "check the database and that the data folder is writable and has room")
                } else {
                    fail(folder, error, "check that the folder exists, is writable and has room")
                }
            }
        }
        built()
        guard let source else {
            for destination in schedule.destinations where !tried.contains(destination) {
                outcome.failures.append((destination, "No backup could be put together (see the warnings before)."))
            }
            return outcome
        }
        for folder in folders where !tried.contains(folder) {
            do {
                try Self.copy(source, to: URL(fileURLWithPath: folder))
                outcome.succeeded.insert(folder)
            } catch {
                fail(folder, error, "check that the folder exists, is writable and has room")
            }
        }
        for destination in schedule.destinations {
            guard let remote = Rclone.destination(destination, configFile: schedule.rcloneConfig) else { continue }
            do {
                let previous = try remote.list().last
                try remote.upload(source, name: name, previous: previous)
                outcome.succeeded.insert(destination)
            } catch {
                fail(destination, error, "check the remote, its credentials in \(schedule.rcloneConfig ?? "the rclone config") and that it is reachable")
            }
        }
        // Pruned only where this backup arrived: a failing destination keeps what it has.
        for destination in schedule.destinations where outcome.succeeded.contains(destination) {
            do {
                if let remote = Rclone.destination(destination, configFile: schedule.rcloneConfig) {
                    let names = try remote.list()
                    let keep = schedule.keep.keep(names)
                    for old in names where !keep.contains(old) { try remote.delete(old) }
                } else {
                    let root = URL(fileURLWithPath: destination)
                    let names = BackupFiles.list(in: root)
                    let keep = schedule.keep.keep(names)
                    for old in names where !keep.contains(old) { try FileManager.default.removeItem(at: root.appendingPathComponent(old)) }
                }
            } catch {
                logger.warning("storage: old backups in \(destination) could not be pruned (\(error)); check that it is writable, or delete them by hand.")
            }
        }
        return outcome
    }

    /// Copies the finished backup `source` into the destination folder `root`: files the newest
    /// backup there has with the same checksum are hard-linked, the rest copied; written beside its
    /// name and renamed when complete.
    static func copy(_ source: URL, to root: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: root, withIntermediateDirectories: true)
        let name = source.lastPathComponent
        let target = root.appendingPathComponent(name)
        guard !manager.fileExists(atPath: target.path) else { throw StorageBackup.Failure("\(target.path) already exists.") }
        let partial = root.appendingPathComponent(".\(name).partial")
        try? manager.removeItem(at: partial)
        let manifest = try BackupFiles.Manifest.read(from: source)
        let previous = BackupFiles.list(in: root).last.map { root.appendingPathComponent($0) }
        let earlier = previous.flatMap { try? BackupFiles.Manifest.read(from: $0) }?.files ?? [:]
        do {
            for (path, sum) in (manifest.files ?? [:]).sorted(by: { $0.key < $1.key }) {
                let destination = partial.appendingPathComponent(path)
                try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                if let previous, earlier[path] == sum, (try? manager.linkItem(at: previous.appendingPathComponent(path), to: destination)) != nil {
                    continue
                }
                guard try BackupFiles.copyHashing(source.appendingPathComponent(path), to: destination) == sum else {
                    throw StorageBackup.Failure("\(path) changed while it was copied from \(source.path).")
                }
            }
            try manager.copyItem(at: source.appendingPathComponent("manifest.json"), to: partial.appendingPathComponent("manifest.json"))
            try manager.moveItem(at: partial, to: target)
        } catch {
            try? manager.removeItem(at: partial)
            throw error
        }
    }

    /// An error in words: Foundation's file errors by their system reason ("Not a directory"), not their domain and code.
    static func describe(_ error: any Error) -> String {
        if let failure = error as? StorageBackup.Failure { return failure.description }
        let error = error as NSError
        var reason = error.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(error.code))) : nil
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            reason = String(cString: strerror(Int32(underlying.code)))
        }
        let path = (error.userInfo[NSFilePathErrorKey] as? String) ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
        guard let reason else { return "\(error.localizedDescription)" }
        return path.map { "\($0): \(reason)" } ?? reason
    }

    /// Runs blocking work on a thread of its own, off the cooperative pool.
    static func offThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}

/// Runs the scheduled backups until shutdown. The first is due `every` after the newest backup
/// there is (at once, counted as missed, when that is more than two intervals ago: the server was
/// down when one was due), or `every` after start when there is none.
struct BackupService: Service {
    let scheduler: BackupScheduler
    let clock: @Sendable () -> Date

    func run() async throws {
        let every = BackupScheduler.seconds(scheduler.schedule.every)
        let now = clock()
        var due = now.addingTimeInterval(every)
        if let newest = scheduler.newestLocal() {
            if now.timeIntervalSince(newest) > 2 * every {
                scheduler.missed(1, at: now, because: "the newest backup is from \(ISO8601DateFormatter().string(from: newest)), more than two intervals ago "
                                 + "(the server was not running when one was due); one is taken now.")
                due = now.addingTimeInterval(1)
            } else {
                due = max(now.addingTimeInterval(1), newest.addingTimeInterval(every))
            }
        }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            scheduler.setNextDue(due)
            let wait = max(0, due.timeIntervalSince(clock()))
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(Int64(wait * 1000))) }
            } catch {
                return
            }
            var next = due.addingTimeInterval(every)
            await scheduler.backUpNow(now: clock(), next: next)
            let finished = clock()
            var skipped = 0
            while next <= finished {
                skipped += 1
                next = next.addingTimeInterval(every)
            }
            scheduler.missed(skipped, at: finished, because: "the backup before took longer than `every` (\(Int(every)) s); "
                             + "make storage.backup.every longer, or the destinations faster.")
            due = next
        }
    }
}
