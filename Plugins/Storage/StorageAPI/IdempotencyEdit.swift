import Crypto
import Foundation

extension IdempotencyClaim {
    /// The claim of an edit of one record sent with an `Idempotency-Key` (`nil` without a key).
    ///
    /// The same edit sent again (a phone's outbox after a reload cut the first answer off) is
    /// answered with the record as it is now, not merged again on its old If-Match over what another
    /// device wrote since; the key reused for another edit is refused (409). Notes, words, AR items
    /// and photos all claim their edits this one way: the scope is `<collection>.edit`, and the
    /// fingerprint a SHA-256 of the record's id, the version the edit was based on and the edit's
    /// parts, joined by `|`.
    ///
    /// `parts` are read only when there is a key: an edit without one (most of them) spent 7 % of
    /// its CPU describing and hashing them for nothing (issue 42's edit profile).
    public static func edit(owner: String, collection: String, key: String?, id: String, basedOn version: Int64?,
                            _ parts: @autoclosure () -> [String]) -> IdempotencyClaim? {
        guard let key else { return nil }
        let request = ([id, version.map(String.init) ?? "-"] + parts()).joined(separator: "|")
        return IdempotencyClaim(owner: owner, scope: "\(collection).edit", key: key, fingerprint: sha256Hex(Data(request.utf8)))
    }

    /// The SHA-256 of `bytes` in lowercase hex (what `String(format: "%02x")` a byte at a time made, without Foundation's formatter).
    public static func sha256Hex(_ bytes: some DataProtocol) -> String {
        hex(SHA256.hash(data: bytes))
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(SHA256.byteCount * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
