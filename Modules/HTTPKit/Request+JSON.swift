public import Hummingbird
public import HTTPTypes
import NIOCore
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Request {
    /// Decodes the JSON body as `T`, with errors a client can act on: 413 when the body is over the
    /// context's limit, 400 naming the field when it does not fit `T`.
    public mutating func decodeJSON<T: Decodable>(_ type: T.Type, context: QuireContext) async throws -> T {
        if let contentType = headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw Problem(status: .unsupportedMediaType, code: "unsupported_media_type",
                          detail: "Send the body as application/json (got \(contentType)).")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await collectBody(upTo: context.maxUploadSize)
        } catch let error as NIOTooManyBytesError {
            _ = error
            throw Problem(status: .contentTooLarge, code: "too_large",
                          detail: "The request body is over \(context.maxUploadSize) bytes.")
        }
        guard buffer.readableBytes > 0 else {
            throw Problem.badRequest("The request needs a JSON body.")
        }
        let data = Data(buffer.readableBytesView)
        let value: T
        do {
            value = try JSONDecoder.quire.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw Problem.badRequest(error.quireDescription.detail, field: error.quireDescription.field)
        }
        // A misspelt member is an error, never silently ignored: where its absence means "empty"
        // (a drawing's strokes), ignoring it would erase saved work.
        let unknown = UnknownMembers.find(in: data, as: T.self)
        if let first = unknown.first {
            let named = unknown.prefix(5).map { "'\($0.prefix(60))'" }.joined(separator: ", ")
            throw Problem.badRequest(
                "The body has \(unknown.count == 1 ? "a member" : "members") this route does not take: \(named)"
                    + "\(unknown.count > 5 ? " and \(unknown.count - 5) more" : ""). Check the spelling against the API reference.",
                field: String(first.prefix(60)))
        }
        return value
    }

    /// Decodes the JSON body as `T` when there is one; nil for a request sent without a body (an
    /// action whose options are all optional).
    public mutating func decodeOptionalJSON<T: Decodable>(_ type: T.Type, context: QuireContext) async throws -> T? {
        if headers[.contentLength] == "0" || (headers[.contentLength] == nil && headers[.contentType] == nil) { return nil }
        return try await decodeJSON(type, context: context)
    }

    /// The `?limit=` of a list or search: `pageSize` when absent, 400 when it is not a whole number
    /// from 1 to `max`.
    public func limit(default pageSize: Int, max: Int) throws -> Int {
        guard let raw = uri.queryParameters["limit"] else { return pageSize }
        guard let limit = Int(raw), (1...Swift.max(1, max)).contains(limit) else {
            throw Problem.badRequest("'limit' must be a whole number from 1 to \(max).", field: "limit")
        }
        return limit
    }

    /// A query parameter as a string; nil when absent, 400 when `required` and absent.
    public func query(_ name: String, required: Bool = false) throws -> String? {
        guard let raw = uri.queryParameters[Substring(name)] else {
            if required { throw Problem.badRequest("The query needs '\(name)'.", field: name) }
            return nil
        }
        return String(raw)
    }

    /// A query parameter as a finite number; nil when absent, 400 when it is not a number (or is
    /// absent and `required`).
    public func queryNumber(_ name: String, required: Bool = false) throws -> Double? {
        guard let raw = try query(name, required: required) else { return nil }
        guard Self.isDecimal(raw), let value = Double(raw), value.isFinite else {
            throw Problem.badRequest("'\(name)' must be a number, not '\(raw.prefix(40))'.", field: name)
        }
        return value
    }

    /// A query parameter as a whole number in `range`; nil when absent, 400 naming the range when it
    /// is not a whole number (`1e19`, `2.5`, `abc`) or falls outside it. Never traps, whatever is sent.
    public func queryInteger(_ name: String, in range: ClosedRange<Int>, required: Bool = false) throws -> Int? {
        guard let raw = try query(name, required: required) else { return nil }
        let problem = Problem.badRequest("'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), "
                                         + "not '\(raw.prefix(40))'.", field: name)
        guard Self.isDecimal(raw) else { throw problem }
        if let value = Int(raw) {
            guard range.contains(value) else { throw problem }
            return value
        }
        // "7.0" and "1e1" are whole numbers written another way; anything else is refused.
        guard let number = Double(raw), number.isFinite, number.rounded() == number,
              number >= Double(range.lowerBound), number <= Double(range.upperBound),
              let value = Int(exactly: number) else { throw problem }
        return value
    }

    /// Digits, sign, point and exponent only: Swift's number parsers also read hexadecimal
    /// ("0x10") and "nan", and a client means none of those.
    static func isDecimal(_ raw: String) -> Bool {
        !raw.isEmpty && raw.utf8.count <= 400 && raw.utf8.allSatisfy {
            (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2B || $0 == 0x2E || $0 == 0x65 || $0 == 0x45
        }
    }

    /// The `Idempotency-Key` header, when present and well-formed (1–255 visible ASCII characters).
    public func idempotencyKey() throws -> String? {
        guard let key = headers[HTTPField.Name.idempotencyKey] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem.badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.",
                                     field: "Idempotency-Key")
        }
        return key
    }

    /// The version in an `If-Match: "N"` header, when present.
    public func ifMatchVersion() throws -> Int64? {
        guard let value = headers[.ifMatch] else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return nil }
        let unquoted = trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
        guard unquoted.count >= 3, unquoted.hasPrefix("\""), unquoted.hasSuffix("\""),
              let version = Int64(unquoted.dropFirst().dropLast()) else {
            throw Problem.badRequest("If-Match must be an ETag this API returned, such as \"3\".", field: "If-Match")
        }
        return version
    }
}

