public import Foundation
import Synchronization

/// The process's last warnings and errors, newest last: a ring of `capacity` entries the log
/// handler feeds (`LineLogHandler` in AppHost) and the operator's screen reads
/// (`GET /api/v1/admin/logs`). It holds what the log lines hold — never more — so no secret that
/// is kept out of the log can be found here. One per process: in a cluster each node keeps its own.
public final class RecentLog: Sendable {
    public struct Entry: Codable, Sendable, Hashable {
        public var at: Date
        /// `warning`, `error` or `critical`.
        public var level: String
        public var message: String
        /// The request being served when it was written, if any (`X-Request-Id`, a problem's `requestId`).
        public var requestID: String?
        /// The line's other fields, as the log line shows them (`plugin`, `error.message`, …).
        public var fields: [String: String]

        public init(at: Date, level: String, message: String, requestID: String?, fields: [String: String]) {
            self.at = at
            self.level = level
            self.message = message
            self.requestID = requestID
            self.fields = fields
        }
    }

    /// The one every log handler of the process feeds.
    public static let shared = RecentLog()

    public let capacity: Int
    private let ring = Mutex<(entries: [Entry], next: Int, total: Int)>(([], 0, 0))

    public init(capacity: Int = 100) {
        self.capacity = max(1, capacity)
    }

    public func append(_ entry: Entry) {
        let capacity = self.capacity
        ring.withLock { ring in
            if ring.entries.count < capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
            }
            ring.next = (ring.next + 1) % capacity
            ring.total += 1
        }
    }

    /// What the ring holds, oldest first.
    public var entries: [Entry] {
        ring.withLock { ring in
            ring.entries.count < capacity ? ring.entries : Array(ring.entries[ring.next...] + ring.entries[..<ring.next])
        }
    }

    /// How many entries were ever appended (more than ``capacity`` means older ones were dropped).
    public var total: Int { ring.withLock { $0.total } }
}
