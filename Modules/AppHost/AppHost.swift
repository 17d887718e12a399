public import AppConfig
public import Bus
import BusInProcess
import BusNATS
public import HTTPKit
public import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import HummingbirdHTTP2
import NIOCore
import QuireACME
public import QuireTLS
public import Logging
public import PluginKit
import SafeFetch
import Secrets
import ServiceLifecycle
import UnixSignals

/// The composition root: turns an app's config into running plugins behind one HTTP server.
///
/// It resolves plugins by id, builds them in dependency order on one bus, mounts their routes under
/// `/api/v1/<id>` (signed-in by default), and runs their services and the server in one
/// `ServiceGroup` that shuts down gracefully on SIGINT/SIGTERM: in-flight requests finish, then the
/// plugins stop in reverse order (the database closes last).
public struct AppHost: Sendable {
    public let config: AppConfig
    public let bus: any MessageBus
    /// Built plugins, in dependency order.
    public let plugins: [any Plugin]
    /// Every route mounted, for the manifest and the OpenAPI check.
    public let routes: [RouteDescription]
    /// WebSocket endpoints, by full path.
    let live: [String: LiveHandler]
    let responder: RouterResponder<QuireContext>
    let logger: Logger
    /// Timeouts and connection bounds, from `server:` and the open-file limit (raised at start).
    var limits: ServerLimits = .fallback

    /// Validates the config and builds every plugin.
    /// - Throws: ``ConfigError`` listing every mistake with `file:line:column`; ``PluginSetupError`` or a
    ///   plugin's own error when a plugin cannot start (e.g. the database file cannot be opened).
    public static func build(config: AppConfig, catalog: [PluginFactory], environment: [String: String] = [:],
                             logger: Logger, bus: (any MessageBus)? = nil, clock: PluginClock = .system,
                             ids: IDSource = .system) async throws -> AppHost {
        let configured = try validate(config, catalog: catalog)
        // Large request work (uploads) reserves from this before it runs (server.memory_budget).
        MemoryBudget.shared.configure(bytes: config.server.memoryBudget, wait: config.server.memoryBudgetWait)
        let limits = try ServerLimits.resolve(config.server.connections, openFiles: OpenFileLimit.raise())
        let given = bus
        let bus: any MessageBus
        let made: any MessageBus
        if let given {
            made = given
        } else {
            made = try await makeBus(config.bus, logger: logger)
        }
        let metrics = config.server.metricsToken.map { _ in MetricsExport.process() }
        bus = metrics.map { MeteredBus(made, export: $0) } ?? made
        // A remote plugin is configured here (its settings checked, its names declared) and run by
        // a worker; its requests cross NATS.
        let remote = Set(config.bus.remote)
        var built: [(entry: ConfiguredPlugin, plugin: any Plugin)] = []
        let offers = configured.flatMap(\.factory.descriptor.offers)
        let jobs = jobQueue(config)
        for entry in configured where !remote.contains(entry.id) {
            built.append((entry, try await make(entry, config: config, bus: bus, environment: environment, offers: offers, clock: clock,
                                                ids: ids, jobs: jobs, logger: logger)))
        }
        let plugins = built.map(\.plugin)
        let authenticator = plugins.lazy.compactMap(\.authenticator).first
        let gate = plugins.lazy.compactMap(\.gate).first
        let router = Router(context: QuireContext.self)
        router.add(middleware: RequestTraceMiddleware())
        // Outermost but for the trace, so that it counts each request with the status the client got.
        if metrics != nil { router.add(middleware: MetricsMiddleware()) }
        router.add(middleware: ProblemMiddleware())
        if !config.server.trustedProxies.isEmpty {
            let networks = config.server.trustedProxies.compactMap(IPNetwork.init)
            guard networks.count == config.server.trustedProxies.count else {
                throw PluginSetupError("server.trusted_proxies: \(config.server.trustedProxies.filter { IPNetwork($0) == nil }) are not address blocks; "
                                       + "write them as 127.0.0.1/32 or 10.0.0.0/8")
            }
            router.add(middleware: ForwardedForMiddleware(proxies: networks))
        }
        let table = RouteTable()
        router.add(middleware: MethodNotAllowedMiddleware(table: table))
        if let gate { router.add(middleware: GateMiddleware(gate: gate)) }
        router.add(middleware: BodyLimitMiddleware(maxBodyBytes: config.server.maxBodyBytes))

        var routes: [RouteDescription] = []
        var live: [String: LiveHandler] = [:]
        let health = PluginRoutes(group: router.group(), prefix: "", authenticator: authenticator)
        health.addPublic(.get, "health", summary: "Liveness: 200 while the server runs") { _, _ in
            try .json(["status": "ok"])
        }
        routes += health.descriptions.map { var route = $0; route.path = "/health"; return route }
        if let metrics, let token = config.server.metricsToken {
            // For the operator's Prometheus, not the API: off without a token, and never without it.
            router.get("metrics") { request, _ -> Response in
                let presented = request.headers[.authorization].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : "" } ?? ""
                guard Secrets.constantTimeEqual(presented, token) else {
                    throw Problem.unauthenticated("/metrics needs the bearer token of server.metrics_token.")
                }
                return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
            }
        }

