public import Bus
public import Foundation

/// Where scheduled backups stand (`storage.backup` in the app's YAML), for an admin screen:
/// `GetBackupDetail` (`storage.backup.status.v1`) on the bus answers it from the storage plugin of the node that runs them.
public struct BackupStatus: Codable, Sendable, Equatable {
    /// One destination (`to:` entry) and how its last backups went.
    public struct Destination: Codable, Sendable, Equatable {
        /// The `to:` entry as written: a folder, or `rclone:remote:path`.
        public var to: String
        public var lastSuccess: Date?
        public var lastFailure: Date?
        /// One sentence: what failed and what to do.
        public var lastError: String?
        public init(to: String, lastSuccess: Date? = nil, lastFailure: Date? = nil, lastError: String? = nil) {
            self.to = to
            self.lastSuccess = lastSuccess
            self.lastFailure = lastFailure
            self.lastError = lastError
        }
    }

    /// False when the app's YAML has no `storage.backup`: nothing else is meaningful then.
    public var enabled: Bool
    /// The interval between backups, in seconds.
    public var everySeconds: Double?
    /// The last backup every destination took, and its name (its folder's name in each destination).
    public var lastSuccess: Date?
    public var lastSuccessName: String?
    /// The last backup that failed (at least one destination) or was missed, and why, in one sentence.
    public var lastFailure: Date?
    public var lastFailureReason: String?
    /// When the next one starts.
    public var nextDue: Date?
    /// Whether one is being taken now.
    public var running: Bool
    /// Counts since the server started.
    public var succeeded: Int
    public var failed: Int
    public var missed: Int
    public var destinations: [Destination]
    /// The backup being taken now, or the last one taken since the server started (scheduled or
    /// started by an operator): what it wrote, where, how big, or what failed.
    public var lastRun: BackupRun?

    public init(enabled: Bool, everySeconds: Double? = nil, lastSuccess: Date? = nil, lastSuccessName: String? = nil,
                lastFailure: Date? = nil, lastFailureReason: String? = nil, nextDue: Date? = nil, running: Bool = false,
                succeeded: Int = 0, failed: Int = 0, missed: Int = 0, destinations: [Destination] = [], lastRun: BackupRun? = nil) {
        self.enabled = enabled
        self.everySeconds = everySeconds
        self.lastSuccess = lastSuccess
        self.lastSuccessName = lastSuccessName
        self.lastFailure = lastFailure
        self.lastFailureReason = lastFailureReason
        self.nextDue = nextDue
        self.running = running
        self.succeeded = succeeded
        self.failed = failed
        self.missed = missed
        self.destinations = destinations
        self.lastRun = lastRun
    }
}

/// One backup being taken or taken: its progress, then what it wrote where and how big, or what failed.
public struct BackupRun: Codable, Sendable, Equatable {
    /// One destination the backup could not reach, and why (what failed and what to do).
    public struct Failure: Codable, Sendable, Equatable {
        public var to: String
        public var reason: String
        public init(to: String, reason: String) {
            self.to = to
            self.reason = reason
        }
    }
    public enum State: String, Codable, Sendable { case running, succeeded, failed }
    /// Its name: its folder's name in each destination (its UTC time, `2025-01-31T235959Z`).
    public var name: String
    /// `schedule`, or `operator` ("Back up now").
    public var trigger: String
    public var state: State
    public var startedAt: Date
    public var finishedAt: Date?
    /// While running: what it is doing now ("copying the records", "blobs: 120 copied", "uploading to rclone:…").
    public var step: String?
    /// Every file of the backup (what a restore reads), and how many files.
    public var bytes: Int?
    public var files: Int?
    /// What this backup added to the one before it in the same folder (the rest is hard-linked).
    public var newBytes: Int?
    /// Where it was written, each a full location (a folder path, or `rclone:REMOTE:PATH/NAME`).
    public var written: [String]
    public var failures: [Failure]

