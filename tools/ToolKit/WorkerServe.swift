import AppConfig
import AppHost
public import ArgumentParser
import Foundation
public import Logging
import PluginCatalog
import PluginKit

/// `quire-media serve` and `quire-draw serve`: one plugin of an app, alone but for the storage it
/// needs, answering its requests off NATS. The app's nodes list the plugin under `bus.remote`, so
/// image work leaves the web nodes; run two workers and they share the load (NATS' queue group),
/// and a request a killed worker held is asked again of the other (the plugin's requests are
/// repeatable). Stops gracefully on SIGINT or SIGTERM.
public struct WorkerServe: Sendable {
    public let tool: String
    public let plugin: String

    public init(tool: String, plugin: String) {
        self.tool = tool
        self.plugin = plugin
    }

    public func run(_ options: WorkerOptions) async throws {
        var logger = Logger(label: tool) { LineLogHandler(label: $0, metadataProvider: AppHost.requestMetadata) }
        logger.logLevel = options.logLevel
        let environment = ProcessInfo.processInfo.environment
        let host: AppHost
        do {
            let appConfig = try AppConfig.load(file: options.config, environment: environment)
            host = try await AppHost.worker(config: appConfig, catalog: PluginCatalog.all, plugins: [plugin], environment: environment, logger: logger)
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode(1)
        } catch let error as PluginSetupError {
            FileHandle.standardError.write(Data("\(tool): \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        try await host.runWorker()
    }
}

/// The options of every worker's `serve`.
public struct WorkerOptions: ParsableArguments {
    @Option(help: "The app's YAML file, the one its nodes run.") public var config: String
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") public var logLevel: Logger.Level = .info
    public init() {}
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
