import AppConfig
public import AppHost
public import Foundation
public import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PluginCatalog
public import PluginKit
import Synchronization

/// Runs an app from YAML against Hummingbird's in-process router test client: no socket, no files.
public enum TestApp {
    /// Napkin Notes' plugins (media with a 44×44 `list` and a `display` rendition, drawing, notes),
    /// with blobs deleted as soon as they are unused (grace 0) so tests can see it.
    public static func napkinPlugins(notes: String = "{}", media: String = "max_upload_bytes: 10485760") -> String {
        """
          media: { \(media), renditions: [{ name: list, width: 44, height: 44, fit: cover }, { name: display, width: 320, height: 320, format: webp }] }
          drawing: {}
          notes: \(notes)

        """
    }

    /// A test config: in-memory storage, fast bcrypt, a fixed secret, plus `extraPlugins` lines.
    public static func yaml(app: String = "test-app", extraPlugins: String = TestApp.napkinPlugins(),
                            storage: String = "{ backend: memory, blob_grace_seconds: 0 }",
                            auth: String = "{ bcrypt_cost: 4, secret: test-secret-0123456789-0123456789-0123456789 }") -> String {
        """
        app: \(app)
        server: { host: 127.0.0.1, port: 0 }
        plugins:
          storage: \(storage)
          auth: \(auth)
        \(extraPlugins)
        """
    }

    /// Builds the host from `yaml` and runs `body` with a client of it.
    public static func run(yaml: String = TestApp.yaml(), catalog: [PluginFactory] = PluginCatalog.all, clock: PluginClock = .system,
                           ids: IDSource = .system, logs: LogCapture? = nil, _ body: @Sendable (APIClient, AppHost) async throws -> Void) async throws {
        var logger = Logger(label: "test")
        // Quiet unless asked: QUIRE_TEST_LOG=info (or debug, warning, …) shows the app's own log lines.
        logger.logLevel = ProcessInfo.processInfo.environment["QUIRE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        // A test that reads what was logged: every line, at every level.
        if let logs { logger = logs.logger() }
        let config = AppConfig(root: try YAMLLoader.parse(yaml, file: "test.yaml"), environment: [:])
        let host = try await AppHost.build(config: config, catalog: catalog, logger: logger, clock: clock, ids: ids)
        try await host.application().test(.router) { client in
            try await body(APIClient(client: client), host)
        }
    }
}

/// A small JSON client over a test client.
public struct APIClient: Sendable {
    let client: any TestClientProtocol

    /// One response, with its JSON body parsed on demand.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: HTTPFields
        public var body: Data

        /// The body as a JSON object (empty when it is not one).
        public var json: [String: any Sendable] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: any Sendable] ?? [:]
        }

        public subscript(_ key: String) -> String? { json[key] as? String }

        /// The `items` of a list response.
        public var items: [[String: any Sendable]] { json["items"] as? [[String: any Sendable]] ?? [] }

        public var contentType: String? { headers[.contentType] }

        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }

        /// A problem's stable code: the last part of its `type`.
        public var problemCode: String? { self["type"]?.split(separator: ":").last.map(String.init) }
    }

    /// Sends a request. `json` is encoded as the body (pass a string for raw bytes).
    @discardableResult
    public func send(_ method: HTTPRequest.Method, _ path: String, json: (any Sendable)? = nil, token: String? = nil,
                     headers extra: HTTPFields = [:]) async throws -> Reply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            let data = try (json as? String).map { Data($0.utf8) } ?? JSONSerialization.data(withJSONObject: json)
            body = ByteBuffer(bytes: data)
            if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        }
        return try await client.execute(uri: path, method: method, headers: headers, body: body) { response in
            Reply(status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView))
        }
    }

    /// Sends raw bytes (an upload) as the body.
    @discardableResult
    public func upload(_ method: HTTPRequest.Method, _ path: String, bytes: Data, contentType: String = "application/octet-stream",
                       token: String? = nil, headers extra: HTTPFields = [:]) async throws -> Reply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers[.contentType] = contentType
        return try await client.execute(uri: path, method: method, headers: headers, body: ByteBuffer(bytes: bytes)) { response in
            Reply(status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView))
        }
    }

    /// Registers and signs in a user; returns the access token and the full login reply.
    public func signUp(_ username: String, password: String = "a good password") async throws -> (token: String, login: Reply) {
        let registered = try await send(.post, "/api/v1/auth/register", json: ["username": username, "password": password])
        guard registered.status == 201 else { throw TestAppFailure("register \(username): \(registered.status) \(String(decoding: registered.body, as: UTF8.self))") }
        let login = try await send(.post, "/api/v1/auth/login", json: ["username": username, "password": password])
        guard login.status == 200, let token = login["access_token"] else {
            throw TestAppFailure("login \(username): \(login.status) \(String(decoding: login.body, as: UTF8.self))")
        }
        return (token, login)
    }
}

public struct TestAppFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A clock a test sets and moves: `TestApp.run(clock: clock.pluginClock)`.
public final class ManualClock: Sendable {
    private let time: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { time = Mutex(start) }

    public var now: Date { time.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }

    public var pluginClock: PluginClock { PluginClock { [self] in now } }
}
