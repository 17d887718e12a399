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
