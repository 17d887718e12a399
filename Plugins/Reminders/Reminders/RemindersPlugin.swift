public import AppConfig
import Bus
import Crypto
import Foundation
public import HTTPKit
import Hummingbird
import Logging
public import PluginKit
import RemindersAPI
public import ServiceLifecycle
import StorageAPI
import SyncAPI

/// The `reminders` plugin: a time on anything a user owns (a note), at which the user's devices
/// are told. A capability: no app logic, composed in by YAML.
///
/// The schedule is in storage (`reminders.reminders`, one record per owner and subject), so it
/// survives restarts. Every node looks for due reminders every second; firing is a guarded write
/// (pending → fired, at the version it read), so exactly one node fires each, however many look.
/// The fired record reaches the user's devices through sync's feed (`reminders.reminder`), which
/// is what a device offline at that moment catches up with; devices online get a live poke at
/// once (`{"type": "alert", "kind": "reminders.due"}`), which the client turns into a notification.
///
/// ```yaml
/// reminders: { check_seconds: 1 }
/// ```
public struct RemindersPlugin: Plugin {
    public struct Config: Sendable {
        var checkSeconds: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "reminders",
        summary: "Reminders: a time on a note (or anything a user owns) at which the user's devices are told, once, from a durable schedule",
        dependencies: ["storage", "auth"],
        settings: [
            SettingDescription("check_seconds", "int 1...60", default: "1", "How often each node looks for reminders that are due"),
        ],
        offers: [SyncedReminder.self])

    public static func configure(_ section: ConfigSection) -> Config {
        Config(checkSeconds: section.int("check_seconds", default: 1, in: 1...60))
    }

    let service: ReminderService
    let firer: ReminderFirer
    let forgetter: ReminderForgetter
    /// The subject kinds the app's plugins offer: a user's reminder is of one of theirs, checked first.
    let subjects: SubjectRules

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        try await store.declare(ReminderService.schema)
        service = ReminderService(store: store, bus: context.bus, clock: context.clock, logger: context.logger)
        firer = ReminderFirer(bus: context.bus, every: .seconds(config.checkSeconds), logger: context.logger)
        forgetter = ReminderForgetter(service: service, deleted: context.bus.subscribe(to: SubjectDeleted.self))
        subjects = SubjectRules(offers: context.offers)
    }

    public var features: [String] { ["reminders"] }
    public var services: [any Service] { [firer, forgetter] }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(SetReminder.self) { request, _ in
            try await service.set(owner: request.owner, subject: request.subject, title: request.title, at: request.at)
        }
        try bus.handle(CancelReminder.self) { request, _ in
            do throws(BusError) {
                try await service.cancel(owner: request.owner, subject: request.subject)
                return true
            } catch where error.code == .notFound {
                return false
            }
        }
        try bus.handle(FireDueReminders.self) { _, _ in .init(fired: await service.fireDue()) }
        try bus.handle(ShowSynced<SyncedReminder>.self) { request, _ in
            .init(shown: request.records.map { record in
                guard record.owner == request.viewer, let reminder = try? record.decode(Reminder.self) else { return nil }
                return try? JSONDocument(encoding: ReminderJSON(record, reminder))
            })
        }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let service = self.service
        let subjects = self.subjects
        try routes.add(.put, "", summary: "Set (or move) my reminder of a subject of mine: {\"subject\": \"notes/ID\", \"at\", \"title\"}; pending until it fires; "
                       + "404 for a subject that does not exist or is not mine") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(ReminderInput.self, context: context)
            guard let subject = input.subject, let at = input.at else {
                throw Problem.badRequest("A reminder needs 'subject' (kind/id, e.g. notes/n_…) and 'at' (an ISO 8601 time).")
            }
            _ = try service.validate(subject: subject, title: input.title ?? "Reminder", at: at)
            // The subject's own plugin says whether it exists and is the caller's to write.
            try await subjects.requireWritable(subject, caller: identity.accountID, on: service.bus)
            let record = try await service.setRecord(owner: identity.accountID, subject: subject, title: input.title ?? "Reminder", at: at)
            return try .json(ReminderJSON(record, try record.decode(Reminder.self)))
        }
        try routes.add(.get, "", query: ["state"], summary: "My reminders, soonest first; ?state=pending|fired") { request, _, identity in
            let state = try request.query("state")
            if let state, !["pending", "fired"].contains(state) {
                throw Problem.badRequest("'state' is pending or fired, not '\(state)'.", field: "state")
            }
            let records = try await service.list(owner: identity.accountID, state: state)
            return try .json(ListPage(items: try records.map { ReminderJSON($0, try $0.decode(Reminder.self)) }, nextCursor: nil))
        }
        try routes.add(.delete, "", query: ["subject"], summary: "Cancel my reminder of ?subject") { request, _, identity in
            try await service.cancel(owner: identity.accountID, subject: try request.query("subject", required: true) ?? "")
            return .noContent
        }
    }
}

