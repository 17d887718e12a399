// swift-tools-version:6.2
//
// Quire — one set of parts, four apps. See README.md and DESIGN notes in the issues.
//
// Layout rule enforced by this graph: a plugin target depends on other plugins' `…API` targets only.
// `tools/test` builds with `--explicit-target-dependency-import-check error`, so an `import` of a
// module that is not a declared dependency fails the build, and `ArchitectureTests` checks the rule
// on the sources as well.
import PackageDescription

/// One set of settings for every target of ours.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// MARK: - Dependencies (all from the local mirror)

let dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", exact: "2.5.0"),
    .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
    .package(url: "https://github.com/jpsim/Yams.git", exact: "6.2.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
    .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
    // jwt-kit 5.8.0 needs swift-crypto 4.x.
    .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"5.0.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    .package(url: "https://github.com/weichsel/ZIPFoundation.git", exact: "0.9.20"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", exact: "2.8.1"),
    .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
    // HTTPS: the local CA's certificates (X.509 on swift-crypto's P-256), HTTP/2 by ALPN.
    .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
    .package(url: "https://github.com/apple/swift-nio-http2.git", exact: "1.46.0"),
    // ACME (server.tls.acme): the client's HTTPS requests to the CA's directory.
    .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
]

extension Target.Dependency {
    static let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
    static let hummingbirdCore = Target.Dependency.product(name: "HummingbirdCore", package: "hummingbird")
    static let hummingbirdTesting = Target.Dependency.product(name: "HummingbirdTesting", package: "hummingbird")
    static let bcrypt = Target.Dependency.product(name: "HummingbirdBcrypt", package: "hummingbird-auth")
    static let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
    static let grdbSQLite = Target.Dependency.product(name: "GRDBSQLite", package: "GRDB.swift")
    static let yams = Target.Dependency.product(name: "Yams", package: "Yams")
    static let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
    static let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
    static let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
    static let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
    static let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
    static let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
    static let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
    static let jwt = Target.Dependency.product(name: "JWTKit", package: "jwt-kit")
    static let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
    static let cryptoExtras = Target.Dependency.product(name: "CryptoExtras", package: "swift-crypto")
    static let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
    static let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
    static let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
    static let nioHTTPTypes = Target.Dependency.product(name: "NIOHTTPTypes", package: "swift-nio-extras")
    static let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
    static let zip = Target.Dependency.product(name: "ZIPFoundation", package: "ZIPFoundation")
    static let webSocket = Target.Dependency.product(name: "HummingbirdWebSocket", package: "hummingbird-websocket")
    static let nioWebSocket = Target.Dependency.product(name: "NIOWebSocket", package: "swift-nio")
    static let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
    static let hummingbirdHTTP2 = Target.Dependency.product(name: "HummingbirdHTTP2", package: "hummingbird")
    static let hummingbirdTLS = Target.Dependency.product(name: "HummingbirdTLS", package: "hummingbird")
    static let nioHTTP2 = Target.Dependency.product(name: "NIOHTTP2", package: "swift-nio-http2")
    static let nioTLS = Target.Dependency.product(name: "NIOTLS", package: "swift-nio")
    static let x509 = Target.Dependency.product(name: "X509", package: "swift-certificates")
    static let asn1 = Target.Dependency.product(name: "SwiftASN1", package: "swift-asn1")
    static let asyncHTTPClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
}

// MARK: - Targets

/// A core module under `Modules/<name>`.
func module(_ name: String, _ deps: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: deps, path: "Modules/\(name)", swiftSettings: swiftSettings)
}

/// A plugin target under `Plugins/<feature>/<name>`.
func plugin(_ feature: String, _ name: String, _ deps: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: deps, path: "Plugins/\(feature)/\(name)", swiftSettings: swiftSettings)
}

func tool(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: deps, path: "tools/\(name)", swiftSettings: swiftSettings)
}

func tests(_ name: String, _ deps: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .testTarget(name: name, dependencies: deps, path: "Tests/\(name)", resources: resources, swiftSettings: swiftSettings)
}

