import Bus
import Foundation
import Logging
import PluginKit
import PushAPI
import SafeFetch

/// Sends one notification to each of a user's subscriptions: the JSON the service worker shows,
/// encrypted for that subscription (RFC 8291), POSTed to its endpoint with VAPID (RFC 8292),
/// TTL and Urgency (RFC 8030). A push service's 404 or 410 means the subscription is gone: it is
/// deleted. Endpoints are fetched through SafeFetch (no private or loopback addresses).
struct PushSender: Sendable {
    let subscriptions: PushSubscriptions
    let vapid: VAPID
    let fetcher: SafeFetcher
    let ttl: Int
    let clock: PluginClock
    let logger: Logger

    /// What the service worker reads (sw.js): title, body, tag, url, icon.
    struct Payload: Encodable {
        var title: String
        var body: String
        var tag: String
        var url: String
        var icon: String
    }

    func send(user: String, _ notification: PushNotification, urgent: Bool) async throws(BusError) -> SendPush.Reply {
        let payload = Payload(title: String(notification.title.prefix(120)), body: String(notification.body.prefix(400)),
                              tag: String(notification.tag.prefix(200)), url: notification.url, icon: "/icon-192.png")
        let plaintext: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            plaintext = try encoder.encode(payload)
        } catch {
            throw BusError(.internal, "The notification could not be written as JSON.")
        }
        var sent = 0, removed = 0
        for (id, subscription) in try await subscriptions.list(owner: user) {
            switch await deliver(plaintext, to: subscription, urgent: urgent) {
            case .delivered: sent += 1
            case .gone:
                if (try? await subscriptions.delete(owner: user, id: id)) == true { removed += 1 }
                logger.info("push: a subscription the push service no longer knows was deleted", metadata: ["subscription": "\(id)"])
            case .failed(let why):
                logger.warning("push: a push was not delivered", metadata: ["subscription": "\(id)", "error": "\(why)"])
            }
        }
        return .init(sent: sent, removed: removed)
    }

    enum Outcome: Equatable {
        case delivered
        case gone
        case failed(String)
    }

    func deliver(_ plaintext: Data, to subscription: PushSubscriptionData, urgent: Bool) async -> Outcome {
        guard let key = WebPushCrypto.fromBase64URL(subscription.p256dh), let auth = WebPushCrypto.fromBase64URL(subscription.auth) else {
            return .gone  // unreadable keys: no push could ever reach it
        }
        let body: Data
        let authorization: String
        do {
            body = try WebPushCrypto.encrypt(plaintext, subscriptionKey: key, authSecret: auth)
            authorization = try vapid.authorization(endpoint: subscription.endpoint, now: clock.now())
        } catch {
            return .failed("encryption: \(error)")
        }
        let headers = [("Content-Type", "application/octet-stream"), ("Content-Encoding", "aes128gcm"), ("TTL", "\(ttl)"),
                       ("Urgency", urgent ? "high" : "normal"), ("Authorization", authorization)]
        do {
            let answer = try await fetcher.post(subscription.endpoint, headers: headers, body: body, allowPlainHTTP: subscriptions.testEndpoints)
            switch answer.status {
            case 200...299: return .delivered
            case 404, 410: return .gone
            default:
                return .failed("HTTP \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            }
        } catch {
            return .failed("\(error.code.rawValue): \(error.message)")
        }
    }
}