    public init(name: String, trigger: String, state: State, startedAt: Date, finishedAt: Date? = nil, step: String? = nil,
                bytes: Int? = nil, files: Int? = nil, newBytes: Int? = nil, written: [String] = [], failures: [Failure] = []) {
        self.name = name
        self.trigger = trigger
        self.state = state
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.step = step
        self.bytes = bytes
        self.files = files
        self.newBytes = newBytes
        self.written = written
        self.failures = failures
    }
}

/// The scheduled backups' status (see ``BackupStatus``: the last success, the last failure and
/// why, the next one due, each destination's own). Answered by the storage plugin of the node that
/// runs them; `enabled: false` when the app's YAML has no `storage.backup`.
public struct GetBackupDetail: BusRequest {
    public static let name: MessageName = "storage.backup.status.v1"
    public typealias Reply = BackupStatus
    /// Quick: the scheduler's status is a copy of a value kept in memory, taken under a lock its
    /// writers hold only to update that value (no file is read, nothing is awaited).
    public static var quick: Bool { true }
    public init() {}
}

/// Takes a backup now, to every `storage.backup` destination, beside the schedule ("Back up now"
/// on the operator's screen). Answers at once with the status, its ``BackupStatus/lastRun``
/// running; ``GetBackupDetail`` follows its progress and says what it wrote, or what failed.
/// Refused with `conflict` while a backup is being taken, `invalid` when the YAML has no
/// `storage.backup`.
public struct StartBackup: BusRequest {
    public static let name: MessageName = "storage.backup.start.v1"
    public typealias Reply = BackupStatus
    /// Who asked (an operator's account id), for the log.
    public var requestedBy: String?
    public init(requestedBy: String? = nil) { self.requestedBy = requestedBy }
}

/// The backups kept in every `storage.backup` destination (folders and rclone remotes), newest
/// first: when, how big, where, whether their checksums were checked, and the command that
/// restores each. A destination that cannot be read is listed in ``RestorePoints/unreadable``.
public struct ListRestorePoints: BusRequest {
    public static let name: MessageName = "storage.backup.points.v1"
    public typealias Reply = RestorePoints
    public init() {}
}

public struct RestorePoints: Codable, Sendable, Equatable {
    public struct Point: Codable, Sendable, Equatable {
        /// The backup's name (its UTC time).
        public var name: String
        public var takenAt: Date
        /// The `to:` entry it is in, as written in the YAML.
        public var to: String
        /// `folder` or `rclone`.
        public var kind: String
        /// The backup itself: a folder's absolute path, or `rclone:REMOTE:PATH/NAME`.
        public var location: String
        /// Every file of it, and how many; nil when they could not be measured.
        public var bytes: Int?
        public var files: Int?
        /// Whether every file was read back and matched its SHA-256 in `manifest.json` after it was written.
        public var verified: Bool
        public var verifiedAt: Date?
        /// The command that restores it (with the server stopped).
        public var restoreCommand: String
        public init(name: String, takenAt: Date, to: String, kind: String, location: String, bytes: Int?, files: Int?,
                    verified: Bool, verifiedAt: Date?, restoreCommand: String) {
            self.name = name
            self.takenAt = takenAt
            self.to = to
            self.kind = kind
            self.location = location
            self.bytes = bytes
            self.files = files
            self.verified = verified
            self.verifiedAt = verifiedAt
            self.restoreCommand = restoreCommand
        }
    }
    /// A destination whose backups could not be listed, and why (what to check).
    public struct Unreadable: Codable, Sendable, Equatable {
        public var to: String
        public var reason: String
        public init(to: String, reason: String) {
            self.to = to
            self.reason = reason
        }
    }
    /// False when the YAML has no `storage.backup` (there is nothing to list).
    public var enabled: Bool
    public var points: [Point]
    public var unreadable: [Unreadable]
    /// The folder the server runs in: `quire restore` reads the YAML's relative paths from there.
    public var workingDirectory: String?
    public init(enabled: Bool, points: [Point] = [], unreadable: [Unreadable] = [], workingDirectory: String? = nil) {
        self.enabled = enabled
        self.points = points
        self.unreadable = unreadable
        self.workingDirectory = workingDirectory
    }
}