let targets: [Target] = [
    // Core: knows no feature.
    module("Bus"),
    module("BusInProcess", ["Bus", .logging]),
    module("BusTestKit", ["Bus", "BusInProcess"]),
    // The bus between processes and machines: a NATS client written from the protocol, on SwiftNIO.
    module("BusNATS", ["Bus", "BusInProcess", "JSONBytes", .nioSSL, .nioCore, .nioPosix, .logging]),
    module("AppConfig", [.yams]),
    module("OrderKeys"),
    // A seeded generator (SplitMix64): the one copy for shuffles, fits, generated data and fuzz cases.
    module("SeededRandom"),
    // FSRS-6 spaced repetition: a pure scheduler, compared step by step with the reference.
    module("FSRS", ["SeededRandom"]),
    .target(name: "CQuireSystem", path: "Modules/CQuireSystem"),
    // JSON written byte by byte (strings, integers, timestamps): HTTPKit's writer and storage's pages of records.
    module("JSONBytes"),
    module("HTTPKit", ["Bus", "JSONBytes", .hummingbird, .webSocket, .httpTypes, .nioCore, .nioHTTP1, .nioHTTPTypes, .logging]),
    // Fetching a URL a user gave, refusing the server's own networks (libcurl through a system-library target).
    .systemLibrary(name: "CCurl", path: "Modules/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    module("SafeFetch", ["Bus", "CCurl"]),
    module("Secrets", [.crypto]),
    module("PluginKit", ["Bus", "AppConfig", "HTTPKit", .lifecycle, .logging, .metrics]),
    // Imports' limits: a zip entry inflated under a cap on its output.
    module("ImportKit", [.zip]),
    // HTTPS: certificates reloaded from disk, a local CA for a LAN, the ACME challenge store, the plain-HTTP side (QR page, redirects).
    .systemLibrary(name: "CQRencode", path: "Modules/CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
    module("QuireTLS", ["CQRencode", .hummingbird, .nioCore, .nioPosix, .nioSSL, .x509, .asn1, .crypto, .lifecycle, .unixSignals, .logging]),
    // ACME (RFC 8555): a certificate for a public domain from Let's Encrypt or any ACME CA, renewed by itself.
    module("QuireACME", [.asyncHTTPClient, .x509, .asn1, .crypto, .nioCore, .nioHTTP1, .nioSSL, .lifecycle, .unixSignals, .logging]),
    module("AppHost", ["Bus", "BusInProcess", "BusNATS", "AppConfig", "SafeFetch", "Secrets", .metrics, .prometheus, "HTTPKit", "PluginKit", .hummingbird, .hummingbirdCore, .webSocket, .nioCore, .nioHTTP1, .lifecycle, .unixSignals, .logging,
                       "QuireTLS", "QuireACME", .hummingbirdHTTP2, .hummingbirdTLS, .nioHTTP2, .nioTLS, .nioSSL]),

    // storage
    plugin("Storage", "StorageAPI", ["Bus", "JSONBytes", .crypto]),
    plugin("Storage", "Storage", ["StorageAPI", "StorageSQLite", "StoragePostgres", "Bus", "PluginKit", "AppConfig", .lifecycle, .logging,
                                  .crypto, .cryptoExtras, .metrics]),  // crypto: backups' checksums, their sealed keys (scrypt: CryptoExtras); metrics: their counters on /metrics
    plugin("Storage", "StorageTestKit", ["StorageAPI"]),
    // The embedded default (GRDB): records in one SQLite file.
    plugin("Storage", "StorageSQLite", ["StorageAPI", "Bus", .grdb, .grdbSQLite, .lifecycle, .logging]),
    // The PostgreSQL backend (postgres-nio): the same contract, on a database server several nodes share.
    plugin("Storage", "StoragePostgres", ["StorageAPI", "Bus", .postgres, .lifecycle, .logging]),

    // auth
    plugin("Auth", "AuthAPI", ["Bus", "HTTPKit"]),
    plugin("Auth", "Auth", ["AuthAPI", "StorageAPI", "Secrets", "SafeFetch", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird, .nioCore, .bcrypt, .jwt, .crypto, .logging]),

    // notes (Napkin Notes)
    plugin("Notes", "NotesAPI", ["Bus", "StorageAPI", "ShareLinkAPI", "SyncAPI"]),
    // The export files of other notes apps it reads (Evernote, Keep), apart: small enough to fuzz.
    plugin("Notes", "NotesFormats", []),
    plugin("Notes", "Notes", ["NotesAPI", "NotesFormats", "JSONBytes", "ShareLinkAPI", "GeoAPI", "RemindersAPI", "SyncAPI", "StorageAPI", "AuthAPI", "MediaAPI", "DrawingAPI", "MailAPI", "AudioAPI", "PhotoTextAPI", "OrderKeys", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird, .httpTypes, .nioCore, .zip, "ImportKit", .lifecycle, .logging]),

    // media (libvips through a system-library target; see Plugins/Media/CVips/shim.h)
    .systemLibrary(name: "CVips", path: "Plugins/Media/CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
    plugin("Media", "MediaAPI", ["StorageAPI", "Bus", "HTTPKit"]),
    plugin("Media", "Media", ["MediaAPI", "StorageAPI", "CVips", "Bus", "PluginKit", "AppConfig", .crypto, .logging]),

    // audio (voice notes; later iRemember's recorded captions, Foreign Note's pronunciation): a 16-bit mono WAV in,
    // Ogg Opus out (libopus through a system-library target; the Ogg pages are written by our code)
    .systemLibrary(name: "COpus", path: "Plugins/Audio/COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
    plugin("Audio", "AudioAPI", ["StorageAPI", "Bus", "HTTPKit", .hummingbird, .httpTypes, .nioCore]),
    plugin("Audio", "Audio", ["AudioAPI", "StorageAPI", "COpus", "Bus", "PluginKit", "AppConfig", .logging]),

    // photo-text (Napkin Notes' text in photos): Tesseract's C API through a system-library target (libtesseract, Leptonica)
    .systemLibrary(name: "CTesseract", path: "Plugins/PhotoText/CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
    plugin("PhotoText", "PhotoTextAPI", ["Bus"]),
    plugin("PhotoText", "PhotoText", ["PhotoTextAPI", "StorageAPI", "CTesseract", "Bus", "PluginKit", "AppConfig"]),

    // drawing (cairo through a system-library target)
    .systemLibrary(name: "CCairo", path: "Plugins/Drawing/CCairo", pkgConfig: "pangocairo", providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
    plugin("Drawing", "DrawingAPI", ["StorageAPI", "Bus"]),
    plugin("Drawing", "Drawing", ["DrawingAPI", "CCairo", "MediaAPI", "StorageAPI", "Bus", "PluginKit", "AppConfig"]),

    // mail (Napkin Notes+: export by email): SMTP submission with STARTTLS
    plugin("Mail", "MailAPI", ["Bus", "StorageAPI"]),
    plugin("Mail", "Mail", ["MailAPI", "StorageAPI", "Bus", "PluginKit", "AppConfig", .nioCore, .nioPosix, .nioSSL, .crypto, .logging]),

    // reminders (Napkin Notes+): a durable schedule that fires once, across nodes
    plugin("Reminders", "RemindersAPI", ["Bus", "SyncAPI"]),
    plugin("Reminders", "Reminders", ["RemindersAPI", "SyncAPI", "StorageAPI", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird,
                                      .crypto, .logging, .lifecycle]),

    // push (issue 41): Web Push (VAPID, RFC 8291) to phones whose app is closed: reminders, nearby notebooks, "On this day"
    plugin("Push", "PushAPI", ["Bus"]),
    plugin("Push", "Push", ["PushAPI", "SyncAPI", "AlbumAPI", "StorageAPI", "SafeFetch", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird,
                            .crypto, .logging, .lifecycle]),

    // vocabulary (Foreign Note)
    plugin("Vocabulary", "VocabularyAPI", ["Bus", "StorageAPI", "SyncAPI"]),
    // The file formats it reads, apart: small enough to fuzz without the server around them.
    plugin("Vocabulary", "VocabularyFormats", ["Bus"]),
    plugin("Vocabulary", "Vocabulary", ["VocabularyAPI", "JSONBytes", "SyncAPI", "VocabularyFormats", "AudioAPI", "StorageAPI", "FSRS", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird,
                                        .httpTypes, .nioCore, .grdb, .grdbSQLite, .zip, "ImportKit", .crypto, .logging, .lifecycle, .metrics]),

    // geo (iRemember, AR Notebook): geotags on a spatial index, offline place names
    plugin("Geo", "GeoAPI", ["Bus"]),
    .target(name: "Geo", dependencies: ["GeoAPI", "MediaAPI", "StorageAPI", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird,
                                        .crypto, .lifecycle, .logging],
            path: "Plugins/Geo/Geo", resources: [.copy("Resources/gazetteer.tsv")], swiftSettings: swiftSettings),

    // share-link: read-only links with a public Open Graph page
    plugin("ShareLink", "ShareLinkAPI", ["Bus"]),
    plugin("ShareLink", "ShareLink", ["ShareLinkAPI", "AuthAPI", "MediaAPI", "DrawingAPI", "StorageAPI", "Secrets", "Bus", "PluginKit", "AppConfig", "HTTPKit",
                                      .hummingbird, .httpTypes, .nioCore]),

    // album (iRemember)
    plugin("Album", "AlbumAPI", ["ShareLinkAPI", "SyncAPI", "Bus"]),
    plugin("Album", "Album", ["AlbumAPI", "SyncAPI", "GeoAPI", "ShareLinkAPI", "MediaAPI", "DrawingAPI", "AudioAPI", "StorageAPI", "AuthAPI", "SafeFetch", "Secrets", "SeededRandom", "Bus", "PluginKit",
                              "AppConfig", "HTTPKit", "QuireTLS", .hummingbird, .httpTypes, .nioCore, .logging]),

    // notebooks (AR Notebook)
    plugin("Notebooks", "NotebooksAPI", ["ShareLinkAPI", "SyncAPI", "Bus"]),
    plugin("Notebooks", "Notebooks", ["NotebooksAPI", "AuthAPI", "SyncAPI", "GeoAPI", "ShareLinkAPI", "MediaAPI", "StorageAPI", "Secrets", "Bus", "PluginKit",
                                      "AppConfig", "HTTPKit", .hummingbird, .httpTypes]),

    // device-monitor (AR Notebook): battery alert and lighting checks
    plugin("DeviceMonitor", "DeviceMonitorAPI", ["Bus"]),
    plugin("DeviceMonitor", "DeviceMonitor", ["DeviceMonitorAPI", "MediaAPI", "StorageAPI", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird, .httpTypes]),

    // sync: the change feed, live pokes over WebSocket
    plugin("Sync", "SyncAPI", ["Bus", "StorageAPI"]),
    plugin("Sync", "Sync", ["SyncAPI", "StorageAPI", "AuthAPI", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird, .webSocket, .httpTypes, .metrics,
                            .nioCore, .nioWebSocket, .logging, .lifecycle]),

    // quotas: an app's limits as configuration
    plugin("Quotas", "QuotasAPI", ["Bus"]),
    plugin("Quotas", "Quotas", ["QuotasAPI", "StorageAPI", "Bus", "PluginKit", "AppConfig", "HTTPKit", .hummingbird, .httpTypes]),

    // admin: the operator's API (accounts, storage, jobs, health, recent problems); 404 to everyone else
    plugin("Admin", "Admin", ["AuthAPI", "StorageAPI", "NotesAPI", "VocabularyAPI", "QuotasAPI", "Bus", "PluginKit", "AppConfig", "HTTPKit",
                              .hummingbird, .logging]),

    // web: the one client for every app, served at / (its files in Plugins/Web/Client, beside the plugin)
    .systemLibrary(name: "CQuireZlib", path: "Modules/CQuireZlib", providers: [.apt(["zlib1g-dev"])]),
    .target(name: "Web", dependencies: ["PluginKit", "AppConfig", "HTTPKit", "CQuireZlib", .hummingbird, .httpTypes, .crypto],
            path: "Plugins/Web", exclude: ["Client/tsconfig.json"], sources: ["Web"], resources: [.copy("Client")], swiftSettings: swiftSettings),

    // Every plugin compiled into the binaries.
    .target(name: "PluginCatalog", dependencies: ["PluginKit", "Storage", "Auth", "Notes", "Media", "Audio", "PhotoText", "Drawing", "Vocabulary", "Geo", "ShareLink", "Album",
                                                     "Notebooks", "DeviceMonitor", "Quotas", "Reminders", "Mail", "Sync", "Web", "Admin", "Push"],
            path: "Plugins/PluginCatalog", swiftSettings: swiftSettings),
    // Test support: an app from YAML behind Hummingbird's router test client. It composes apps from
    // every plugin (PluginCatalog), so it lives with the tests, not in the core (`Modules/` knows no plugin).
    .target(name: "AppHostTestKit", dependencies: ["AppHost", "AppConfig", "PluginKit", "PluginCatalog", .hummingbird, .hummingbirdTesting,
                                                   .httpTypes, .nioCore, .logging],
            path: "Tests/Support/AppHostTestKit", swiftSettings: swiftSettings),

    // What every quire-* tool does around its work.
    // (It knows the plugin catalog and auth's API, so it lives with the tools, not in the core.)
    .target(name: "ToolKit", dependencies: ["AppHost", "AppConfig", "PluginKit", "PluginCatalog", "AuthAPI", "Bus", .argumentParser, .logging],
            path: "tools/ToolKit", swiftSettings: swiftSettings),

    // Binaries
    tool("quire", ["CQuireSystem", "AppHost", "AppConfig", "PluginKit", "PluginCatalog", "ToolKit", "Storage", "StorageAPI", "AuthAPI", "Bus", .zip, .argumentParser, .logging, .lifecycle]),
    tool("quire-auth", ["ToolKit", "AuthAPI", "Bus", .argumentParser]),
    tool("quire-bench", ["Bus", "BusInProcess", "BusNATS", "Media", "Drawing", "DrawingAPI", "AppHost", "AppConfig", "PluginCatalog", "AuthAPI",
                         "VocabularyAPI", "AlbumAPI", "Geo", "GeoAPI", "MediaAPI", "SeededRandom", "ToolKit", "StorageAPI", .argumentParser, .logging, .nioCore, .nioPosix]),
    tool("quire-media", ["Media", "MediaAPI", "ToolKit", "Bus", .argumentParser]),
    tool("quire-draw", ["Drawing", "DrawingAPI", "Media", "ToolKit", "Bus", .argumentParser]),
    tool("quire-vocab", ["ToolKit", "VocabularyAPI", "StorageAPI", "Bus", .argumentParser]),
    tool("quire-notes", ["ToolKit", "NotesAPI", "StorageAPI", "Bus", .argumentParser]),
    tool("quire-geo", ["ToolKit", "Geo", "GeoAPI", "StorageAPI", "Bus", .argumentParser]),
    tool("quire-share", ["ToolKit", "ShareLinkAPI", "Bus", .argumentParser]),
    tool("quire-monitor", ["DeviceMonitor", "DeviceMonitorAPI", "Media", "MediaAPI", "Bus", .argumentParser]),
    // Fuzz targets for our own parsers: a corpus replayer here, libFuzzer under tools/fuzz.
    tool("quire-fuzz", ["AppConfig", "DrawingAPI", "StorageAPI", "VocabularyFormats", "NotesFormats", "AudioAPI", "Bus"]),
    // Fits FSRS-6 parameters to a review log (the optimizer's benchmark and comparison with fsrs-rs).
    tool("quire-fsrs-fit", ["FSRS"]),

    // Tests
    tests("BusTests", ["Bus", "BusInProcess", "BusNATS", "BusTestKit", .logging, .nioCore]),
    tests("OrderKeysTests", ["OrderKeys", "SeededRandom"]),
    tests("NotesFormatsTests", ["NotesFormats"]),
    tests("FSRSTests", ["FSRS", "SeededRandom"]),
    tests("MailTests", ["Mail", "MailAPI"]),
    tests("HTTPKitTests", ["HTTPKit", "Bus", .logging]),
    tests("DrawingTests", ["Drawing", "DrawingAPI", "CCairo", "Bus", "BusInProcess", "BusTestKit", "Media", "MediaAPI", "Storage", "StorageAPI",
                           "PluginKit", "AppConfig", .logging]),
    tests("MediaTests", ["Media", "MediaAPI", "Bus", "BusInProcess", "BusTestKit", "Storage", "StorageAPI", "PluginKit", "AppConfig", .logging, .lifecycle]),
    tests("AudioTests", ["Audio", "AudioAPI", "COpus", "Bus", "SeededRandom"]),
    tests("PhotoTextTests", ["PhotoText", "PhotoTextAPI", "Bus"], resources: [.copy("Fixtures")]),
    tests("AppConfigTests", ["AppConfig"]),
    tests("AppHostTests", ["AppHost", "AppHostTestKit", "AppConfig", "PluginKit", "PluginCatalog", "HTTPKit", "Bus", "Web",
                           "StorageAPI", "SyncAPI", .hummingbird, "AuthAPI", "NotesAPI", "MediaAPI", "VocabularyAPI", "GeoAPI", "ShareLinkAPI", "AlbumAPI", "NotebooksAPI", "DeviceMonitorAPI", .yams, .httpTypes, .logging]),
    tests("StorageTests", ["Storage", "StorageAPI", "AppConfig", "StorageSQLite", "StoragePostgres", "StorageTestKit", "BusInProcess", "Bus", .logging, .grdb, .postgres]),
    tests("AuthTests", ["AppHostTestKit", "AppHost", "HTTPKit", "Auth", "AuthAPI", "Bus", "PluginCatalog", .httpTypes]),
    tests("NotesTests", ["AppHostTestKit", "AppHost", "HTTPKit", "Notes", "NotesAPI", "AudioAPI", "GeoAPI", "RemindersAPI", "SyncAPI", "StorageAPI", "Bus", .httpTypes, .nioCore, .zip]),
    tests("VocabularyTests", ["AppHostTestKit", "AppHost", "HTTPKit", "Vocabulary", "VocabularyAPI", "VocabularyFormats", "AudioAPI", "StorageAPI", "Bus", .httpTypes, .nioCore, .zip]),
    tests("IRememberTests", ["AppHostTestKit", "AppHost", "Bus", "Geo", "GeoAPI", "AlbumAPI", "AudioAPI", "ShareLinkAPI", "StorageAPI", .httpTypes]),
    tests("ARNotebookTests", ["Notebooks", "Quotas", "AppHost", "DeviceMonitor", "DeviceMonitorAPI", "MediaAPI", "StorageAPI", "Bus", "BusInProcess", "AppHostTestKit", .httpTypes]),
    tests("SafeFetchTests", ["SafeFetch", "AppHostTestKit", "Bus"]),
    tests("QuireTLSTests", ["QuireTLS", "AppHost", "AppConfig", .hummingbird, .hummingbirdTesting, .nioSSL, .x509, .crypto, .logging]),
    tests("QuireACMETests", ["QuireACME", .crypto, .x509, .asn1]),
    tests("ArchitectureTests", []),
    // Web Push: RFC 8291's worked example, the VAPID header, subscriptions and sending through the routes.
    tests("PushTests", ["Push", "PushAPI", "AlbumAPI", "SyncAPI", "StorageAPI", "SafeFetch", "Bus", .crypto, .logging]),
    // Timeouts and connection bounds (issue 38): the handlers on an embedded event loop, the registry, a real server on loopback.
    tests("ConnectionLimitsTests", ["AppHost", "AppConfig", "PluginKit", "SafeFetch", .hummingbird, .hummingbirdCore, .webSocket, .nioCore,
                                    .nioHTTP1, .nioPosix, .product(name: "NIOEmbedded", package: "swift-nio"), .logging]),
    // ImportKit's limits and the job queue and runner every import uses (the runner's contract on a manual clock).
    tests("ImportKitTests", ["ImportKit", "PluginKit", "Bus", "AppHostTestKit", .zip, .logging]),
]

let package = Package(
    name: "Quire",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "quire", targets: ["quire"]),
        .executable(name: "quire-auth", targets: ["quire-auth"]),
        .executable(name: "quire-bench", targets: ["quire-bench"]),
        .executable(name: "quire-media", targets: ["quire-media"]),
        .executable(name: "quire-draw", targets: ["quire-draw"]),
        .executable(name: "quire-vocab", targets: ["quire-vocab"]),
        .executable(name: "quire-notes", targets: ["quire-notes"]),
        .executable(name: "quire-geo", targets: ["quire-geo"]),
        .executable(name: "quire-share", targets: ["quire-share"]),
        .executable(name: "quire-monitor", targets: ["quire-monitor"]),
        .executable(name: "quire-fuzz", targets: ["quire-fuzz"]),
        .executable(name: "quire-fsrs-fit", targets: ["quire-fsrs-fit"]),
    ],
    dependencies: dependencies,
    targets: targets
)
