public import Bus
public import Foundation

/// How the scheduled backups are doing, for the operator's "Backups" panel. Whoever runs scheduled
/// backups answers it (`bus.handle(GetBackupStatus.self) { … }`); with no handler the panel says
/// "not configured".
public struct GetBackupStatus: BusRequest {
    public static let name: MessageName = "storage.backup.status.v1"
    public struct Reply: Codable, Sendable, Hashable {
        /// `ok`, `failing` or `not-configured`.
        public var status: String
        /// A sentence for the operator: what is scheduled, what went wrong and what to do.
        public var detail: String
        public var lastSuccessAt: Date?
        public var lastFailureAt: Date?
        public var nextAt: Date?
        /// Where backups are written.
        public var destination: String?
        public init(status: String, detail: String, lastSuccessAt: Date? = nil, lastFailureAt: Date? = nil, nextAt: Date? = nil,
                    destination: String? = nil) {
            self.status = status
            self.detail = detail
            self.lastSuccessAt = lastSuccessAt
            self.lastFailureAt = lastFailureAt
            self.nextAt = nextAt
            self.destination = destination
        }
    }
    public init() {}
}
