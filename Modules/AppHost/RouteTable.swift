import HTTPKit
import Hummingbird
import Synchronization

/// Every route the host mounted, matched by shape: a request for a real path with a method it does
/// not take answers 405 with `Allow`, instead of the router's 404.
final class RouteTable: Sendable {
    private let routes = Mutex<[(method: String, segments: [Substring])]>([])

    func fill(_ descriptions: [RouteDescription]) {
        routes.withLock { $0 = descriptions.map { ($0.method, $0.path.split(separator: "/")) } }
    }

    /// The methods some route takes at `path`, sorted; empty when no route has that shape.
    func methods(at path: String) -> [String] {
        let segments = path.split(separator: "/")
        return routes.withLock { routes in
            Set(routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { pattern, segment in pattern.hasPrefix("{") || pattern == segment }
            }.map(\.method)).sorted()
        }
    }
}

/// Turns the router's "no such route" into 405 with `Allow` when the path exists for other methods.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = QuireContext
    let table: RouteTable

    func handle(_ request: Request, context: QuireContext,
                next: (Request, QuireContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            var allowed = table.methods(at: request.uri.path)
            guard !allowed.isEmpty else { throw error }
            if allowed.contains("GET"), !allowed.contains("HEAD") { allowed = (allowed + ["HEAD"]).sorted() }
            throw Problem(status: .methodNotAllowed, code: "method_not_allowed",
                          detail: "\(request.method.rawValue) is not allowed on \(request.uri.path); it takes \(allowed.joined(separator: ", ")).",
                          headers: [.allow: allowed.joined(separator: ", ")])
        }
    }
}
