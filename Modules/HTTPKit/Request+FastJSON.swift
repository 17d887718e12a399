public import Hummingbird
public import NIOCore

extension Request {
    /// Decodes the JSON body as `T`, first through `fast`, a reader for the common shape of the
    /// body that answers nil for anything else; the body it cannot take goes through
    /// ``decodeJSON(_:context:)``, so a wrong body gets the same error as before, word for word.
    ///
    /// For hot routes (creating a note): Foundation's decoder and the unknown-member check each
    /// parse the body again, most of a small body's cost.
    public mutating func decodeJSON<T: Decodable>(_ type: T.Type, context: QuireContext,
                                                  fast: (ByteBuffer) -> T?) async throws -> T {
        if headers[.contentType].map({ $0.lowercased().hasPrefix("application/json") }) ?? true {
            let buffer: ByteBuffer
            do {
                buffer = try await collectBody(upTo: context.maxUploadSize)
            } catch is NIOTooManyBytesError {
                throw Problem(status: .contentTooLarge, code: "too_large",
                              detail: "The request body is over \(context.maxUploadSize) bytes.")
            }
            if let value = fast(buffer) { return value }
        }
        // The collected body stays the request's body: read again, from memory.
        return try await decodeJSON(type, context: context)
    }
}
