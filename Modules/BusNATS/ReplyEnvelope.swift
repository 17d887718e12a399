public import Bus
import Foundation
public import NIOCore

/// A reply on the wire: `{"reply":…}` (`null` too, for an optional reply) or `{"error":…}`, the
/// payload written by the bus's ``BusPayloadCodec``.
///
/// Written by hand around the payload's bytes, not as a `Codable` enum through the coder: the bytes
/// are the ones Foundation wrote for that enum (so a node of the version before reads them, and this
/// one reads theirs), and the coder codes the payload alone. A reply that does not begin with
/// either member, or whose middle does not read as one value (spaces, another member after it), is
/// read whole by Foundation's decoder, as before.
public enum ReplyEnvelope {
    private static let replyOpen = Array(#"{"reply":"#.utf8)
    private static let errorOpen = Array(#"{"error":"#.utf8)
    private static let close = UInt8(ascii: "}")

    public static func reply(_ payload: [UInt8]) -> ByteBuffer { wrap(payload, in: replyOpen) }
    public static func failure(_ payload: [UInt8]) -> ByteBuffer { wrap(payload, in: errorOpen) }

    private static func wrap(_ payload: [UInt8], in open: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(open.count + payload.count + 1)
        buffer.writeBytes(open)
        buffer.writeBytes(payload)
        buffer.writeInteger(close)
        return buffer
    }

    /// The reply, or the error the handler answered, read from `bytes`.
    public static func read<Reply: Decodable>(_ type: Reply.Type, from bytes: ByteBuffer, codec: any BusPayloadCodec) throws -> Result<Reply, BusError> {
        let fast = bytes.withUnsafeReadableBytes { view -> Result<Reply, BusError>? in
            guard view.count > replyOpen.count, view[view.count - 1] == close else { return nil }
            let middle = UnsafeRawBufferPointer(rebasing: view[replyOpen.count..<(view.count - 1)])
            if view.starts(with: replyOpen), let reply = try? codec.decode(Reply.self, from: middle) {
                return .success(reply)
            }
            if view.starts(with: errorOpen), let error = try? codec.decode(BusError.self, from: middle) {
                return .failure(error)
            }
            return nil
        }
        if let fast { return fast }
        return try JSONDecoder().decode(Whole<Reply>.self, from: Data(bytes.readableBytesView)).result
    }

    /// The reply; the error the handler answered is thrown (a ``BusError``), as is any other error
    /// when the bytes do not read. The same as ``read(_:from:codec:)`` without a `Result` (whose
    /// metadata a generic caller looks up at run time, per request).
    public static func value<Reply: Decodable>(_ type: Reply.Type, from bytes: ByteBuffer, codec: any BusPayloadCodec) throws -> Reply {
        var failure: BusError?
        let fast = bytes.withUnsafeReadableBytes { view -> Reply? in
            guard view.count > replyOpen.count, view[view.count - 1] == close else { return nil }
            let middle = UnsafeRawBufferPointer(rebasing: view[replyOpen.count..<(view.count - 1)])
            if view.starts(with: replyOpen) { return try? codec.decode(Reply.self, from: middle) }
            if view.starts(with: errorOpen) { failure = try? codec.decode(BusError.self, from: middle) }
            return nil
        }
        if let fast { return fast }
        if let failure { throw failure }
        return try JSONDecoder().decode(Whole<Reply>.self, from: Data(bytes.readableBytesView)).result.get()
    }

    /// The envelope read as JSON, whatever its spacing and members: `error` wins over `reply`.
    private struct Whole<Reply: Decodable>: Decodable {
        var result: Result<Reply, BusError>

        enum Keys: String, CodingKey { case reply, error }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            if container.contains(.error) {
                result = .failure(try container.decode(BusError.self, forKey: .error))
            } else {
                result = .success(try container.decode(Reply.self, forKey: .reply))
            }
        }
    }
}
