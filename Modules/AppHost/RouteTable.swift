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

    /// The methods the route that answers `path` takes, sorted; empty when no route has that shape.
    /// As the router does, a fixed segment wins over a parameter: `/notes/imports` is the imports'
    /// route, not `/notes/{id}`, even for a method only `/notes/{id}` takes.
    func methods(at path: String) -> [String] {
        let segments = path.split(separator: "/")
        return routes.withLock { routes in
            let matching = routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { pattern, segment in pattern.hasPrefix("{") || pattern == segment }
            }
            // Fixed (1) before parameter (0), segment by segment from the left: the most specific shape wins.
            func specificity(_ pattern: [Substring]) -> [Int] { pattern.map { $0.hasPrefix("{") ? 0 : 1 } }
            guard let best = matching.map({ specificity($0.segments) }).max(by: { $0.lexicographicallyPrecedes($1) }) else { return [] }
            return Set(matching.filter { specificity($0.segments) == best }.map(\.method)).sorted()
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
