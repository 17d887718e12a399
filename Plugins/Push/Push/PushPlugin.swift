public import AppConfig
import Bus
import Foundation
public import HTTPKit
import Hummingbird
import Logging
public import PluginKit
import PushAPI
import SafeFetch
public import ServiceLifecycle
import StorageAPI
import SyncAPI

/// The `push` plugin (issue 41): Web Push, so what the apps tell a user reaches a phone whose app
/// is closed or whose screen is locked. The phone subscribes with the server's VAPID public key
/// and hands the subscription over; the server then encrypts each notification for it (RFC 8291,
/// aes128gcm) and posts it to the push service with a VAPID JWT (RFC 8292). What it pushes: a
/// reminder that is due, pinned notebooks nearby (both from sync's alerts), and iRemember's daily
/// "On this day" at the hour the user chose.
///
/// ```yaml
/// push: { subject: "mailto:you@example.org", key_file: ./data/napkin-notes.vapid-key }
/// ```
public struct PushPlugin: Plugin {
    public struct Config: Sendable {
        var subject: String
        var privateKey: String?
        var keyFile: String?
        var ttlSeconds: Int
        var timeoutSeconds: Int
        var testEndpoints: Bool
        var dailySeconds: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "push",
        summary: "Web Push (VAPID, RFC 8291): reminders, nearby notebooks and \"On this day\" reach a phone whose app is closed",
        dependencies: ["storage", "auth"],
        settings: [
            SettingDescription("subject", "mailto: or https: URL", default: "mailto:operator@localhost",
                               "Who runs this server, for the push services (the VAPID JWT's sub)"),
            SettingDescription("private_key", "base64url of 32 bytes", "The VAPID private key (P-256); use ${QUIRE_VAPID_PRIVATE_KEY} for a cluster. "
                               + "Without it a key pair is generated into key_file"),
            SettingDescription("key_file", "path", default: "./data/<app>.vapid-key", "Where a generated VAPID key is kept (mode 0600); back it up"),
            SettingDescription("ttl_seconds", "int 0...2419200", default: "86400", "How long a push service keeps a push for a phone that is off (TTL)"),
            SettingDescription("timeout_seconds", "int 1...60", default: "10", "How long one push service may take to answer"),
            SettingDescription("daily_check_seconds", "int 1...3600", default: "60", "How often each node looks for daily alerts that are due"),
            SettingDescription("allow_test_endpoints", "bool", default: "false",
                               "Tests only: subscriptions may name http:// and loopback endpoints (a test's own push service). Never in production"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        let subject = section.string("subject") ?? "mailto:operator@localhost"
        if !(subject.hasPrefix("mailto:") || subject.hasPrefix("https://")) {
            section.report("subject", "a contact for the push services: mailto:you@example.org or https://your.site (RFC 8292)")
        }
        let privateKey = section.string("private_key").flatMap { $0.isEmpty ? nil : $0 }
        if let privateKey, WebPushCrypto.fromBase64URL(privateKey)?.count != 32 {
            section.report("private_key", "the VAPID private key is base64url of 32 bytes (the content of a generated key_file)")
        }
        return Config(subject: subject, privateKey: privateKey, keyFile: section.string("key_file"),
                      ttlSeconds: section.int("ttl_seconds", default: 86_400, in: 0...2_419_200),
                      timeoutSeconds: section.int("timeout_seconds", default: 10, in: 1...60),
                      testEndpoints: section.bool("allow_test_endpoints", default: false),
                      dailySeconds: section.int("daily_check_seconds", default: 60, in: 1...3600))
    }

    let subscriptions: PushSubscriptions
    let sender: PushSender
    let daily: PushDaily
    let alerts: PushAlerts
    let runner: PushDailyRunner

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        for schema in [PushSubscriptions.schema, PushClaims.schema, PushDaily.schema] { try await store.declare(schema) }
        let vapid = try VAPID.load(configured: config.privateKey, file: config.keyFile ?? "./data/\(context.appName).vapid-key",
                                   subject: config.subject, logger: context.logger)
        var networks: [IPNetwork] = []
        if config.testEndpoints {
            networks = ["127.0.0.0/8", "::1/128"].compactMap(IPNetwork.init)
            context.logger.warning("push: subscriptions may name http:// and loopback endpoints (allow_test_endpoints; tests only)")
        }
        subscriptions = PushSubscriptions(store: store, testEndpoints: config.testEndpoints)
        let fetcher = SafeFetcher(policy: SafeFetcher.Policy(maxBytes: 64 << 10, timeout: .seconds(config.timeoutSeconds), maxRedirects: 0,
                                                             allowedNetworks: networks))
        sender = PushSender(subscriptions: subscriptions, vapid: vapid, fetcher: fetcher, ttl: config.ttlSeconds, clock: context.clock,
                            logger: context.logger)
        let clock = context.clock
        let claims = PushClaims(store: store, now: { clock.now() })
        daily = PushDaily(store: store, bus: context.bus, sender: sender, logger: context.logger, now: { clock.now() })
        alerts = PushAlerts(alerts: context.bus.subscribe(to: UserAlert.self), sender: sender, claims: claims, logger: context.logger)
        runner = PushDailyRunner(bus: context.bus, claims: claims, every: .seconds(config.dailySeconds))
    }

