public import Hummingbird
public import HummingbirdWebSocket
public import HTTPTypes

/// Who may call a route.
public enum RouteAccess: String, Sendable, Codable {
    /// A valid access token is required; the handler gets the caller's ``Identity``. The default.
    case signedIn = "signed-in"
    /// Anyone may call it (sign-up, sign-in, health). Must be chosen explicitly.
    case `public`
    /// Only a signed-in operator: to everyone else the route does not exist (404, as an unknown path;
    /// not in the manifest, no 405). Added with ``PluginRoutes/addOperator(_:_:query:summary:isOperator:_:)``.
    case `operator`
}

/// One route as the host mounted it; the OpenAPI test and the manifest read these.
public struct RouteDescription: Sendable, Hashable, Codable {
    public var method: String
    /// The full path, with `{parameter}` placeholders, e.g. `/api/v1/notes/{id}`.
    public var path: String
    public var access: RouteAccess
    public var summary: String
    /// The query parameters the route takes; any other is refused with 400.
    public var query: [String] = []
}

/// A route handler for signed-in callers.
public typealias SignedInHandler = @Sendable (Request, QuireContext, Identity) async throws -> Response
/// A route handler for anyone.
public typealias PublicHandler = @Sendable (Request, QuireContext) async throws -> Response

/// The routes one plugin contributes, under `/api/v1/<plugin id>`.
///
/// Every route needs a signed-in caller unless it is added with ``addPublic(_:_:summary:_:)``:
/// security is the default, openness the exception.
public final class PluginRoutes {
    private let group: RouterGroup<QuireContext>
    private let prefix: String
    private let authenticator: (any RequestAuthenticator)?
    private let gate: (any RequestGate)?
    private var described: [RouteDescription] = []
    private var live: [LiveEndpoint] = []

    public init(group: RouterGroup<QuireContext>, prefix: String, authenticator: (any RequestAuthenticator)?, gate: (any RequestGate)? = nil) {
        self.group = group
        self.prefix = prefix
        self.authenticator = authenticator
        self.gate = gate
    }

    /// The routes added so far.
    public var descriptions: [RouteDescription] { described }
    /// The WebSocket endpoints added so far.
    public var liveEndpoints: [LiveEndpoint] { live }

    /// Adds a WebSocket endpoint at `path`. The upgrade itself is open — browsers cannot send an
    /// `Authorization` header with one — so the handler must authenticate the caller in-band before
    /// it sends anything. A plain `GET` there (no upgrade) answers 426.
    public func addLive(_ path: String, summary: String, _ handler: @escaping LiveHandler) {
        record(.get, path, .signedIn, summary, [])
        live.append(LiveEndpoint(path: fullPath(path), handler: handler))
        group.on(RouterPath(path), method: .get) { (request, _) async throws -> Response in
            try Self.checkQuery(request, allowed: [])
            throw Problem(status: .upgradeRequired, code: "upgrade_required",
                          detail: "This is a WebSocket endpoint: open it with 'Connection: Upgrade' and 'Upgrade: websocket'.",
                          headers: [.upgrade: "websocket", .connection: "Upgrade"])
        }
    }

    /// Adds a route that needs a signed-in caller. `query` names the query parameters it takes: any
    /// other is refused with 400 before the handler runs (`GET /notes?q=milk` must not list
    /// everything as if `q` were a search).
    public func add(_ method: HTTPRequest.Method, _ path: String, query: Set<String> = [], summary: String,
                    _ handler: @escaping SignedInHandler) throws(RouteSetupError) {
        guard let authenticator else {
            throw RouteSetupError(
                "\(method) \(fullPath(path)) needs a signed-in user, but no plugin authenticates requests; "
                    + "enable the 'auth' plugin in the app's config")
        }
        record(method, path, .signedIn, summary, query)
        let gate = self.gate
        group.on(RouterPath(path), method: method) { request, context in
            try Self.checkQuery(request, allowed: query)
            var context = context
            var request = request
            let identity = try await Self.authenticate(request, with: authenticator)
            try await gate?.admit(&request, identity: identity)
            context.identity = identity
            return try await handler(request, context, identity)
        }
    }

    /// Adds a route only operators may call. Whoever else asks — without a token, with an invalid one,
    /// or signed in as someone `isOperator` says no to — gets the router's own 404, before the query
    /// is even looked at: the route does not exist for them.
    public func addOperator(_ method: HTTPRequest.Method, _ path: String, query: Set<String> = [], summary: String,
                            isOperator: @escaping @Sendable (Identity) async -> Bool,
                            _ handler: @escaping SignedInHandler) throws(RouteSetupError) {
        guard let authenticator else {
            throw RouteSetupError("\(method) \(fullPath(path)) is for operators, but no plugin authenticates requests; "
                                  + "enable the 'auth' plugin in the app's config")
        }
        record(method, path, .operator, summary, query)
        group.on(RouterPath(path), method: method) { request, context in
            guard let identity = try? await Self.authenticate(request, with: authenticator), await isOperator(identity) else {
                throw HTTPError(.notFound)
            }
            try Self.checkQuery(request, allowed: query)
            var context = context
            context.identity = identity
            return try await handler(request, context, identity)
        }
    }

    /// Adds a route anyone may call; `query` as for ``add(_:_:query:summary:_:)``.
    public func addPublic(_ method: HTTPRequest.Method, _ path: String, query: Set<String> = [], summary: String,
                          _ handler: @escaping PublicHandler) {
        record(method, path, .public, summary, query)
        group.on(RouterPath(path), method: method) { request, context in
            try Self.checkQuery(request, allowed: query)
            return try await handler(request, context)
        }
    }

    private func record(_ method: HTTPRequest.Method, _ path: String, _ access: RouteAccess, _ summary: String, _ query: Set<String>) {
        let description = RouteDescription(method: method.rawValue, path: fullPath(path), access: access, summary: summary,
                                           query: query.sorted())
        described.append(description)
    }

    /// 400 naming every query parameter the route does not take.
    static func checkQuery(_ request: Request, allowed: Set<String>) throws {
        var unknown: [String] = []
        for (name, _) in request.uri.queryParameters where !allowed.contains(String(name)) && !unknown.contains(String(name)) {
            unknown.append(String(name))
        }
        guard let first = unknown.first else { return }
        let takes = allowed.isEmpty ? "it takes none" : "it takes \(allowed.sorted().map { "'\($0)'" }.joined(separator: ", "))"
        throw Problem.badRequest("This route does not take the query parameter\(unknown.count == 1 ? "" : "s") "
                                 + "\(unknown.prefix(5).map { "'\($0.prefix(40))'" }.joined(separator: ", ")); \(takes).",
                                 field: String(first.prefix(40)))
    }

    private func fullPath(_ path: String) -> String {
        path.isEmpty ? prefix : "\(prefix)/\(path)"
    }

    static func authenticate(_ request: Request, with authenticator: any RequestAuthenticator) async throws -> Identity {
        guard let header = request.headers[.authorization] else {
            throw Problem.unauthenticated("Sign in first: send 'Authorization: Bearer <access token>'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw Problem.unauthenticated("The Authorization header must be 'Bearer <access token>'.")
        }
        return try await authenticator.authenticate(bearerToken: String(parts[1]))
    }
}

/// What a WebSocket endpoint runs once the connection is upgraded.
public typealias LiveHandler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

/// A WebSocket endpoint, by its full path.
public struct LiveEndpoint: Sendable {
    public var path: String
    public var handler: LiveHandler
}

/// A plugin's routes could not be mounted.
public struct RouteSetupError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
