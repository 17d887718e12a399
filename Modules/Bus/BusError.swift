/// An error that can cross the bus — and a network hop — as a plain value.
///
/// `code` is stable and machine-readable (clients and HTTP mapping switch on it), `message` is a
/// sentence a person can act on, and `details` carries small structured facts (the field that was
/// wrong, the id that was not found).
public struct BusError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String
    public var details: [String: String]

    public init(_ code: Code, _ message: String, details: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Stable error codes. New codes may be added; existing ones never change meaning.
    public struct Code: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }

        /// The input was malformed or broke a rule; `details["field"]` names what, when known.
        public static let invalid: Code = "invalid"
        /// The thing asked for does not exist — or is not the caller's to see.
        public static let notFound: Code = "not_found"
        /// The thing existed and is gone for good (an undo asked for after its window).
        public static let gone: Code = "gone"
        /// The write conflicts with the current state (duplicate key, stale version).
        public static let conflict: Code = "conflict"
        /// A precondition the caller stated (such as an expected version) does not hold.
        public static let preconditionFailed: Code = "precondition_failed"
        /// No valid credentials.
        public static let unauthenticated: Code = "unauthenticated"
        /// Valid credentials, but not allowed.
        public static let forbidden: Code = "forbidden"
        /// Too many attempts; `details["retryAfter"]` says when to try again (seconds).
        public static let rateLimited: Code = "rate_limited"
        /// A limit (size, count, quota) was exceeded.
        public static let tooLarge: Code = "too_large"
        /// The bytes are not of a media type the receiver reads (an upload that is not an image).
        public static let unsupportedMedia: Code = "unsupported_media_type"
        /// No handler is registered for the request's name.
        public static let noHandler: Code = "no_handler"
        /// A second handler tried to register for a name that already has one.
        public static let duplicateHandler: Code = "duplicate_handler"
        /// The reply did not arrive before the request's deadline.
        public static let deadlineExceeded: Code = "deadline_exceeded"
        /// The request was cancelled by its caller.
        public static let cancelled: Code = "cancelled"
        /// A dependency (database, disk) is not available right now; retrying may succeed.
        public static let unavailable: Code = "unavailable"
        /// A bug or an unexpected failure; the message says no more than is safe to tell.
        public static let `internal`: Code = "internal"
    }
}

extension BusError {
    public static func invalid(_ message: String, field: String? = nil) -> BusError {
        BusError(.invalid, message, details: field.map { ["field": $0] } ?? [:])
    }

    public static func notFound(_ message: String) -> BusError {
        BusError(.notFound, message)
    }

    public static func conflict(_ message: String) -> BusError {
        BusError(.conflict, message)
    }
}