struct ReminderInput: Decodable {
    var subject: String?
    var title: String?
    var at: Date?
}

/// A reminder as the API and sync's feed show it.
struct ReminderJSON: Encodable {
    var id: String
    var version: Int64
    var subject: String
    var title: String
    var at: Date
    var state: String
    var firedAt: Date?

    init(_ record: Record, _ reminder: Reminder) {
        id = record.id
        version = record.version
        subject = reminder.subject
        title = reminder.title
        at = reminder.at
        state = reminder.state
        firedAt = reminder.firedAt
    }
}

struct ReminderService: Sendable {
    static let collection = SyncedReminder.collection
    static let schema = CollectionSchema(name: collection, indexes: [
        // Every node's look for what is due spans all owners.
        IndexSpec(name: "due", fields: ["state", "at"], scope: .global),
        IndexSpec(name: "mine", fields: ["at"]),
    ])
    static let maxTitle = 200
    /// How far ahead a reminder may be set.
    static let maxAhead: TimeInterval = 10 * 366 * 86_400

    let store: any RecordStore
    let bus: any MessageBus
    let clock: PluginClock
    let logger: Logger

    /// One record per owner and subject.
    static func id(owner: String, subject: String) -> String {
        "rm_" + SHA256.hash(data: Data((owner + "\u{0}" + subject).utf8)).prefix(20).map { String(format: "%02x", $0) }.joined()
    }

    func set(owner: String, subject: String, title: String, at: Date) async throws(BusError) -> Reminder {
        try await setRecord(owner: owner, subject: subject, title: title, at: at).decode(Reminder.self)
    }

