public import Bus

// What the server's operator asks storage (the admin plugin).

/// Deletes every record one owner has, in every collection this process declared, through the
/// ordinary write path (the change log, search and spatial indexes, caches on other nodes follow);
/// the blobs only those records held go as every let-go blob does (after storage's grace period).
/// What an operator's "delete this user" does after auth has ended their sessions.
public struct EraseOwner: BusRequest {
    public static let name: MessageName = "storage.owner.erase.v1"
    public struct Reply: Codable, Sendable, Hashable {
        /// Records deleted, by collection.
        public var deleted: [String: Int]
        public init(deleted: [String: Int]) { self.deleted = deleted }
    }
    public var owner: String
    public init(owner: String) { self.owner = owner }
}

/// How the storage is: its backend, whether the database answers (and how fast), what the blobs
/// take, and the disk under the data folder. For the operator's health and storage screens.
public struct GetStorageStatus: BusRequest {
    public static let name: MessageName = "storage.status.get.v1"
    public struct Reply: Codable, Sendable, Hashable {
        /// `sqlite`, `postgres` or `memory`.
        public var backend: String
        public var databaseOK: Bool
        /// Why the database did not answer.
        public var databaseProblem: String?
        public var databaseMilliseconds: Double
        /// The SQLite file and its write-ahead log; nil for the other backends.
        public var databaseBytes: Int?
        public var blobCount: Int
        public var blobBytes: Int
        /// The blob folder; nil in memory.
        public var dataFolder: String?
        public var diskFreeBytes: Int?
        public var diskTotalBytes: Int?
        public init(backend: String, databaseOK: Bool, databaseProblem: String?, databaseMilliseconds: Double, databaseBytes: Int?,
                    blobCount: Int, blobBytes: Int, dataFolder: String?, diskFreeBytes: Int?, diskTotalBytes: Int?) {
            self.backend = backend
            self.databaseOK = databaseOK
            self.databaseProblem = databaseProblem
            self.databaseMilliseconds = databaseMilliseconds
            self.databaseBytes = databaseBytes
            self.blobCount = blobCount
            self.blobBytes = blobBytes
            self.dataFolder = dataFolder
            self.diskFreeBytes = diskFreeBytes
            self.diskTotalBytes = diskTotalBytes
        }
    }
    public init() {}
}

/// The operator's storage messages, for name checks.
public enum StorageAdminMessages {
    public static let all: [any BusMessage.Type] = [EraseOwner.self, GetStorageStatus.self]
}
