import AppConfig
import AppHost
import PluginCatalog
import PluginKit
import Testing

/// Stand-in plugins to build graphs the real catalog does not have (cycles).
struct FakePlugin<Tag: FakeTag>: Plugin {
    typealias Config = Void
    static var descriptor: PluginDescriptor {
        PluginDescriptor(id: Tag.id, summary: "fake", dependencies: Tag.dependencies)
    }
    static func configure(_ section: ConfigSection) -> Void {}
    init(config: Void, context: PluginContext) async throws {}
}

protocol FakeTag: Sendable {
    static var id: String { get }
    static var dependencies: [String] { get }
}

enum TagA: FakeTag { static let id = "alpha"; static let dependencies = ["beta"] }
enum TagB: FakeTag { static let id = "beta"; static let dependencies = ["gamma"] }
enum TagC: FakeTag { static let id = "gamma"; static let dependencies = ["alpha"] }

@Suite("Composing plugins from YAML")
struct PluginGraphTests {
    func check(_ yaml: String, catalog: [PluginFactory] = PluginCatalog.all) throws -> [ConfiguredPlugin] {
        let config = AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"), environment: [:])
        return try AppHost.validate(config, catalog: catalog)
    }

    func errors(_ yaml: String, catalog: [PluginFactory] = PluginCatalog.all) throws -> [String] {
        do {
            _ = try check(yaml, catalog: catalog)
            return []
        } catch let error as ConfigError {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("plugins start in dependency order whatever the file order")
    func order() throws {
        let plugins = try check("""
            app: a
            plugins:
              notes: {}
              drawing: {}
              auth: { bcrypt_cost: 4 }
              media: {}
              storage: { backend: memory }
            """)
        #expect(plugins.map(\.id) == ["storage", "auth", "media", "drawing", "notes"])
    }

    @Test("an unknown plugin is refused at its key, listing the ones compiled in")
    func unknownPlugin() throws {
        #expect(try errors("app: a\nplugins:\n  storage: {}\n  telepathy: {}\n") == [
            "app.yaml:4:3: plugins.telepathy: unknown plugin; the plugins compiled in are: admin, album, audio, auth, device-monitor, drawing, geo, mail, media, notebooks, notes, photo-text, push, quotas, reminders, share-link, storage, sync, vocabulary, web",
        ])
    }

