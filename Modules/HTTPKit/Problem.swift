import Bus
public import Hummingbird
public import HTTPTypes
import NIOCore
import Foundation

/// An RFC 9457 problem document: what every Quire error looks like on the wire.
///
/// ```json
/// {"type":"urn:quire:problem:not_found","title":"Not Found","status":404,
///  "code":"not_found","detail":"No note with id 'n_1' exists."}
/// ```
/// `type` and `code` are stable; clients switch on them. `detail` is a sentence for people.
public struct Problem: HTTPResponseError, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var code: String
    public var detail: String
    /// Small structured facts, e.g. `field`, with camelCase names; numbers are numbers.
    public var extra: [String: ProblemValue]
    public var headers: HTTPFields

    public init(status: HTTPResponse.Status, code: String, detail: String,
                extra: [String: ProblemValue] = [:], headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra
        self.headers = headers
    }

    /// The stable `type` URI for a code.
    public static func type(for code: String) -> String { "urn:quire:problem:\(code)" }

    public static let mediaType = "application/problem+json"

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body: [String: JSONScalar] = [
            "type": .string(Self.type(for: code)),
            "title": .string(status.reasonPhrase),
            "status": .int(status.code),
            "code": .string(code),
            "detail": .string(detail),
        ]
        // The request's id, which every log line about it names too (RequestTrace).
        if let id = RequestTrace.id { body["requestId"] = .string(id) }
        for (key, value) in extra where body[key] == nil {
            switch value {
            case .string(let text): body[key] = .string(text)
            case .int(let number): body[key] = .int(number)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(body)) ?? Data("{\"code\":\"internal\"}".utf8)
        var headers = self.headers
        headers[.contentType] = Self.mediaType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A value in a problem's extra members: a string or a number.
public enum ProblemValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, CustomStringConvertible {
    case string(String)
    case int(Int)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }

    public var description: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        }
    }
}

/// A JSON scalar, for the few hand-built documents.
enum JSONScalar: Encodable {
    case string(String)
    case int(Int)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        }
    }
}

extension Problem {
    /// The HTTP form of an error that crossed the bus.
    public init(_ error: BusError) {
        var headers: HTTPFields = [:]
        if let retryAfter = error.details["retryAfter"] { headers[.retryAfter] = retryAfter }
        if error.code == .unauthenticated { headers[.wwwAuthenticate] = "Bearer" }
        var extra: [String: ProblemValue] = [:]
        for (key, value) in error.details {
            // Details cross the bus as strings; the ones that are counts go out as numbers.
            if Self.numericDetails.contains(key), let number = Int(value) { extra[key] = .int(number) } else { extra[key] = .string(value) }
        }
        self.init(status: Self.status(for: error.code), code: error.code.rawValue, detail: error.message, extra: extra, headers: headers)
    }

    /// Bus error details that are numbers on the wire.
    static let numericDetails: Set<String> = ["retryAfter", "version", "maxBytes", "pages", "items"]

    static func status(for code: BusError.Code) -> HTTPResponse.Status {
        switch code {
        case .invalid: .unprocessableContent
        case .notFound: .notFound
        case .conflict: .conflict
        case .gone: .gone
        case .preconditionFailed: .preconditionFailed
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .rateLimited: .tooManyRequests
        case .tooLarge: .contentTooLarge
        case .unsupportedMedia: .unsupportedMediaType
        case .deadlineExceeded: .gatewayTimeout
        case .unavailable, .noHandler, .cancelled: .serviceUnavailable
        default: .internalServerError
        }
    }

    /// 400: the body is not what the route takes.
    public static func badRequest(_ detail: String, field: String? = nil) -> Problem {
        Problem(status: .badRequest, code: "bad_request", detail: detail, extra: field.map { ["field": .string($0)] } ?? [:])
    }

    /// 422: well-formed, but a value breaks a rule.
    public static func invalid(_ detail: String, field: String? = nil) -> Problem {
        Problem(status: .unprocessableContent, code: "invalid", detail: detail, extra: field.map { ["field": .string($0)] } ?? [:])
    }

    /// 404 for anything that does not exist *or is not the caller's*: never reveal which.
    public static func notFound(_ detail: String) -> Problem {
        Problem(status: .notFound, code: "not_found", detail: detail)
    }

    /// 401 with a `WWW-Authenticate` challenge.
    public static func unauthenticated(_ detail: String) -> Problem {
        Problem(status: .unauthorized, code: "unauthenticated", detail: detail, headers: [.wwwAuthenticate: "Bearer"])
    }
}