extension HTTPField.Name {
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!  // a valid constant token
    public static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}

extension DecodingError {
    /// A sentence naming the field at fault, for 400 responses.
    var quireDescription: (detail: String, field: String?) {
        func path(_ codingPath: [any CodingKey]) -> String? {
            let parts = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return parts.isEmpty ? nil : parts.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch self {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return ("'\(field ?? key.stringValue)' is required.", field)
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            return ("'\(field ?? "body")' must be \(Self.describe(type)).", field)
        case .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return ("'\(field ?? "body")' must be \(Self.describe(type)), not null.", field)
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if let field { return ("'\(field)' is not valid: \(context.debugDescription)", field) }
            return ("The body is not valid JSON.", nil)
        @unknown default:
            return ("The body does not match what this route takes.", nil)
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "a list"
        default: "an object of the documented shape"
        }
    }
}

extension JSONDecoder {
    /// The decoder for request bodies: ISO 8601 dates.
    public static var quire: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension JSONEncoder {
    /// The encoder for responses: ISO 8601 dates, stable key order.
    public static var quire: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension Response {
    /// A JSON response. A ``VersionedRepresentation`` gets its version as the `ETag`, so every read
    /// of a versioned record can be edited with `If-Match`.
    public static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok,
                                          headers: HTTPFields = [:]) throws -> Response {
        let data = try JSONEncoder.quire.encode(value)
        var headers = headers
        if let versioned = value as? any VersionedRepresentation, headers[.eTag] == nil {
            headers[.eTag] = "\"\(versioned.version)\""
        }
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// 204 No Content.
    public static var noContent: Response { Response(status: .noContent) }

    /// Bytes of a private resource (an image, a rendering) with their type. A content hash as `tag`
    /// becomes the ETag, and a matching If-None-Match is answered 304 without the bytes.
    public static func bytes(_ data: Data, type: String, tag: String?, request: Request) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "private, no-cache"]
        if type == "image/svg+xml" { headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'" }
        headers[.xContentTypeOptions] = "nosniff"
        if let tag {
            let etag = "\"\(tag)\""
            headers[.eTag] = etag
            if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Request {
    /// The raw body of an upload (an image's bytes), refused with 413 before it is read when its
    /// declared length is over `limit`, and as soon as it passes `limit` otherwise.
    public mutating func collectUpload(limit: Int, what: String) async throws -> Data {
        try checkUpload(limit: limit, what: what)
        let buffer: ByteBuffer
        do {
            buffer = try await collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw Self.tooLarge(what, limit: limit, declared: nil)
        }
        guard buffer.readableBytes > 0 else { throw Problem.badRequest("The request body is empty; send \(what) as the body.") }
        return Data(buffer.readableBytesView)
    }

    /// The raw body of an upload too large to hold (an import file), handed to `consume` piece by
    /// piece as it arrives, under the same checks as ``collectUpload(limit:what:)``.
    /// - Returns: the number of bytes read.
    public func streamUpload(limit: Int, what: String, _ consume: (ByteBuffer) async throws -> Void) async throws -> Int {
        try checkUpload(limit: limit, what: what)
        var total = 0
        for try await buffer in body {
            total += buffer.readableBytes
            guard total <= limit else { throw Self.tooLarge(what, limit: limit, declared: nil) }
            try await consume(buffer)
        }
        guard total > 0 else { throw Problem.badRequest("The request body is empty; send \(what) as the body.") }
        return total
    }

    /// The raw body of an upload written to a new file in `directory` as it arrives, never held
    /// whole, under the same checks as ``collectUpload(limit:what:)``. `checkHead` sees the first
    /// bytes (up to `headBytes`, fewer only when the body is shorter) before anything more is read
    /// or written: an upload that is not what it claims is refused then. The file is removed when
    /// anything fails; on success it is the caller's.
    /// - Returns: the file and its size.
    public func spoolUpload(limit: Int, what: String, into directory: URL, headBytes: Int = 32,
                            checkHead: (Data) throws -> Void) async throws -> (file: URL, size: Int) {
        try checkUpload(limit: limit, what: what)
        let file = directory.appendingPathComponent("upload-\(UUID().uuidString)")
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw Problem(status: .serviceUnavailable, code: "unavailable",
                          detail: "The server cannot write uploads to its data directory now (\(reason)); try again later, or tell its operator.")
        }
        var closed = false
        do {
            var total = 0
            var head = Data()
            var headChecked = false
            for try await buffer in body {
                total += buffer.readableBytes
                guard total <= limit else { throw Self.tooLarge(what, limit: limit, declared: nil) }
                if !headChecked {
                    head.append(contentsOf: buffer.readableBytesView.prefix(headBytes - head.count))
                    if head.count >= headBytes {
                        try checkHead(head)
                        headChecked = true
                    }
                }
                try Self.write(buffer, to: descriptor)
            }
            guard total > 0 else { throw Problem.badRequest("The request body is empty; send \(what) as the body.") }
            if !headChecked { try checkHead(head) }
            closed = true
            guard close(descriptor) == 0 else {
                throw Problem(status: .serviceUnavailable, code: "unavailable",
                              detail: "The server could not finish writing the upload (\(String(cString: strerror(errno)))); try again later.")
            }
            return (file, total)
        } catch {
            if !closed { close(descriptor) }
            unlink(file.path)
            throw error
        }
    }

    private static func write(_ buffer: ByteBuffer, to descriptor: Int32) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Problem(status: .serviceUnavailable, code: "unavailable",
                                  detail: "The server could not write the upload (\(String(cString: strerror(errno)))); try again later, or tell its operator (is the disk full?).")
                }
                offset += written
            }
        }
    }