    @Test("a missing dependency names who needs it")
    func missingDependency() throws {
        #expect(try errors("app: a\nplugins:\n  storage: {}\n  media: {}\n  drawing: {}\n  notes: {}\n") == [
            "app.yaml:6:3: plugins.notes: plugin 'notes' needs plugin 'auth', which is not enabled; add 'auth: {}' under plugins",
        ])
    }

    @Test("a dependency cycle is refused, showing the cycle")
    func cycle() throws {
        let catalog = [PluginFactory(FakePlugin<TagA>.self), PluginFactory(FakePlugin<TagB>.self),
                       PluginFactory(FakePlugin<TagC>.self)]
        let found = try errors("app: a\nplugins:\n  alpha: {}\n  beta: {}\n  gamma: {}\n", catalog: catalog)
        #expect(found == ["app.yaml:3:3: plugins.alpha: dependency cycle: alpha → beta → gamma → alpha"])
    }

    @Test("a plugin's own settings are checked strictly too")
    func pluginSettings() throws {
        let found = try errors("""
            app: a
            plugins:
              storage: { backend: floppy, pth: x }
              auth: { bcrypt_cost: 99, access_token_ttl: forever }
              media: {}
              drawing: {}
              notes: { time_zone: Mars/Olympus }
            """)
        #expect(found == [
            "app.yaml:3:23: plugins.storage.backend: expected one of sqlite, postgres, memory, found \"floppy\"",
            "app.yaml:3:31: plugins.storage.pth: unknown key; expected one of: backend, blob_grace_seconds, blob_sweep_minutes, blobs, compact_seconds, durability, history, max_blob_bytes, max_connections, migrate_without_backup, path, retention_days, url",
            "app.yaml:4:24: plugins.auth.bcrypt_cost: expected a whole number between 4 and 16, found 99",
            "app.yaml:4:46: plugins.auth.access_token_ttl: expected a duration such as 30s, 15m, 12h or 7d, found \"forever\"",
            "app.yaml:7:23: plugins.notes.time_zone: unknown time zone \"Mars/Olympus\"; use an IANA name such as Europe/Paris",
        ])
    }

    @Test("what serve would refuse, check refuses with the position: a short auth secret")
    func shortSecret() throws {
        #expect(try errors("app: a\nplugins:\n  storage: {}\n  auth: { secret: too-short }\n") == [
            "app.yaml:4:19: plugins.auth.secret: must be at least 32 characters (it has 9); generate one with: openssl rand -base64 48",
        ])
    }

    @Test("a setting that names another plugin's thing must name one it declares (share-link's rendition, media's renditions)")
    func crossPluginNames() throws {
        let plugins = "  storage: {}\n  auth: {}\n  geo: {}\n  drawing: {}\n"
        let found = try errors("app: a\nplugins:\n\(plugins)  media: { renditions: [{ name: thumb }] }\n  share-link: { rendition: shar }\n")
        #expect(found == [
            "app.yaml:8:28: plugins.share-link.rendition: names the rendition \"shar\", which plugin 'media' does not declare (it declares \"thumb\"); "
                + "add it under plugins.media or name one of those",
        ], "\(found)")
        #expect(try errors("app: a\nplugins:\n\(plugins)  media: { renditions: [{ name: share }] }\n  share-link: { rendition: share }\n").isEmpty)
        // The default ("share") must be declared too.
        #expect(try errors("app: a\nplugins:\n\(plugins)  media: {}\n  share-link: {}\n").count == 1)
    }

    @Test("every app config shipped in config/ is valid")
    func shippedConfigs() throws {
        let root = RepositoryRoot.path
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(root)/config/apps").filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(names == ["ar-notebook.yaml", "foreign-note.yaml", "iremember.yaml", "napkin-notes.yaml"])
        for name in names.map({ "config/apps/" + $0 }) {
            let config = try AppConfig.load(file: "\(root)/\(name)", environment: [:])
            #expect(throws: Never.self) { try AppHost.validate(config, catalog: PluginCatalog.all) }
        }
        // The PostgreSQL variants, with a database URL as an operator would give one.
        let examples = try FileManager.default.contentsOfDirectory(atPath: "\(root)/config/examples").filter { $0.hasSuffix(".postgres.yaml") }.sorted()
        #expect(examples == ["ar-notebook.postgres.yaml", "foreign-note.postgres.yaml", "iremember.postgres.yaml", "napkin-notes.postgres.yaml"])
        for name in examples {
            let config = try AppConfig.load(file: "\(root)/config/examples/\(name)",
                                            environment: ["QUIRE_DATABASE_URL": "postgres://quire:secret@db.example:5432/quire"])
            #expect(throws: Never.self) { try AppHost.validate(config, catalog: PluginCatalog.all) }
        }
    }

    @Test("every plugin reads exactly the settings it documents for `quire plugins`", arguments: PluginCatalog.all.map(\.descriptor.id))
    func documentedSettings(_ id: String) throws {
        guard let factory = PluginCatalog.all.first(where: { $0.descriptor.id == id }) else {
            Issue.record("no plugin \(id)")
            return
        }
        // Give every documented key a nonsense value: each must be read (and so reported as wrong or
        // accepted), and nothing undocumented may be asked for.
        let documented = factory.descriptor.settings.map(\.key)
        let yaml = "app: a\nplugins:\n  \(id):\n" + documented.map { "    \($0): \"x\"\n" }.joined()
        let config = AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"), environment: [:])
        _ = PluginGraph.resolve(config, catalog: [factory])
        let unknown = config.reader.diagnostics.filter { $0.message.hasPrefix("unknown key") }
        #expect(unknown.isEmpty)
        do {
            try config.reader.finish()
        } catch {
            #expect(!error.description.contains("unknown key"), "documented but not read: \(error)")
        }
    }
}

enum RepositoryRoot {
    /// The checkout this test file lives in.
    static var path: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }
}

import Foundation
