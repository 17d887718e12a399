import Bus
import Foundation

/// A record's payload: a JSON object kept as its UTF-8 bytes.
///
/// Keeping the bytes (rather than a parsed tree) means a record goes from the database to a domain
/// type with one decode, and from a domain type to the database with one encode. Over a networked
/// transport it is written as a nested JSON object, not as a string.
public struct JSONDocument: Sendable, Hashable, Codable {
    /// The UTF-8 JSON text of an object.
    public let bytes: Data

    /// Wraps bytes already known to hold a JSON object (as read back from a store).
    public init(trustedBytes bytes: Data) {
        self.bytes = bytes
    }

    /// Encodes a value, which must encode as a JSON object.
    public init<T: Encodable>(encoding value: T) throws(StorageError) {
        do {
            bytes = try Self.encoder.encode(value)
        } catch {
            throw StorageError.invalid("The record could not be encoded as JSON: \(error)")
        }
        guard bytes.first == UInt8(ascii: "{") else {
            throw StorageError.invalid("A record's data must be a JSON object.")
        }
    }

    /// Parses `bytes`, checking that they hold a JSON object.
    public init(json bytes: Data) throws(StorageError) {
        guard case .object = try Self.parse(bytes) else {
            throw StorageError.invalid("A record's data must be a JSON object.")
        }
        self.bytes = bytes
    }

    /// Decodes the payload as a domain type.
    public func decode<T: Decodable>(_ type: T.Type) throws(StorageError) -> T {
        do {
            return try Self.decoder.decode(T.self, from: bytes)
        } catch {
            throw StorageError(.internal, "A stored record does not match \(T.self): \(error)")
        }
    }

    /// The payload as a tree, for filters and indexes.
    public func parsed() throws(StorageError) -> JSONValue {
        try Self.parse(bytes)
    }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        guard case .object = value else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected a JSON object"))
        }
        bytes = try Self.encoder.encode(value)
    }

    public func encode(to encoder: any Encoder) throws {
        try parsed().encode(to: encoder)
    }

    private static func parse(_ bytes: Data) throws(StorageError) -> JSONValue {
        try JSONParser.parse(bytes)
    }

    // JSONEncoder and JSONDecoder are thread-safe for encoding and decoding once configured.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
