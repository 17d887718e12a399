import Bus
import Crypto
import Foundation
import HTTPKit
import Logging
import PushAPI
import ServiceLifecycle
import StorageAPI
import SyncAPI

/// The alerts other plugins already send to a user's open apps (sync's `UserAlert`), sent on as
/// pushes to the phones whose app is closed: a reminder that is due (`reminders.due`, from the
/// reminders plugin) and pinned notebooks come near (`notebooks.nearby`, from notebooks, which
/// learns of it when a phone of the user's reports where it is). Other kinds are not pushed.
///
/// Events reach every node; the node that first records the alert's claim (a guarded insert of
/// its hash) sends it, so a cluster pushes each alert once.
struct PushAlerts: Service {
    let alerts: EventSubscription<UserAlert>
    let sender: PushSender
    let claims: PushClaims
    let logger: Logger

    func run() async throws {
        for await alert in alerts.cancelOnGracefulShutdown() {
            guard let notification = Self.notification(for: alert) else { continue }
            guard await claims.claim(user: alert.user, key: "\(alert.kind)\u{0}" + String(decoding: alert.data.bytes, as: UTF8.self)) else { continue }
            do {
                _ = try await sender.send(user: alert.user, notification.0, urgent: notification.1)
            } catch {
                logger.warning("push: an alert was not pushed", metadata: ["kind": "\(alert.kind)", "code": "\(error.code.rawValue)", "error": "\(error.message)"])
            }
        }
    }

    struct Due: Decodable {
        var subject: String?
        var title: String?
    }

    struct Nearby: Decodable {
        struct Notebook: Decodable {
            var id: String
            var name: String
            var distanceMeters: Double?
        }
        var notebooks: [Notebook]
    }

    /// What the phone shows for an alert, and whether it is urgent; nil for kinds not pushed.
    static func notification(for alert: UserAlert) -> (PushNotification, Bool)? {
        switch alert.kind {
        case "reminders.due":
            guard let due = try? alert.data.decode(Due.self) else { return nil }
            let title = (due.title ?? "").isEmpty ? "Reminder" : "Reminder: \(due.title ?? "")"
            let subject = due.subject ?? ""
            return (PushNotification(title: title, body: "Tap to open it.", tag: "reminder:\(subject)", url: route(of: subject)), true)
        case "notebooks.nearby":
            guard let nearby = try? alert.data.decode(Nearby.self), let first = nearby.notebooks.first else { return nil }
            let others = nearby.notebooks.count - 1
            let distance = first.distanceMeters.map { " is \(Int($0.rounded())) m away" } ?? " is near"
            let body = "“\(first.name)”\(distance)" + (others > 0 ? ", and \(others) more pinned notebook\(others == 1 ? "" : "s")." : ".")
                + " Tap to open it."
            return (PushNotification(title: "A pinned notebook is near", body: body, tag: "nearby:\(first.id)",
                                     url: "#/n/\(first.id)"), false)
        default:
            return nil
        }
    }

    /// A subject (`notes/n_…`, `photos/p_…`) as the client's route that shows it.
    static func route(of subject: String) -> String {
        let parts = subject.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else { return "#/" }
        switch parts[0] {
        case "notes": return "#/notes/\(parts[1])"
        case "photos": return "#/photo/\(parts[1])"
        case "notebooks": return "#/n/\(parts[1])"
        default: return "#/"
        }
    }
}

/// Who sends an alert, in a cluster: a record per alert (`push.claims`), inserted once; kept ten
/// minutes, then swept.
struct PushClaims: Sendable {
    static let collection = "push.claims"
    static let schema = CollectionSchema(name: collection, indexes: [IndexSpec(name: "at", fields: ["at"], scope: .global)])
    static let keep: TimeInterval = 600
    static let owner = "push"

    struct Claim: Codable {
        var at: String
    }

    let store: any RecordStore
    let now: @Sendable () -> Date

    func claim(user: String, key: String) async -> Bool {
        let id = "pc_" + SHA256.hash(data: Data((user + "\u{0}" + key).utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        do {
            let document = try JSONDocument(encoding: Claim(at: JSONWriter.iso8601(now())))
            _ = try await store.write(WriteBatch([.insert(collection: Self.collection, id: id, owner: Self.owner, data: document)]))
            return true
        } catch where error.code == .conflict {
            return false
        } catch {
            return true  // storage trouble: better twice than never
        }
    }

    func sweep() async {
        let before = JSONWriter.iso8601(now().addingTimeInterval(-Self.keep))
        guard let page = try? await store.query(RecordQuery(collection: Self.collection, owner: nil, filters: [Filter("at", .lt, .string(before))],
                                                            order: [SortKey("at")], limit: 500)) else { return }
        for record in page.records { try? await store.delete(from: Self.collection, id: record.id, owner: record.owner) }
    }
}
