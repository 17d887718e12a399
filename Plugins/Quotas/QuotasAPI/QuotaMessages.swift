public import Bus

/// One user's use against the app's limits (the quotas plugin's `GET /quotas/usage`, asked for
/// anyone by the server's operator).
public struct GetQuotaUsage: BusRequest {
    public static let name: MessageName = "quotas.usage.get.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public var storedBytes: Int
        public var maxStoredBytes: Int
        public var operationsToday: Int
        public var maxOperationsPerDay: Int
        public var maxImageBytes: Int
        public init(storedBytes: Int, maxStoredBytes: Int, operationsToday: Int, maxOperationsPerDay: Int, maxImageBytes: Int) {
            self.storedBytes = storedBytes
            self.maxStoredBytes = maxStoredBytes
            self.operationsToday = operationsToday
            self.maxOperationsPerDay = maxOperationsPerDay
            self.maxImageBytes = maxImageBytes
        }
    }
    public var owner: String
    public init(owner: String) { self.owner = owner }
}

/// The operator sets one user's stored-bytes limit (`PUT /api/v1/admin/users/{id}/quota`);
/// `maxStoredBytes` nil puts it back to the app's (`quotas.max_stored_bytes_per_user`).
/// Answers the user's use against their limits, the new one among them.
public struct SetStoredBytesLimit: BusRequest {
    public static let name: MessageName = "quotas.limit.set.v1"
    public typealias Reply = GetQuotaUsage.Reply
    public var owner: String
    public var maxStoredBytes: Int?
    public init(owner: String, maxStoredBytes: Int?) {
        self.owner = owner
        self.maxStoredBytes = maxStoredBytes
    }
}

/// Several users' stored-bytes limits at once (the operator's list of users).
public struct GetStoredBytesLimits: BusRequest {
    public static let name: MessageName = "quotas.limits.get.v1"
    public struct Reply: Codable, Sendable, Hashable {
        /// Each owner's limit, the app's where none of their own was set.
        public var maxStoredBytes: [String: Int]
        public init(maxStoredBytes: [String: Int]) { self.maxStoredBytes = maxStoredBytes }
    }
    public var owners: [String]
    public init(owners: [String]) { self.owners = owners }
}