    private func checkUpload(limit: Int, what: String) throws {
        if let contentType = headers[.contentType]?.lowercased(),
           contentType.hasPrefix("multipart/") || contentType.hasPrefix("application/x-www-form-urlencoded") {
            throw Problem(status: .unsupportedMediaType, code: "unsupported_media_type",
                          detail: "Send \(what) as the request body itself (e.g. Content-Type: image/jpeg), not as a form.")
        }
        if let declared = headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw Self.tooLarge(what, limit: limit, declared: declared)
        }
    }

    private static func tooLarge(_ what: String, limit: Int, declared: Int?) -> Problem {
        let subject = what.prefix(1).uppercased() + what.dropFirst()
        // Sizes as a person reads them ("10 MB; this one is 22.6 MB"), then what to do.
        return Problem(status: .contentTooLarge, code: "too_large",
                       detail: "\(subject) is limited to \(readableSize(limit))" + (declared.map { "; this one is \(readableSize($0))" } ?? "")
                           + ". Choose a smaller one.")
    }

    /// "10 MB", "22.6 MB", "512 KB", "900 bytes" (binary multiples, as phones show file sizes).
    static func readableSize(_ bytes: Int) -> String {
        func rounded(_ value: Double) -> String {
            let tenths = (value * 10).rounded() / 10
            return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
        }
        if bytes >= 1 << 20 { return "\(rounded(Double(bytes) / Double(1 << 20))) MB" }
        if bytes >= 1 << 10 { return "\(rounded(Double(bytes) / Double(1 << 10))) KB" }
        return "\(bytes) bytes"
    }
}

/// What the API shows of a versioned record: its `version` is the record's, and the `ETag` of any
/// response that carries it.
public protocol VersionedRepresentation {
    var version: Int64 { get }
}