        for (entry, plugin) in built {
            let prefix = "/api/v1/\(entry.id)"
            let pluginRoutes = PluginRoutes(group: router.group(RouterPath(prefix)), prefix: prefix,
                                            authenticator: authenticator, gate: gate)
            do {
                try plugin.routes(pluginRoutes)
            } catch let error as RouteSetupError {
                throw PluginSetupError("plugin '\(entry.id)': \(error.description)")
            }
            routes += pluginRoutes.descriptions
            for endpoint in pluginRoutes.liveEndpoints { live[endpoint.path] = endpoint.handler }
            let site = PluginRoutes(group: router.group(), prefix: "", authenticator: authenticator, gate: gate)
            do {
                try plugin.siteRoutes(site)
            } catch let error as RouteSetupError {
                throw PluginSetupError("plugin '\(entry.id)': \(error.description)")
            }
            routes += site.descriptions.map { var route = $0; route.path = "/" + route.path.drop { $0 == "/" }; return route }
        }

        let running = Dictionary(built.map { ($0.entry.id, $0.plugin) }, uniquingKeysWith: { first, _ in first })
        let manifest = Manifest(app: config.app, plugins: configured.map { entry in
            Manifest.PluginEntry(id: entry.id, summary: entry.factory.descriptor.summary, features: running[entry.id]?.features ?? entry.features,
                                 // Operators' routes do not exist for anyone else, so the public manifest keeps quiet about them.
                                 routes: routes.filter { ($0.path.hasPrefix("/api/v1/\(entry.id)/") || $0.path == "/api/v1/\(entry.id)") && $0.access != .operator })
        })
        let manifestRoutes = PluginRoutes(group: router.group("api/v1"), prefix: "/api/v1", authenticator: authenticator)
        manifestRoutes.addPublic(.get, "manifest", summary: "The app's name, plugins and what each offers") { _, _ in
            try .json(manifest)
        }
        routes += manifestRoutes.descriptions
        // No 405 with `Allow` on an operator's path: to others it is an unknown path.
        table.fill(routes.filter { $0.access != .operator })
        return AppHost(config: config, bus: bus, plugins: plugins, routes: routes, live: live, responder: router.buildResponder(),
                       logger: logger, limits: limits)
    }

    /// A worker: `names` (plugins the app's YAML lists under `bus.remote`) and what they depend on
    /// (storage), without the HTTP server, answering their requests off NATS beside the app's nodes.
    /// - Throws: ``ConfigError`` for the file; ``PluginSetupError`` when the app has no such plugin
    ///   or its bus is not NATS.
    public static func worker(config: AppConfig, catalog: [PluginFactory], plugins names: [String], environment: [String: String] = [:],
                              logger: Logger) async throws -> AppHost {
        let configured = try validate(config, catalog: catalog)
        guard config.bus.transport == "nats" else {
            throw PluginSetupError("\(config.file): a worker takes its requests off NATS; set bus: { transport: nats, url: … }")
        }
        let byID = Dictionary(configured.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var wanted = Set<String>()
        var stack = names
        while let id = stack.popLast() {
            guard let entry = byID[id] else {
                throw PluginSetupError("\(config.file) has no plugin '\(id)' to run; its plugins are: \(configured.map(\.id).joined(separator: ", "))")
            }
            if wanted.insert(id).inserted { stack += entry.factory.descriptor.dependencies }
        }
        let bus = try await makeBus(config.bus, logger: logger)
        let offers = configured.flatMap(\.factory.descriptor.offers)
        var plugins: [any Plugin] = []
        let jobs = jobQueue(config)
        for entry in configured where wanted.contains(entry.id) {
            plugins.append(try await make(entry, config: config, bus: bus, environment: environment, offers: offers, clock: .system,
                                          ids: .system, jobs: jobs, logger: logger))
        }
        logger.info("Quire worker is running", metadata: ["app": "\(config.app)", "plugins": "\(names.joined(separator: ","))"])
        return AppHost(config: config, bus: bus, plugins: plugins, routes: [], live: [:],
                       responder: Router(context: QuireContext.self).buildResponder(), logger: logger)
    }

    /// Runs a worker's plugins until SIGINT or SIGTERM, then stops them gracefully: requests being
    /// answered finish, as on a node.
    public func runWorker() async throws {
        let group = ServiceGroup(configuration: .init(
            services: plugins.flatMap(\.services) + [UntilShutdown()],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }

    /// Builds one plugin and registers its handlers. A plugin that asks a remote one something as
    /// it starts (the upload limits media keeps) waits for a worker to answer, saying so once per
    /// attempt, as a node waits for NATS.
    static func make(_ entry: ConfiguredPlugin, config: AppConfig, bus: any MessageBus, environment: [String: String],
                     offers: [any PluginOffer.Type], clock: PluginClock, ids: IDSource, jobs: JobQueue,
                     logger: Logger) async throws -> any Plugin {
        var pluginLogger = logger
        pluginLogger[metadataKey: "plugin"] = "\(entry.id)"
        var context = PluginContext(appName: config.app, bus: bus, logger: pluginLogger, environment: environment, offers: offers, clock: clock,
                                    ids: ids)
        context.jobs = jobs
        context.keyFiles = config.keyFiles
        context.busTransport = config.bus.transport == "nats" ? "nats" : "in-process"
        var wait: Duration = .milliseconds(500)
        while true {
            do {
                let plugin = try await entry.make(context: context)
                try await plugin.register(on: bus)
                return plugin
            } catch let error as BusError where !config.bus.remote.isEmpty && [.noHandler, .deadlineExceeded].contains(error.code) {
                pluginLogger.warning("A remote plugin does not answer yet (is its worker running?); trying again.",
                                     metadata: ["message": "\(error.details["message"] ?? "?")", "retryIn": "\(wait)"])
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(10))
            }
        }
    }

    /// The process's one queue of heavy jobs, shared by every plugin (`server.jobs`).
    static func jobQueue(_ config: AppConfig) -> JobQueue {
        JobQueue(JobQueue.Settings(workers: config.server.jobs.workers, maxJobs: config.server.jobs.maxJobs,
                                   maxJobsPerUser: config.server.jobs.maxJobsPerUser))
    }

    /// The transport `bus:` names. The plugins talk over it as they start (declaring their
    /// collections), so a node waits for NATS first, saying so once per attempt; refused
    /// credentials end the start at once. Once running, a lost NATS is reconnected by itself and
    /// requests meanwhile fail with `unavailable` (503).
    static func makeBus(_ bus: AppConfig.Bus, logger: Logger) async throws -> any MessageBus {
        guard bus.transport == "nats", let url = bus.url else { return InProcessBus(logger: logger) }
        var options: NATSOptions
        do {
            options = try NATSOptions(url: url)
        } catch {
            throw PluginSetupError("bus.url: \(error.message)")
        }
        if let caFile = bus.tlsCAFile {
            guard options.tls != nil else { throw PluginSetupError("bus.tls_ca_file is read only with a tls:// URL") }
            options.tls = NATSOptions.TLS(caFile: caFile)
        }
        var natsLogger = logger
        natsLogger[metadataKey: "component"] = "nats"
        let connection = NATSConnection(options: options, logger: natsLogger)
        var wait: Duration = .milliseconds(500)
        while true {
            do {
                try await connection.connect()
                break
            } catch where error.kind == .refused {
                throw PluginSetupError("bus.url: \(error.message)")
            } catch {
                natsLogger.warning("bus: NATS does not answer yet. The plugins start once it answers; trying again.",
                                   metadata: ["reason": "\(error.message)", "retryIn": "\(wait)"])
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(10))
            }
        }
        return NATSBus(connection: connection, subjectPrefix: bus.subjectPrefix, localFirst: bus.localFirst, logger: natsLogger)
    }

    /// Reads every plugin's section and checks the whole file; nothing is built or opened.
    /// - Throws: ``ConfigError`` with every mistake.
    @discardableResult
    public static func validate(_ config: AppConfig, catalog: [PluginFactory]) throws(ConfigError) -> [ConfiguredPlugin] {
        let configured = PluginGraph.resolve(config, catalog: catalog)
        if let tls = config.server.tls, let cert = tls.certFile, let key = tls.keyFile {
            for problem in TLSFiles.check(certFile: cert, keyFile: key) {
                let (location, path) = problem.file == .certificate ? (tls.certFileLocation, "server.tls.cert_file")
                                                                    : (tls.keyFileLocation, "server.tls.key_file")
                config.reader.report(location, path, problem.message)
            }
        }
        if let acme = config.server.tls?.acme, let caFile = acme.directoryCAFile, let problem = HTTPACMETransport.problem(caFile: caFile) {
            config.reader.report(acme.directoryCAFileLocation, "server.tls.acme.directory_ca_file", problem)
        }
        try config.reader.finish()
        return configured
    }

    /// How often a live (WebSocket) connection is pinged; one that does not answer is closed.
    public static let heartbeat: Duration = .seconds(25)

    /// The HTTP application: plugin services first, then the server.
    public func application(onServerRunning: @escaping @Sendable (String) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        application(https: nil, onServerRunning: onServerRunning)
    }

    /// The HTTP application, over HTTPS (HTTP/2 and HTTP/1.1 by ALPN) when `https` is given.
    func application(https: HTTPSSetup?, connections: ConnectionRegistry? = nil, onServerRunning: @escaping @Sendable (String) async -> Void)
        -> some ApplicationProtocol
    {
        let logger = self.logger
        let app = config.app
        let server = config.server
        let connections = connections ?? connectionRegistry()
        let timeouts = limits.timeouts
        return Application(
            responder: responder,
            // Malformed HTTP (a bad chunk size, an oversized URL or header) gets a problem document too.
            server: HTTPServerBuilder { [live] responder in
                let http1 = UpgradableServer(inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    configuration: .init(http1: .init(additionalChannelHandlers: [ParseErrorProblemHandler()]),
                                         ws: .init(maxFrameSize: 1 << 14, autoPing: .enabled(timePeriod: Self.heartbeat))),
                    shouldUpgrade: { head, channel, _ in
                        guard head.method == .get, let path = head.path?.split(separator: "?", maxSplits: 1).first,
                              let handler = live[String(path)] else { return .dontUpgrade }
                        // An unmasked client frame closes the connection with 1002 (RFC 6455, 5.1).
                        MaskedFramesGuard.attach(to: channel)
                        return .upgrade([:], handler)
                    }))
                guard let https else { return GuardedServer(inner: http1, registry: connections, secure: false) }
                let http2 = HTTP2Channel(responder: responder, configuration: .init(
                    idleTimeout: server.connections.idleTimeout,
                    streamConfiguration: .init(additionalChannelHandlers: [StreamProbe(policy: timeouts)])))
                return GuardedServer(inner: SecureServer(certificates: https.certificates, http1: http1, http2: http2),
                                     registry: connections, secure: true)
            },
            // A burst of connections waits in the kernel's queue rather than having its SYNs dropped (a
            // second's retransmit for the next client, /health included); the server takes them as fast as it can.
            configuration: .init(address: .hostname(config.server.host, port: config.server.port), serverName: "Quire",
                                 backlog: limits.acceptBacklog),
            services: plugins.flatMap(\.services),
            onServerRunning: { channel in
                let scheme = https == nil ? "http" : "https"
                let address = channel.localAddress.map { "\(scheme)://\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
                logger.info("Quire is serving", metadata: ["app": "\(app)", "address": "\(address)"])
                if let https { https.announce(server: server, port: channel.localAddress?.port ?? server.port, logger: logger) }
                await onServerRunning(address)
            },
            logger: logger)
    }

    /// Runs the plugins' services without the HTTP server while `body` runs, then shuts them down
    /// gracefully (the database closes cleanly). For tools that work on an app's data.
    public func withServices<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let group = ServiceGroup(configuration: .init(services: plugins.flatMap(\.services), logger: logger))
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            let result: Result<T, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            await group.triggerGracefulShutdown()
            while try await tasks.next() != nil {}
            return try result.get()
        }
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully.
    /// With `server.tls`, serves HTTPS (the certificate checked every minute and on SIGHUP) and,
    /// with `server.http_port`, plain HTTP that redirects to it and answers ACME HTTP-01
    /// challenges from `acmeChallenges` (with `server.tls.acme`, the ACME client fills it and
    /// serves the certificate it gets, renewed by itself).
    /// - Throws: ``PluginSetupError`` when the certificate cannot be loaded or issued.
    public func run(acmeChallenges: ACMEChallengeStore = ACMEChallengeStore(),
                    onServerRunning: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        var services: [any Service] = []
        logger.info("\(limits.summary)")
        let connections = connectionRegistry()
        var https: HTTPSSetup?
        if let tls = config.server.tls {
            let setup = try HTTPSSetup.prepare(tls, server: config.server, challenges: acmeChallenges, logger: logger)
            if let acme = setup.acme {
                services.append(acme.service)
            } else {
                services.append(setup.certificates.watcher())
            }
            if let httpPort = config.server.httpPort {
                services.append(setup.plainHTTP(server: config.server, port: httpPort, httpsPort: config.server.port, connections: connections,
                                                logger: logger))
            }
            https = setup
        }
        let group = ServiceGroup(configuration: .init(
            services: services + [application(https: https, connections: connections, onServerRunning: onServerRunning)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}

/// `GET /api/v1/manifest`: what a client builds its UI from.
struct Manifest: Codable, Sendable {
    struct PluginEntry: Codable, Sendable {
        var id: String
        var summary: String
        var features: [String]
        var routes: [RouteDescription]
    }

    var app: String
    var plugins: [PluginEntry]
}

/// A plugin's ``RequestGate`` around every request.
struct GateMiddleware: RouterMiddleware {
    typealias Context = QuireContext
    let gate: any RequestGate
    static let maxDrainBytes = 64 << 20

    func handle(_ request: Request, context: QuireContext,
                next: (Request, QuireContext) async throws -> Response) async throws -> Response {
        do {
            try gate.enter(request)
        } catch let problem as Problem where problem.status == .contentTooLarge {
            // Read (and drop) what the client is still sending, up to a bound: a client that sends its
            // whole body before reading the answer would otherwise never see the 413.
            var seen = 0
            for try await chunk in request.body {
                seen += chunk.readableBytes
                if seen > Self.maxDrainBytes { break }
            }
            throw problem
        }
        defer { gate.leave() }
        return try await next(request, context)
    }
}

/// Behind a trusted reverse proxy, the client is the right-most address of `X-Forwarded-For` that
/// is not itself a trusted proxy (what a client writes there itself is further left, and ignored).
struct ForwardedForMiddleware: RouterMiddleware {
    typealias Context = QuireContext
    let proxies: [IPNetwork]

    func handle(_ request: Request, context: QuireContext,
                next: (Request, QuireContext) async throws -> Response) async throws -> Response {
        guard let peer = context.remoteAddress, let name = Self.header else { return try await next(request, context) }
        var context = context
        context.remoteAddress = Self.client(peer: peer, forwardedFor: request.headers[values: name], proxies: proxies)
        return try await next(request, context)
    }

    /// The client's address: `peer` unless it is a trusted proxy, else the right-most address of
    /// the `X-Forwarded-For` values that is not one (a malformed entry stops the walk there).
    static func client(peer: String, forwardedFor values: [String], proxies: [IPNetwork]) -> String {
        let trusted = { (address: IPAddress) in proxies.contains { $0.contains(address) } }
        guard let address = IPAddress(peer), trusted(address) else { return peer }
        var client = peer
        for hop in values.joined(separator: ",").utf8.split(separator: UInt8(ascii: ",")).reversed() {
            let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            guard let first = hop.firstIndex(where: { !isSpace($0) }), let last = hop.lastIndex(where: { !isSpace($0) }),
                  let text = String(hop[first...last]), let address = IPAddress(text) else { break }
            client = text
            if !trusted(address) { break }
        }
        return client
    }

    static let header = HTTPField.Name("X-Forwarded-For")
}

/// Names each request: its id (Hummingbird's) is the task's ``RequestTrace/id`` while it is served —
/// in every log line written meanwhile (``AppHost/requestMetadata``), in every bus request it makes
/// (across NATS too), in its problem document's `requestId` — and the response's `X-Request-Id`.
struct RequestTraceMiddleware: RouterMiddleware {
    typealias Context = QuireContext

    func handle(_ request: Request, context: QuireContext,
                next: (Request, QuireContext) async throws -> Response) async throws -> Response {
        let id = context.id
        var response = try await RequestTrace.$arrival.withValue(.now) {
            try await RequestTrace.$id.withValue(id) { try await next(request, context) }
        }
        if let name = Self.header { response.headers[name] = id }
        return response
    }

    static let header = HTTPField.Name("X-Request-Id")
}

extension AppHost {
    /// Log metadata for whatever request the logging task serves: pass it to the log handler
    /// (`LineLogHandler(label:metadataProvider:)`) and every line names `request`.
    public static let requestMetadata = Logger.MetadataProvider {
        RequestTrace.id.map { ["request": .string($0)] } ?? [:]
    }
}

/// Applies the configured body limit to every request's context.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = QuireContext
    let maxBodyBytes: Int

    func handle(_ request: Request, context: QuireContext,
                next: (Request, QuireContext) async throws -> Response) async throws -> Response {
        var context = context
        context.maxUploadSize = maxBodyBytes
        return try await next(request, context)
    }
}

/// Keeps a worker's service group up until it is told to stop (its plugins may have no service).
struct UntilShutdown: Service {
    func run() async throws {
        try await gracefulShutdown()
    }
}
