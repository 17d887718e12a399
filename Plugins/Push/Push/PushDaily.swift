import AlbumAPI
import Bus
import Crypto
import Foundation
import HTTPKit
import Logging
import PushAPI
import ServiceLifecycle
import StorageAPI

/// iRemember's daily "On this day" push: at the hour the user chose, in their time zone, when the
/// album has photos taken on this month and day in earlier years ("3 years ago today: the picnic
/// with Tom"). Nothing is sent on a day without any. Each user's choice is one record
/// (`push.daily`); a day is marked sent by a write guarded by the version read, so of several
/// nodes looking exactly one sends it.
struct PushDaily: Sendable {
    static let collection = "push.daily"
    static let schema = CollectionSchema(name: collection, indexes: [IndexSpec(name: "hour", fields: ["hour"], scope: .global)])
    /// One per owner (record ids are unique across owners).
    static func id(_ owner: String) -> String {
        "pd_" + SHA256.hash(data: Data(owner.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    struct Choice: Codable, Sendable, Equatable {
        /// 0...23, the user's local hour.
        var hour: Int
        /// An IANA zone name (the phone's `Intl.DateTimeFormat().resolvedOptions().timeZone`).
        var timeZone: String
        /// The local date last looked at (sent or not), `YYYY-MM-DD`.
        var lastDay: String?
    }

    struct Input: Decodable {
        var hour: Int?
        var timeZone: String?
    }

    let store: any RecordStore
    let bus: any MessageBus
    let sender: PushSender
    let logger: Logger
    let now: @Sendable () -> Date

    func choice(owner: String) async throws(BusError) -> Choice? {
        try await store.get(collection: Self.collection, id: Self.id(owner), owner: owner)?.decode(Choice.self)
    }

    func set(owner: String, _ input: Input) async throws(BusError) -> Choice {
        guard let hour = input.hour, (0...23).contains(hour) else {
            throw BusError.invalid("'hour' is the hour of the day the alert comes, 0 to 23.", field: "hour")
        }
        guard let zone = input.timeZone, TimeZone(identifier: zone) != nil else {
            throw BusError.invalid("'timeZone' is a time zone name such as Europe/London (the phone's own).", field: "timeZone")
        }
        var choice = Choice(hour: hour, timeZone: zone, lastDay: nil)
        // Moving the hour later today still sends today's, once.
        if let existing = try await self.choice(owner: owner) { choice.lastDay = existing.lastDay }
        let document = try JSONDocument(encoding: choice)
        if try await store.get(collection: Self.collection, id: Self.id(owner), owner: owner) != nil {
            _ = try await store.write(WriteBatch([.replace(collection: Self.collection, id: Self.id(owner), owner: owner, data: document, expectedVersion: nil)]))
        } else {
            _ = try await store.write(WriteBatch([.insert(collection: Self.collection, id: Self.id(owner), owner: owner, data: document)]))
        }
        return choice
    }

    func stop(owner: String) async throws(BusError) {
        guard try await store.get(collection: Self.collection, id: Self.id(owner), owner: owner) != nil else { return }
        try await store.delete(from: Self.collection, id: Self.id(owner), owner: owner)
    }

    /// The local date and hour of `date` in `zone`.
    static func local(_ date: Date, _ zone: TimeZone) -> (day: String, hour: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour], from: date)
        return (String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1), parts.hour ?? 0)
    }

    /// Sends what is due now; answers how many were sent.
    func run() async -> Int {
        let now = self.now()
        var sent = 0
        var cursor: String?
        repeat {
            guard let page = try? await store.query(RecordQuery(collection: Self.collection, owner: nil, order: [SortKey("hour")],
                                                                limit: RecordQuery.maxLimit, cursor: cursor)) else { return sent }
            for record in page.records {
                guard var choice = try? record.decode(Choice.self), let zone = TimeZone(identifier: choice.timeZone) else { continue }
                let here = Self.local(now, zone)
                guard here.hour == choice.hour, choice.lastDay != here.day else { continue }
                choice.lastDay = here.day
                do {
                    _ = try await store.write(WriteBatch([.replace(collection: Self.collection, id: record.id, owner: record.owner,
                                                                   data: try JSONDocument(encoding: choice), expectedVersion: record.version)]))
                } catch {
                    continue  // another node took it, or it changed meanwhile
                }
                if await send(owner: record.owner, day: here.day) { sent += 1 }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return sent
    }

    func send(owner: String, day: String) async -> Bool {
        guard let memories = try? await bus.request(FindOnThisDay(owner: owner, date: day)), let nearest = memories.years.first,
              let first = nearest.photos.first else { return false }
        let label = "\(nearest.yearsAgo) year\(nearest.yearsAgo == 1 ? "" : "s") ago today"
        let count = memories.years.reduce(0) { $0 + $1.photos.count }
        let what = first.caption.isEmpty ? "a photo" : first.caption
        let more = count > 1 ? " (and \(count - 1) more)" : ""
        let notification = PushNotification(title: "On this day", body: "\(label): \(what)\(more)", tag: "on-this-day:\(day)", url: "#/")
        do {
            return try await sender.send(user: owner, notification, urgent: false).sent > 0
        } catch {
            logger.warning("push: the On this day alert was not sent", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
            return false
        }
    }
}

/// Asks every minute for the daily pushes that are due, and sweeps old claims.
struct PushDailyRunner: Service {
    let bus: any MessageBus
    let claims: PushClaims
    let every: Duration

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = try? await bus.request(RunDailyPushes(), timeout: .seconds(120))
            await claims.sweep()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: every) }
            } catch {
                return
            }
        }
    }
}
