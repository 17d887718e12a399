import Bus
public import Hummingbird
import HTTPTypes
import NIOCore
import NIOHTTP1
import Logging

/// Turns every error a route throws into a problem document, so that a client never sees an HTML
/// page, an empty body or a stack trace. Unexpected errors are logged with the request id and
/// answered with a 500 that says no more.
public struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = Self.problem(for: error, logger: context.logger)
            return try problem.response(from: request, context: context)
        }
    }

    static func problem(for error: any Error, logger: Logger) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as BusError:
            let status = Problem.status(for: error.code)
            guard status.code >= 500 else { return Problem(error) }
            logger.error("Request failed", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
            // An unavailable or timed-out dependency says so in a sentence written for clients;
            // anything else is internal, and its text stays in the log.
            if status == .serviceUnavailable || status == .gatewayTimeout, error.code != .noHandler { return Problem(error) }
            return internalProblem(logger)
        case let error as HTTPParserError:
            // The connection's parse-error handler has already answered; this keeps router-level
            // callers (tests) from seeing a 500.
            return Problem.badRequest(String(decoding: ParseErrorProblemHandler.problemBody(for: error), as: UTF8.self))
        case let error as any HTTPResponseError:
            let code: String = switch error.status {
            case .notFound: "route_not_found"
            case .methodNotAllowed: "method_not_allowed"
            case .contentTooLarge: "too_large"
            case .badRequest: "bad_request"
            default: "http_\(error.status.code)"
            }
            let detail: String = switch error.status {
            case .notFound: "There is no such route. The API lives under /api/v1; GET /api/v1/manifest lists what this app offers."
            case .contentTooLarge: "The request body is larger than this server accepts."
            default: (error as? HTTPError)?.body ?? error.status.reasonPhrase
            }
            return Problem(status: error.status, code: code, detail: detail)
        default:
            logger.error("Unexpected error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return internalProblem(logger)
        }
    }

    /// A 500 that names the request id (the log line has the details) and nothing else.
    static func internalProblem(_ logger: Logger) -> Problem {
        let requestID = logger[metadataKey: "hb.request.id"].map { "\($0)" }
        let reference = requestID.map { " Quote request id \($0) if it keeps happening." } ?? ""
        return Problem(status: .internalServerError, code: "internal",
                       detail: "Something went wrong on the server. It has been logged; try again later.\(reference)",
                       extra: requestID.map { ["requestId": .string($0)] } ?? [:])
    }
}