    public var features: [String] { ["web-push"] }
    public var services: [any Service] { [alerts, runner] }

    public func register(on bus: any MessageBus) async throws {
        let sender = self.sender
        let daily = self.daily
        try bus.handle(SendPush.self) { request, _ in try await sender.send(user: request.user, request.notification, urgent: request.urgent) }
        try bus.handle(RunDailyPushes.self) { _, _ in .init(sent: await daily.run()) }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let subscriptions = self.subscriptions
        let sender = self.sender
        let daily = self.daily
        let publicKey = sender.vapid.publicKey
        let clock = sender.clock
        try routes.add(.get, "key", summary: "The server's VAPID public key, for PushManager.subscribe({applicationServerKey}): {publicKey}") { _, _, _ in
            try .json(["publicKey": publicKey])
        }
        try routes.add(.get, "subscriptions", summary: "My phones that get notifications: [{id, endpoint, device, createdAt}]") { _, _, identity in
            let mine = try await subscriptions.list(owner: identity.accountID)
            return try .json(ListPage(items: mine.map { SubscriptionJSON(id: $0.id, endpoint: $0.data.endpoint, device: $0.data.device, createdAt: $0.data.createdAt) },
                                      nextCursor: nil))
        }
        try routes.add(.put, "subscriptions", summary: "Notify this phone: its PushSubscription {endpoint, keys: {p256dh, auth}, device?}; "
                       + "saving it again is harmless; 409 beyond 20 phones") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(SubscriptionInput.self, context: context)
            return try .json(try await subscriptions.save(owner: identity.accountID, input, now: clock.now()))
        }
        try routes.add(.delete, "subscriptions", query: ["endpoint"], summary: "Stop notifying the phone of ?endpoint (mine only); 204 either way") {
            request, _, identity in
            try await subscriptions.delete(owner: identity.accountID, endpoint: try request.query("endpoint", required: true) ?? "")
            return .noContent
        }
        try routes.add(.post, "test", summary: "Send a test notification to each of my phones: {sent, removed}") { _, _, identity in
            let reply = try await sender.send(user: identity.accountID, PushNotification(title: "Notifications are on", body: "This phone will tell you in time.",
                                                                                           tag: "test", url: "#/"), urgent: false)
            return try .json(reply)
        }
        try routes.add(.get, "on-this-day", summary: "My daily \"On this day\" alert: {hour, timeZone} or 404 when it is off") { _, _, identity in
            guard let choice = try await daily.choice(owner: identity.accountID) else {
                throw Problem.notFound("The daily \"On this day\" alert is off; turn it on with PUT {hour, timeZone}.")
            }
            return try .json(DailyJSON(hour: choice.hour, timeZone: choice.timeZone))
        }
        try routes.add(.put, "on-this-day", summary: "Turn on (or move) the daily \"On this day\" alert: {hour: 0...23, timeZone}; "
                       + "sent at that hour when photos were taken on this day in earlier years") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(PushDaily.Input.self, context: context)
            let choice = try await daily.set(owner: identity.accountID, input)
            return try .json(DailyJSON(hour: choice.hour, timeZone: choice.timeZone))
        }
        try routes.add(.delete, "on-this-day", summary: "Turn the daily \"On this day\" alert off") { _, _, identity in
            try await daily.stop(owner: identity.accountID)
            return .noContent
        }
    }
}

struct DailyJSON: Encodable {
    var hour: Int
    var timeZone: String
}
