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

    public init(enabled: Bool, everySeconds: Double? = nil, lastSuccess: Date? = nil, lastSuccessName: String? = nil,
                lastFailure: Date? = nil, lastFailureReason: String? = nil, nextDue: Date? = nil, running: Bool = false,
                succeeded: Int = 0, failed: Int = 0, missed: Int = 0, destinations: [Destination] = []) {
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
    }
}

/// The scheduled backups' status (see ``BackupStatus``: the last success, the last failure and
/// why, the next one due, each destination's own). Answered by the storage plugin of the node that
/// runs them; `enabled: false` when the app's YAML has no `storage.backup`.
public struct GetBackupDetail: BusRequest {
    public static let name: MessageName = "storage.backup.status.v1"
    public typealias Reply = BackupStatus
    public init() {}
}
