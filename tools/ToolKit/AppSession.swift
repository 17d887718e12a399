import AppConfig
import AppHost
public import ArgumentParser
import AuthAPI
public import Bus
import Foundation
import Logging
import PluginCatalog
import PluginKit

/// What every `quire-*` tool does around its work: builds the app's plugins from its YAML (no HTTP
/// server), runs the work against the bus, stops the plugins cleanly (the database is closed), and
/// turns failures into one line on standard error and an exit code (3: not found, 1: anything else).
/// Safe beside a running server of the same app.
public struct AppSession: Sendable {
    public let tool: String
    public let config: String

    public init(tool: String, config: String) {
        self.tool = tool
        self.config = config
    }

    public func run<T: Sendable>(_ body: @Sendable (any MessageBus) async throws -> T) async throws -> T {
        var logger = Logger(label: tool) { LineLogHandler(label: $0, metadataProvider: AppHost.requestMetadata) }
        logger.logLevel = .warning
        let environment = ProcessInfo.processInfo.environment
        do {
            let appConfig = try AppConfig.load(file: config, environment: environment)
            let host = try await AppHost.build(config: appConfig, catalog: PluginCatalog.all, environment: environment, logger: logger)
            return try await host.withServices { try await body(host.bus) }
        } catch let error as ConfigError {
            throw fail(error.description)
        } catch let error as BusError {
            throw fail("\(error.message) [\(error.code.rawValue)]", code: error.code == .notFound ? 3 : 1)
        } catch let error as PluginSetupError {
            throw fail(error.description)
        }
    }

    /// Like ``run(_:)``, with the account id of `username` (a user name, or an account id `acc_…`).
    public func run<T: Sendable>(as username: String, _ body: @Sendable (any MessageBus, String) async throws -> T) async throws -> T {
        try await run { bus in
            // A device account has no name to type: its id (acc_…, from the app) is taken as it is.
            if username.hasPrefix("acc_") { return try await body(bus, username) }
            let account = try await bus.request(FindAccount(username: username), timeout: .seconds(10))
            return try await body(bus, account.accountID)
        }
    }

    /// Writes `message` to standard error and answers the exit code to throw.
    public func fail(_ message: String, code: Int32 = 1) -> ExitCode {
        FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
        return ExitCode(code)
    }
}
