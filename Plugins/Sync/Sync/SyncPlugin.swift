public import AppConfig
import AuthAPI
import Bus
import Foundation
public import HTTPKit
import HummingbirdWebSocket
import Logging
public import PluginKit
public import ServiceLifecycle
import StorageAPI
import SyncAPI

/// The `sync` plugin: what an offline-first client needs on top of the plugins' own routes.
///
/// - `GET /api/v1/sync/changes?after=&limit=`: the signed-in user's changes (and those of notebooks
///   shared with them) after a cursor, each record as its plugin's REST routes show it, deletes as
///   tombstones; `410 resync_required` for a cursor older than the log keeps.
/// - `GET /api/v1/sync/live`: a WebSocket. The client sends `{"type":"auth","token":"…"}` first;
///   from then on the server sends `{"type":"poke","cursor":"…"}` when the user's log moves — at
///   most one per connection per `poke_interval_ms`, never record data — and closes with 4401
///   when the access token expires (send `auth` again with a fresh token to go on).
///
/// What it syncs is what the app's plugins offer (``SyncKind`` in their descriptors' `offers`): it
/// names no plugin, so a plugin with a kind of its own syncs by being in the YAML.
///
/// ```yaml
/// sync: { max_connections_per_user: 20, poke_interval_ms: 50 }
/// ```
public struct SyncPlugin: Plugin {
    public struct Config: Sendable {
        var maxConnectionsPerUser: Int
        var pokeInterval: Duration
        var authTimeout: Duration
        var pageSize: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "sync",
        summary: "Sync for offline clients: a change feed with tombstones and live pokes over WebSocket",
        dependencies: ["storage", "auth"],
        settings: [
            SettingDescription("max_connections_per_user", "int 1...10000", default: "20", "Live connections one user may hold (devices, tabs)"),
            SettingDescription("poke_interval_ms", "int 0...10000", default: "50", "At most one poke per connection this often; pokes between coalesce"),
            SettingDescription("auth_timeout_seconds", "int 1...300", default: "10", "How long a new live connection has to authenticate"),
            SettingDescription("page_size", "int 1...1000", default: "100", "Changes per pull when the client names no limit"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        Config(maxConnectionsPerUser: section.int("max_connections_per_user", default: 20, in: 1...10_000),
               pokeInterval: .milliseconds(section.int("poke_interval_ms", default: 50, in: 0...10_000)),
               authTimeout: .seconds(section.int("auth_timeout_seconds", default: 10, in: 1...300)),
               pageSize: section.int("page_size", default: 100, in: 1...1000))
    }

    let config: Config
    let feed: SyncFeed
    let hub: LiveHub
    let bus: any MessageBus
    let logger: Logger
    let moves: EventSubscription<RecordsChanged>
    let alerts: EventSubscription<UserAlert>

    public init(config: Config, context: PluginContext) async throws {
        self.config = config
        bus = context.bus
        // The kinds a client syncs are what the app's plugins offer: sync names none of them.
        let (kinds, clashes) = SyncFeed.kinds(offered: context.offers)
        if !clashes.isEmpty {
            context.logger.warning("sync: kinds left out of the feed, their collection or id offered already by another kind",
                                   metadata: ["kinds": "\(clashes.joined(separator: ", "))"])
        }
        feed = SyncFeed(store: BusRecordStore(bus: context.bus), bus: context.bus, kinds: kinds)
        hub = LiveHub(maxPerUser: config.maxConnectionsPerUser)
        logger = context.logger
        // Subscribed now, before any write can happen, so no move is missed.
        moves = context.bus.subscribe(to: RecordsChanged.self, buffering: OverflowPolicy(capacity: 65_536, drop: .oldest))
        alerts = context.bus.subscribe(to: UserAlert.self, buffering: OverflowPolicy(capacity: 4096, drop: .oldest))
    }

    public var services: [any Service] { [PokeService(moves: moves, hub: hub), AlertService(alerts: alerts, hub: hub)] }
    public var features: [String] { ["changes", "live", "alerts"] }

    public func routes(_ routes: PluginRoutes) throws {
        let (feed, pageSize) = (self.feed, config.pageSize)
        try routes.add(.get, "changes", query: ["after", "limit"],
                       summary: "Your changes after a cursor (records as their plugins show them, deletes as tombstones)") { request, _, identity in
            let after = try SyncCursor.decode(try request.query("after"))
            let limit = try request.limit(default: pageSize, max: RecordQuery.maxLimit)
            return try .json(try await feed.pull(viewer: identity.accountID, after: after, limit: limit))
        }
        let live = LiveSession.Settings(hub: hub, feed: feed, bus: bus, logger: logger, pokeInterval: config.pokeInterval,
                                        authTimeout: config.authTimeout)
        routes.addLive("live", summary: "WebSocket: authenticate in-band, then a poke with your newest cursor whenever your data moves") {
            inbound, outbound, _ in
            await LiveSession(settings: live, outbound: outbound).run(inbound)
        }
    }
}

/// Sends other plugins' alerts to the user's live connections.
struct AlertService: Service {
    let alerts: EventSubscription<UserAlert>
    let hub: LiveHub

    func run() async throws {
        for await event in alerts.cancelOnGracefulShutdown() {
            let text = #"{"type":"alert","kind":"# + Self.quoted(event.kind) + #","data":"# + String(decoding: event.data.bytes, as: UTF8.self) + "}"
            hub.alert(user: event.user, text)
        }
    }

    static func quoted(_ text: String) -> String {
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}

/// Turns storage's "logs moved" events into pokes.
struct PokeService: Service {
    let moves: EventSubscription<RecordsChanged>
    let hub: LiveHub

    func run() async throws {
        for await event in moves.cancelOnGracefulShutdown() { hub.moved(event.moved) }
    }
}
