import Bus
import Crypto
import Foundation

/// A stored blob: content-addressed by the SHA-256 of its bytes.
public struct BlobRef: Codable, Sendable, Hashable {
    /// Lowercase hex SHA-256 of the content.
    public var sha256: String
    public var size: Int

    public init(sha256: String, size: Int) {
        self.sha256 = sha256
        self.size = size
    }

    /// The reference the given bytes would be stored under.
    public static func of(_ bytes: Data) -> BlobRef {
        BlobRef(sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(), size: bytes.count)
    }

    /// Whether `text` looks like a lowercase hex SHA-256.
    public static func isValidHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// Bytes a bus message carries: in the message when they are small, else as a reference to a blob
/// the sender put, so that no message outgrows a network bus (NATS takes 1 MB by default) and an
/// upload of any size can go to a worker on another machine. Both sides reach the same blobs:
/// every node, worker or not, has the same storage behind it.
///
/// On the wire: `{"data": "<base64>", "size": N}` or `{"blob": "<sha256>", "size": N}`.
public struct BlobPayload: Codable, Sendable, Equatable {
    /// Larger bytes travel by reference (a quarter of NATS' default limit, base64 included).
    public static let inlineLimit = 256 * 1024

    public var data: Data?
    public var blob: String?
    public var size: Int

    /// Bytes that go in the message whatever their size: for what is small by its nature.
    public static func inline(_ bytes: Data) -> BlobPayload {
        BlobPayload(data: bytes, blob: nil, size: bytes.count)
    }

    /// A blob already stored: nothing is put again.
    public static func stored(_ ref: BlobRef) -> BlobPayload {
        BlobPayload(data: nil, blob: ref.sha256, size: ref.size)
    }

    /// `bytes` inline when small, else put as a blob (idempotent: a blob is named by its content)
    /// and referred to. A blob put only to carry bytes and held by no record is collected after
    /// the storage's grace period.
    public static func wrap(_ bytes: Data, in blobs: any BlobStore) async throws(StorageError) -> BlobPayload {
        if bytes.count <= inlineLimit { return .inline(bytes) }
        return .stored(try await blobs.put(bytes))
    }

    /// Lets go of the blob the bytes came in, if they came by reference: storage deletes it unless a
    /// record holds it (see ``ReleaseBlobs``). For what was put only to be carried: a refused
    /// upload, a camera frame, a drawing's document before it is saved in its own form.
    public func release(on bus: any MessageBus) async {
        guard let blob else { return }
        _ = try? await bus.request(ReleaseBlobs([blob]))
    }

    /// The bytes, read from `blobs` when they came by reference.
    public func bytes(from blobs: any BlobStore) async throws(StorageError) -> Data {
        if let data { return data }
        guard let blob, BlobRef.isValidHash(blob) else {
            throw StorageError(.invalid, "A message's bytes name no blob; send them inline or as a stored blob's SHA-256.")
        }
        return try await blobs.get(blob)
    }
}