    /// Checks a reminder's fields; answers the title as stored (trimmed).
    func validate(subject: String, title: String, at: Date) throws(BusError) -> String {
        guard let slash = subject.firstIndex(of: "/"), slash != subject.startIndex, subject.index(after: slash) < subject.endIndex,
              subject.utf8.count <= 300, !subject.contains(where: { $0.isNewline || $0.isWhitespace }) else {
            throw BusError.invalid("A reminder's subject is 'kind/id' (notes/n_…), at most 300 bytes, without spaces.", field: "subject")
        }
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxTitle).contains(title.count) else {
            throw BusError.invalid("A reminder's title is 1 to \(Self.maxTitle) characters.", field: "title")
        }
        guard at.timeIntervalSince(clock.now()) <= Self.maxAhead else {
            throw BusError.invalid("A reminder is at most ten years ahead.", field: "at")
        }
        return title
    }

    func setRecord(owner: String, subject: String, title: String, at: Date) async throws(BusError) -> Record {
        let title = try validate(subject: subject, title: title, at: at)
        // A time already past fires at the next look: a device that set it offline still hears of it.
        let reminder = Reminder(subject: subject, title: title, at: Date(timeIntervalSince1970: at.timeIntervalSince1970.rounded(.down)),
                                state: "pending", firedAt: nil)
        let id = Self.id(owner: owner, subject: subject)
        let document = try JSONDocument(encoding: reminder)
        for _ in 0..<3 {
            if let existing = try await store.get(collection: Self.collection, id: id, owner: owner) {
                do {
                    let result = try await store.write(WriteBatch([.replace(collection: Self.collection, id: id, owner: owner, data: document,
                                                                            expectedVersion: existing.version)]))
                    if let record = result.records.first ?? nil { return record }
                } catch where error.code == .preconditionFailed {
                    continue
                }
            } else {
                do {
                    let result = try await store.write(WriteBatch([.insert(collection: Self.collection, id: id, owner: owner, data: document)]))
                    if let record = result.records.first ?? nil { return record }
                } catch where error.code == .conflict {
                    continue
                }
            }
        }
        throw BusError(.conflict, "The reminder kept changing while it was set (another device?); try again.")
    }

    func list(owner: String, state: String?) async throws(BusError) -> [Record] {
        var records: [Record] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.collection, owner: owner, order: [SortKey("at")],
                                                         limit: RecordQuery.maxLimit, cursor: cursor))
            records += page.records.filter { record in state == nil || (try? record.decode(Reminder.self).state) == state }
            cursor = page.nextCursor
        } while cursor != nil
        return records
    }

    func cancel(owner: String, subject: String) async throws(BusError) {
        let id = Self.id(owner: owner, subject: subject)
        guard try await store.get(collection: Self.collection, id: id, owner: owner) != nil else {
            throw BusError(.notFound, "No reminder of '\(subject)'.", details: ["field": "subject"])
        }
        try await store.delete(from: Self.collection, id: id, owner: owner)
    }

    /// Fires what is due: each by a write guarded by the version read, so of several nodes
    /// looking at once exactly one fires it; then its owner's devices are poked.
    func fireDue() async -> Int {
        let now = clock.now()
        var fired = 0
        do {
            let due = try await store.query(RecordQuery(collection: Self.collection, owner: nil,
                                                        filters: [Filter("state", .eq, .string("pending")),
                                                                  Filter("at", .lte, .string(JSONWriter.iso8601(now)))],
                                                        order: [SortKey("state"), SortKey("at")], limit: 100))
            for record in due.records {
                guard var reminder = try? record.decode(Reminder.self), reminder.state == "pending" else { continue }
                reminder.state = "fired"
                reminder.firedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
                do {
                    _ = try await store.write(WriteBatch([.replace(collection: Self.collection, id: record.id, owner: record.owner,
                                                                   data: try JSONDocument(encoding: reminder), expectedVersion: record.version)]))
                } catch where error.code == .preconditionFailed || error.code == .notFound {
                    continue  // another node fired it, or it was moved or cancelled meanwhile
                }
                fired += 1
                let alert = (try? JSONDocument(encoding: ["subject": reminder.subject, "title": reminder.title, "at": JSONWriter.iso8601(reminder.at)]))
                    ?? JSONDocument(trustedBytes: Data("{}".utf8))
                await bus.publish(UserAlert(user: record.owner, kind: "reminders.due", data: alert))
            }
        } catch {
            logger.warning("reminders: looking for due reminders failed; looking again shortly",
                           metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
        }
        return fired
    }
}

/// A subject deleted by its plugin (a note) takes its owner's reminder with it.
struct ReminderForgetter: Service {
    let service: ReminderService
    let deleted: EventSubscription<SubjectDeleted>

    func run() async throws {
        for await event in deleted.cancelOnGracefulShutdown() {
            try? await service.cancel(owner: event.owner, subject: event.subject)
        }
    }
}

/// Asks, every few seconds, for the due reminders to be fired (on this node; the request is
/// answered here first).
struct ReminderFirer: Service {
    let bus: any MessageBus
    let every: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = try? await bus.request(FireDueReminders(), timeout: .seconds(30))
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: every) }
            } catch {
                return
            }
        }
    }
}
