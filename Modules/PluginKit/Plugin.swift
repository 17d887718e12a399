public import AppConfig
public import Bus
import Foundation
public import HTTPKit
public import Logging
public import ServiceLifecycle

/// A capability or app domain that an app's YAML switches on by its ``PluginDescriptor/id``.
///
/// The life of a plugin, driven by the host:
/// 1. ``configure(_:)`` reads its YAML section — pure, so `quire config check` can run it;
/// 2. ``init(config:context:)`` builds it: open files, prepare state — no background tasks;
/// 3. ``register(on:)`` adds its bus handlers, then ``routes(_:)`` its HTTP routes;
/// 4. its ``services`` run in the host's one `ServiceGroup`, in dependency order, and stop in reverse.
public protocol Plugin: Sendable {
    associatedtype Config: Sendable

    /// Id, summary, dependencies and settings.
    static var descriptor: PluginDescriptor { get }

    /// Reads the plugin's section. Mistakes go to the section's diagnostics, not thrown.
    static func configure(_ section: ConfigSection) -> Config

    /// Names this plugin's config declares for other plugins' settings to refer to, by kind (media:
    /// `["rendition": [its rendition names]]`).
    static func declaredNames(_ config: Config) -> [String: Set<String>]

    /// What the plugin offers a client, known from its config alone: the manifest lists these for
    /// a plugin another process runs (`bus.remote`). A plugin that can run remote gives them here
    /// and answers ``features`` from them.
    static func features(for config: Config) -> [String]

    /// Settings of this plugin that name something another plugin declares; `quire config check`
    /// refuses one that names nothing, at the setting's line and column.
    static func references(_ config: Config) -> [NameReference]

    /// Builds the plugin.
    init(config: Config, context: PluginContext) async throws

    /// Long-running parts (a database, a sweeper, a subscriber), run by the host.
    var services: [any Service] { get }

    /// Registers the plugin's request handlers and event subscriptions' setup.
    func register(on bus: any MessageBus) async throws

    /// Adds the plugin's HTTP routes, mounted at `/api/v1/<id>`.
    func routes(_ routes: PluginRoutes) throws

    /// Adds routes outside the API, mounted at the site's root: only the web client's plugin has
    /// any (`/`, its assets, its service worker).
    func siteRoutes(_ routes: PluginRoutes) throws

    /// An authenticator for other plugins' routes; only the auth plugin provides one.
    var authenticator: (any RequestAuthenticator)? { get }
    /// Admission control for every request; only a quota plugin provides one.
    var gate: (any RequestGate)? { get }

    /// What the plugin offers a client, for `GET /api/v1/manifest` (beyond its routes).
    var features: [String] { get }
}

extension Plugin {
    public static func declaredNames(_ config: Config) -> [String: Set<String>] { [:] }
    public static func references(_ config: Config) -> [NameReference] { [] }
    public static func features(for config: Config) -> [String] { [] }
    public var services: [any Service] { [] }
    public func register(on bus: any MessageBus) async throws {}
    public func routes(_ routes: PluginRoutes) throws {}
    public func siteRoutes(_ routes: PluginRoutes) throws {}
    public var authenticator: (any RequestAuthenticator)? { nil }
    public var gate: (any RequestGate)? { nil }
    public var features: [String] { [] }
}

/// What the host passes every plugin: everything it may use, nothing ambient.
public struct PluginContext: Sendable {
    /// The app's name (`app:` in the YAML).
    public var appName: String
    public var bus: any MessageBus
    public var logger: Logger
    /// Values from the process environment that the host chose to pass (never read it yourself).
    public var environment: [String: String]
    /// What the app's plugins offer one another (``PluginDescriptor/offers``), all of them.
    public var offers: [any PluginOffer.Type]
    /// Where a plugin reads the time, never the system's directly: the system's in a server, one a
    /// test sets and moves (`ManualClock`), so a test of an expiry or an undo window moves it
    /// instead of sleeping.
    public var clock: PluginClock
    /// Where a plugin draws the random part of the ids it makes, never a generator of its own: the
    /// system's in a server, a seeded one in a test that wants the same ids each run.
    public var ids: IDSource
    /// The bus's transport as the app's YAML chose it (`in-process` or `nats`), for health reports.
    public var busTransport: String = "in-process"
    /// The process's last warnings and errors (what an operator's screen shows).
    public var recentLog: RecentLog = .shared
    /// The process's one queue of heavy jobs (imports): the host gives every plugin the same one
    /// (`server.jobs`); a context made alone gets a queue of its own.
    public var jobs = JobQueue()
    /// The key files the server makes (``AppConfig/keyFiles``), which the storage plugin's backups seal.
    public var keyFiles: [KeyFile] = []

    public init(appName: String, bus: any MessageBus, logger: Logger, environment: [String: String] = [:],
                offers: [any PluginOffer.Type] = [], clock: PluginClock = .system, ids: IDSource = .system) {
        self.appName = appName
        self.bus = bus
        self.logger = logger
        self.environment = environment
        self.offers = offers
        self.clock = clock
        self.ids = ids
    }
}

/// A plugin's identity card, shown by `quire plugins`.
public struct PluginDescriptor: Sendable {
    /// The YAML key, e.g. `storage`; also the HTTP prefix `/api/v1/<id>`.
    public var id: String
    /// One line: what the plugin owns.
    public var summary: String
    /// Plugins that must be enabled too; they start first.
    public var dependencies: [String]
    /// The settings the plugin reads.
    public var settings: [SettingDescription]
    /// Types this plugin offers the others (the kinds of resource it lets share-link share).
    public var offers: [any PluginOffer.Type]

    public init(id: String, summary: String, dependencies: [String] = [], settings: [SettingDescription] = [],
                offers: [any PluginOffer.Type] = []) {
        self.id = id
        self.summary = summary
        self.dependencies = dependencies
        self.settings = settings
        self.offers = offers
    }
}

/// One setting of a plugin, for `quire plugins`.
public struct SettingDescription: Sendable, Equatable {
    public var key: String
    /// Type and range, e.g. `int 1...100`, `sqlite | memory`.
    public var type: String
    public var defaultValue: String?
    public var help: String

    public init(_ key: String, _ type: String, default defaultValue: String? = nil, _ help: String) {
        self.key = key
        self.type = type
        self.defaultValue = defaultValue
        self.help = help
    }
}

/// A setting that names another plugin's thing (share-link's `rendition` names one of media's).
public struct NameReference: Sendable, Hashable {
    /// The setting's key in this plugin's section.
    public var setting: String
    /// What kind of name it is, as the declaring plugin's ``Plugin/declaredNames(_:)`` files it.
    public var kind: String
    public var name: String
    /// The plugin whose section declares such names, for the message.
    public var declaredIn: String

    public init(setting: String, kind: String, name: String, declaredIn: String) {
        self.setting = setting
        self.kind = kind
        self.name = name
        self.declaredIn = declaredIn
    }
}
