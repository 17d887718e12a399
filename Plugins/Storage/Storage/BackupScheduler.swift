public import Foundation
import Logging
import Metrics
import ServiceLifecycle
public import StorageAPI
public import Bus
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
    /// The passphrase the server's keys are sealed with (`passphrase`, e.g. `${QUIRE_BACKUP_PASSPHRASE}`), or
    /// the file it is read from at each backup (`passphrase_file`); neither: the keys are left out.
    public var passphrase: String?
    public var passphraseFile: String?

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

    /// The plugin's clock: when backups come due, their names and their times.
    let clock: @Sendable () -> Date

    init(schedule: BackupSchedule, storage: StoragePlugin.Config, appName: String, logger: Logger, collectors: CollectorBox,
         clock: @escaping @Sendable () -> Date = { StoreTime.now() }) {
        self.clock = clock
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
            // A destination that failed on the last run is still the reason backups fail: a
            // missed one is said after it, never instead of it.
            let failing = status.lastRun.map { $0.state == .failed ? $0.failures.map(\.reason) : [] } ?? []
            status.lastFailureReason = (failing + [sentence]).joined(separator: " ")
        }
    }

    /// The backup being taken now: a scheduled one that comes due meanwhile waits for it and
    /// counts it, rather than taking a second one.
    private let inFlight = Mutex<Task<Bool, Never>?>(nil)

    /// Takes one backup to every destination and prunes them; answers whether every destination
    /// took it. While one is being taken (an operator's), waits for that one and answers its outcome.
    @discardableResult
    public func backUpNow(now: Date? = nil, next: Date? = nil) async -> Bool {
        await begin(now: now ?? clock(), next: next, trigger: "schedule").task.value
    }

    /// "Back up now" (``StartBackup``): starts a backup beside the schedule and answers the status
    /// with it running; refused while one is being taken.
    public func start(requestedBy: String?, now: Date? = nil) throws(BusError) -> BackupStatus {
        let (_, started, status) = begin(now: now ?? clock(), next: nil, trigger: "operator")
        guard started else {
            let since = status.lastRun.map { " (\($0.name), started at \(ISO8601DateFormatter().string(from: $0.startedAt)))" } ?? ""
            throw BusError.conflict("A backup is being taken now\(since); wait for it to finish: the Backups panel shows what it wrote, or what failed.")
        }
        logger.notice("storage: a backup was started by an operator",
                      metadata: ["operator": "\(requestedBy ?? "unknown")", "backup": "\(status.lastRun?.name ?? "")"])
        return status
    }

    /// Starts a backup unless one is being taken (then answers that one, `started` false).
    /// Answers the status as it was then (the new one running).
    private func begin(now: Date, next: Date?, trigger: String) -> (task: Task<Bool, Never>, started: Bool, status: BackupStatus) {
        inFlight.withLock { current in
            if let current { return (current, false, status) }
            var when = now
            let started = state.withLock { status in
                // A backup's name is its second: one started in the second the last one was, waits for the next name.
                while let last = status.lastRun?.name, BackupFiles.name(for: when) <= last { when = when.addingTimeInterval(1) }
                status.running = true
                status.lastRun = BackupRun(name: BackupFiles.name(for: when), trigger: trigger, state: .running, startedAt: now, step: "starting")
                return status
            }
            let then = next ?? started.nextDue
            let task = Task { [self] in
                let succeeded = await run(now: when, next: then)
                inFlight.withLock { $0 = nil }
                return succeeded
            }
            current = task
            return (task, true, started)
        }
    }

    /// Says what the running backup is doing now.
    func step(_ text: String) {
        state.withLock { $0.lastRun?.step = text }
    }

    private func run(now: Date, next: Date?) async -> Bool {
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
            status.lastRun?.state = failures.isEmpty ? .succeeded : .failed
            status.lastRun?.finishedAt = clock()
            status.lastRun?.step = nil
            status.lastRun?.bytes = outcome.size?.bytes
            status.lastRun?.files = outcome.size?.files
            status.lastRun?.newBytes = outcome.size?.newBytes
            status.lastRun?.written = outcome.written
            status.lastRun?.failures = failures.map { BackupRun.Failure(to: $0.destination, reason: $0.reason) }
        }
        return failures.isEmpty
    }

    struct Outcome: Sendable {
        var name: String
        var succeeded: Set<String> = []
        var failures: [(destination: String, reason: String)] = []
        /// Each place it was written, in full (a folder's path, `rclone:REMOTE:PATH/NAME`).
        var written: [String] = []
        var size: (bytes: Int, files: Int, newBytes: Int)?
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
        var passphrase = schedule.passphrase
        if passphrase == nil, let file = schedule.passphraseFile {
            do {
                passphrase = try BackupKeys.passphrase(file: file)
            } catch {
                // The data is still backed up; the run counts as failed so the panel and the log say it.
                let advice = "the backup \(name) was taken without the server's keys; fix storage.backup.passphrase_file, then Back up now"
                outcome.failures.append(("passphrase_file", "\(error); \(advice)."))
                logger.warning("storage: \(error); \(advice).")
            }
        }
        let folders = schedule.destinations.filter { Rclone.destination($0, configFile: nil) == nil }
        // Put it together in the first folder that takes it, else in the staging folder.
        var source: URL?
        var sourcePrevious: URL?
        var sourceFolder = ""
        var tried: Set<String> = []
        for folder in folders + [schedule.staging] where source == nil {
            let isStaging = !folders.contains(folder)
            tried.insert(folder)
            let root = URL(fileURLWithPath: folder)
            do {
                step("copying the records and files into \(folder)")
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                let previous = BackupFiles.list(in: root).last.map { root.appendingPathComponent($0) }
                let target = root.appendingPathComponent(name)
                _ = try StorageBackup.backup(storage, appName: appName, to: target, previous: previous, passphrase: passphrase) { line in
                    logger.debug("storage: backup \(name): \(line)")
                    step(line)
                }
                source = target
                sourcePrevious = previous
                sourceFolder = folder
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
        let sourceIsStaging = !folders.contains(sourceFolder)
        // Read back: every file it added must match its checksum (what it hard-linked was checked before).
        do {
            step("checking every new file of \(name) against its checksum")
            try BackupFiles.verifyAndMark(source, trusting: sourcePrevious)
            outcome.size = try BackupFiles.measure(source, previous: sourcePrevious)
        } catch {
            fail(sourceIsStaging ? "staging folder \(sourceFolder)" : sourceFolder, error,
                 "what was written does not read back as it was: check the disk (dmesg, smartctl) and that it has room")
            for destination in schedule.destinations where destination != sourceFolder {
                outcome.failures.append((destination, "The backup \(name) was not copied to \(destination): it failed its check where it was put together (see the warnings before)."))
            }
            try? FileManager.default.removeItem(at: source)
            return outcome
        }
        if sourceIsStaging {
            // Staging keeps the newest only: the next backup links its unchanged blobs.
            let root = URL(fileURLWithPath: sourceFolder)
            for old in BackupFiles.list(in: root) where old != name { try? FileManager.default.removeItem(at: root.appendingPathComponent(old)) }
        } else {
            outcome.succeeded.insert(sourceFolder)
            outcome.written.append(source.standardizedFileURL.path)
        }
        for folder in folders where !tried.contains(folder) {
            do {
                step("copying \(name) to \(folder)")
                let root = URL(fileURLWithPath: folder)
                let previous = BackupFiles.list(in: root).last.map { root.appendingPathComponent($0) }
                try Self.copy(source, to: root)
                try BackupFiles.verifyAndMark(root.appendingPathComponent(name), trusting: previous)
                outcome.succeeded.insert(folder)
                outcome.written.append(root.appendingPathComponent(name).standardizedFileURL.path)
            } catch {
                fail(folder, error, "check that the folder exists, is writable and has room")
            }
        }
        for destination in schedule.destinations {
            guard let remote = Rclone.destination(destination, configFile: schedule.rcloneConfig) else { continue }
            do {
                step("uploading \(name) to \(destination)")
                let previous = try remote.list().last
                try remote.upload(source, name: name, previous: previous)
                outcome.succeeded.insert(destination)
                outcome.written.append(remote.location(name))
            } catch {
                fail(destination, error, "check the remote, its credentials in \(schedule.rcloneConfig ?? "the rclone config") and that it is reachable")
            }
        }
        // Pruned only where this backup arrived: a failing destination keeps what it has.
        for destination in schedule.destinations where outcome.succeeded.contains(destination) {
            step("pruning old backups in \(destination)")
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

    /// Sizes of backups in folders, by path (a finished backup does not change).
    private let measured = Mutex<[String: (bytes: Int, files: Int)]>([:])

    /// The backups kept in every destination, newest first (``ListRestorePoints``). Blocking
    /// (files, rclone): run it off the cooperative pool.
    func restorePoints() -> RestorePoints {
        var points: [RestorePoints.Point] = []
        var unreadable: [RestorePoints.Unreadable] = []
        let config = Self.configArgument.map { Self.absolute($0) } ?? "YOUR-APP.yaml"
        for destination in schedule.destinations {
            if let remote = Rclone.destination(destination, configFile: schedule.rcloneConfig) {
                do {
                    let names = try remote.list()
                    let sizes = names.isEmpty ? [:] : try remote.sizes()
                    let rcloneConfig = schedule.rcloneConfig.map { Self.absolute($0) } ?? "RCLONE.conf"
                    for name in names {
                        guard let date = BackupFiles.date(ofName: name) else { continue }
                        let size = sizes[name]
                        let location = remote.location(name)
                        points.append(.init(name: name, takenAt: date, to: destination, kind: "rclone", location: location,
                                            bytes: size?.bytes, files: size?.files, verified: size?.verifiedAt != nil, verifiedAt: size?.verifiedAt,
                                            restoreCommand: "quire restore --config \(Self.quoted(config)) --from \(Self.quoted(location)) --rclone-config \(Self.quoted(rcloneConfig))"))
                    }
                } catch {
                    unreadable.append(.init(to: destination, reason: "Its backups could not be listed (\(Self.describe(error))); check the remote, its credentials in \(schedule.rcloneConfig ?? "the rclone config") and that it is reachable."))
                }
                continue
            }
            let root = URL(fileURLWithPath: destination).standardizedFileURL
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder)
            let tried = state.withLock { $0.destinations.first { $0.to == destination } }
            if !exists, tried?.lastSuccess == nil, tried?.lastFailure == nil {
                // Not made yet: the first backup makes the folder (and its parents). Nothing kept, nothing wrong.
                continue
            }
            guard exists, isFolder.boolValue else {
                let reason = exists
                    ? "\(root.path) is a file, not a folder: move it away or name a folder in storage.backup.to, then back up now."
                    : tried?.lastSuccess != nil
                    ? "\(root.path) is not there any more (this server backed up to it before): check that it exists and is writable (a disk that is not mounted?), then back up now."
                    : "\(root.path) is not there and the last backup could not make it: check that it exists and is writable (a disk that is not mounted?), then back up now."
                unreadable.append(.init(to: destination, reason: reason))
                continue
            }
            for name in BackupFiles.list(in: root) {
                guard let date = BackupFiles.date(ofName: name) else { continue }
                let folder = root.appendingPathComponent(name)
                var size = measured.withLock { $0[folder.path] }
                if size == nil, let found = try? BackupFiles.measure(folder) {
                    size = (found.bytes, found.files)
                    measured.withLock { $0[folder.path] = (found.bytes, found.files) }
                }
                let verifiedAt = BackupFiles.verifiedAt(folder)
                points.append(.init(name: name, takenAt: date, to: destination, kind: "folder", location: folder.path,
                                    bytes: size?.bytes, files: size?.files, verified: verifiedAt != nil, verifiedAt: verifiedAt,
                                    restoreCommand: "quire restore --config \(Self.quoted(config)) --from \(Self.quoted(folder.path))"))
            }
        }
        // Forget the sizes of backups pruned since.
        let present = Set(points.map(\.location))
        measured.withLock { sizes in sizes = sizes.filter { present.contains($0.key) } }
        points.sort { ($0.takenAt, $0.location) > ($1.takenAt, $1.location) }
        return RestorePoints(enabled: true, points: points, unreadable: unreadable,
                             workingDirectory: FileManager.default.currentDirectoryPath)
    }

    /// The `--config FILE` this process was started with (`quire serve --config FILE`), for the
    /// restore commands it shows; nil when there is none (tests).
    static let configArgument: String? = {
        let arguments = CommandLine.arguments
        for (index, argument) in arguments.enumerated() {
            if argument == "--config", index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
        }
        return nil
    }()

    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// A word for a shell command line: as it is when it is safe, else in single quotes.
    static func quoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-")
        if !word.isEmpty, word.allSatisfy({ safe.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
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
        if reason == nil, let path { reason = obstacle(path) }
        guard let reason else { return "\(error.localizedDescription)" }
        return path.map { "\($0): \(reason)" } ?? reason
    }

    /// Why a file or folder at `path` cannot be made, when Foundation does not say (its error 512):
    /// the nearest folder above it that is there is a file, or is not writable.
    static func obstacle(_ path: String) -> String? {
        var url = URL(fileURLWithPath: path).standardizedFileURL
        while url.path != "/" {
            url = url.deletingLastPathComponent()
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            if !isFolder.boolValue { return "\(url.path) is a file, not a folder" }
            return FileManager.default.isWritableFile(atPath: url.path) ? nil : "\(url.path) is not writable"
        }
        return nil
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
