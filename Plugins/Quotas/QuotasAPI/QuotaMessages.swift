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
