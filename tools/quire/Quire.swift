import AppConfig
import AppHost
import ArgumentParser
import Foundation
import CQuireSystem
import Logging
import PluginCatalog
import PluginKit
import Storage

/// `quire`: serve an app, check a config, list the plugins compiled in.
@main
struct Quire: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Quire: notes apps composed from plugins by a YAML file.",
        subcommands: [Serve.self, ConfigCommand.self, Plugins.self, Export.self, Backup.self, Restore.self, Migrate.self, AdminCommand.self, Deploy.self])
}

extension Serve {
    /// glibc gives each thread that allocates concurrently its own heap arena, up to 8 per core,
    /// and memory freed in one arena is not reused by another: under 8 concurrent 24 MP uploads
    /// (request threads, dispatch threads decoding, libvips workers) the server peaked at 157 MB.
    /// `CQuireSystem` caps the arenas at one per core when the binary loads, before any thread
    /// (see its C file); calling it here again links it in and states the intent. MALLOC_ARENA_MAX
    /// in the environment still wins.
    static func limitMallocArenas() {
        if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil {
            _ = quire_limit_malloc_arenas(Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve an app until SIGINT or SIGTERM.")

    @Option(name: .long, help: "The app's YAML file, e.g. config/apps/napkin-notes.yaml.")
    var config: String

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        Self.limitMallocArenas()
        StoragePlugin.runScheduledBackups()  // storage.backup runs in the server, not in tools that open the same app
        var logger = Logger(label: "quire") { LineLogHandler(label: $0, metadataProvider: AppHost.requestMetadata) }
        logger.logLevel = logLevel
        let environment = ProcessInfo.processInfo.environment
        let host: AppHost
        let server: AppConfig.Server
        do {
            let appConfig = try AppConfig.load(file: config, environment: environment)
            server = appConfig.server
            host = try await AppHost.build(config: appConfig, catalog: PluginCatalog.all, environment: environment, logger: logger)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode(1)
        } catch let error as PluginSetupError {
            FileHandle.standardError.write(Data("quire: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        do {
            try await host.run()
        } catch {
            guard let said = Self.cannotListen(error, server: server) else { throw error }
            FileHandle.standardError.write(Data("quire serve: \(said)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// What to tell the operator when a port cannot be had: NIO's bind error names neither the
    /// address nor what to do ("bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)").
    static func cannotListen(_ error: any Error, server: AppConfig.Server) -> String? {
        let text = String(describing: error)
        guard text.contains("bind(") else { return nil }
        let ports = ([server.port] + (server.httpPort.map { [$0] } ?? [])).map { "\(server.host):\($0)" }.joined(separator: " or ")
        if text.contains("errno: 98") || text.contains("Address already in use") {
            return "cannot listen on \(ports): another program (another quire?) already listens there. "
                + "Stop it (`ss -ltnp` shows which), or choose another port: QUIRE_PORT (server.port) or QUIRE_HTTP_PORT (server.http_port). [port_in_use]"
        }
        if text.contains("errno: 13") || text.contains("Permission denied") {
            return "cannot listen on \(ports): ports below 1024 need root or CAP_NET_BIND_SERVICE (the unit quire deploy writes has it). "
                + "Run it so, or choose a port from 1024 up: QUIRE_PORT (server.port), QUIRE_HTTP_PORT (server.http_port). [port_not_allowed]"
        }
        if text.contains("errno: 99") || text.contains("Cannot assign requested address") {
            return "cannot listen on \(ports): this machine has no such address. "
                + "Use one of its addresses (`ip -brief address`), 0.0.0.0 for all, or 127.0.0.1: QUIRE_HOST (server.host). [address_not_here]"
        }
        return nil
    }
}

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Work with app config files.", subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a config file: exit 0 when it is valid, 1 with one file:line:column line per mistake.")

        @Argument(help: "The YAML file to check.")
        var file: String

        func run() throws {
            do {
                let config = try AppConfig.load(file: file, environment: ProcessInfo.processInfo.environment)
                let plugins = try AppHost.validate(config, catalog: PluginCatalog.all)
                print("\(file): OK — app '\(config.app)' with \(plugins.map(\.id).joined(separator: ", "))")
            } catch {
                FileHandle.standardError.write(Data((error.description + "\n").utf8))
                throw ExitCode(1)
            }
        }
    }
}

struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List every plugin compiled in, with its settings.")

    func run() {
        for factory in PluginCatalog.all {
            let descriptor = factory.descriptor
            print("\(descriptor.id) — \(descriptor.summary)")
            if !descriptor.dependencies.isEmpty {
                print("  needs: \(descriptor.dependencies.joined(separator: ", "))")
            }
            for setting in descriptor.settings {
                let fallback = setting.defaultValue.map { " (default \($0))" } ?? ""
                print("  \(setting.key): \(setting.type)\(fallback) — \(setting.help)")
            }
            print("")
        }
    }
}

