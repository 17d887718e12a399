import Crypto
import CryptoExtras
public import Foundation

/// The server's keys in a backup (`keys.sealed`), sealed with a passphrase the operator keeps, so a
/// backup copied off-site does not give them away.
///
/// The file is three lines: `quire-sealed-keys 1`, a JSON header (`kdf: scrypt`, `n`, `r`, `p`, a
/// random `salt`, `aead: AES-256-GCM`, `check`), and the base64 of AES-GCM's combined box (nonce,
/// ciphertext, tag). scrypt (N 2^16, r 8, p 1: 64 MiB, a fraction of a second) turns the
/// passphrase and salt into 64 bytes: the first 32 are the AES key, the last 32 an HMAC key whose
/// HMAC-SHA256 of a fixed text is `check` (16 bytes), so a wrong passphrase is told apart from a
/// damaged file. The first two lines are the box's authenticated data: a header changed (weaker
/// parameters, another salt) is refused as a damaged file. The opened text is JSON: the keys.
public enum SealedKeys {
    /// One key file as it was sealed: the `name` of the setting that places it
    /// (``KeyFile/name``), the path below it for a folder (empty for a file), and its bytes.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var relative: String
        public var content: Data
        public init(name: String, relative: String, content: Data) {
            self.name = name
            self.relative = relative
            self.content = content
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The passphrase does not open it.
        case wrongPassphrase
        /// Not a sealed keys file, or changed since it was written.
        case damaged(String)

        public var description: String {
            switch self {
            case .wrongPassphrase: "the passphrase does not open the backup's keys"
            case .damaged(let why): "the backup's sealed keys are damaged (\(why))"
            }
        }
    }

    static let magic = "quire-sealed-keys 1"
    static let checkText = Data("quire sealed keys: passphrase check".utf8)
    /// scrypt's cost: N (rounds), r (block size), p (parallelism). Read back from the header, so
    /// they can be raised without making older backups unreadable.
    public struct Cost: Sendable, Equatable {
        public var n: Int, r: Int, p: Int
        public static let standard = Cost(n: 1 << 16, r: 8, p: 1)
        /// Bounds on what a header may ask for (a damaged or hostile one must not take the machine's memory).
        static let maxMemory = 1 << 30
    }

    /// Seals `entries` with `passphrase` into the file's bytes.
    public static func seal(_ entries: [Entry], passphrase: String, cost: Cost = .standard) throws -> Data {
        var salt = Data(count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &generator) }
        let (key, checkKey) = try derive(passphrase: passphrase, salt: salt, cost: cost)
        let check = Data(HMAC<SHA256>.authenticationCode(for: checkText, using: checkKey)).prefix(16)
        let header: [String: Any] = ["kdf": "scrypt", "n": cost.n, "r": cost.r, "p": cost.p, "salt": salt.base64EncodedString(),
                                     "aead": "AES-256-GCM", "check": check.base64EncodedString()]
        let headerLine = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        let authenticated = Data((magic + "\n").utf8) + headerLine + Data("\n".utf8)
        let body: [[String: String]] = entries.map { ["name": $0.name, "relative": $0.relative, "content": $0.content.base64EncodedString()] }
        let plaintext = try JSONSerialization.data(withJSONObject: ["keys": body], options: [.sortedKeys])
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: authenticated)
        guard let combined = box.combined else { throw Failure.damaged("AES-GCM gave no combined box") }
        return authenticated + Data(combined.base64EncodedString().utf8) + Data("\n".utf8)
    }

    /// Opens a sealed keys file with `passphrase`.
    /// - Throws: ``Failure/wrongPassphrase``, or ``Failure/damaged(_:)`` saying what is wrong.
    public static func open(_ data: Data, passphrase: String) throws(Failure) -> [Entry] {
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count >= 3, String(decoding: lines[0], as: UTF8.self) == magic else {
            throw .damaged("it does not begin with '\(magic)'")
        }
        guard let header = try? JSONSerialization.jsonObject(with: Data(lines[1])) as? [String: Any],
              header["kdf"] as? String == "scrypt", header["aead"] as? String == "AES-256-GCM",
              let n = header["n"] as? Int, let r = header["r"] as? Int, let p = header["p"] as? Int,
              let salt = (header["salt"] as? String).flatMap({ Data(base64Encoded: $0) }),
              let check = (header["check"] as? String).flatMap({ Data(base64Encoded: $0) }) else {
            throw .damaged("its header is not scrypt and AES-256-GCM with a salt and a check")
        }
        let cost = Cost(n: n, r: r, p: p)
        guard n >= 2, n & (n - 1) == 0, (1...64).contains(r), (1...16).contains(p), 128 * n * r * p <= Cost.maxMemory else {
            throw .damaged("its scrypt parameters are out of bounds")
        }
        let keys: (SymmetricKey, SymmetricKey)
        do { keys = try derive(passphrase: passphrase, salt: salt, cost: cost) } catch { throw .damaged("scrypt refused its parameters") }
        let expected = Data(HMAC<SHA256>.authenticationCode(for: checkText, using: keys.1)).prefix(16)
        guard expected == check else { throw .wrongPassphrase }
        let authenticated = Data(lines[0]) + Data("\n".utf8) + Data(lines[1]) + Data("\n".utf8)
        guard let combined = Data(base64Encoded: Data(lines[2])),
              let box = try? AES.GCM.SealedBox(combined: combined),
              let plaintext = try? AES.GCM.open(box, using: keys.0, authenticating: authenticated) else {
            throw .damaged("it does not authenticate: changed since it was written")
        }
        guard let object = try? JSONSerialization.jsonObject(with: plaintext) as? [String: Any],
              let list = object["keys"] as? [[String: String]] else {
            throw .damaged("its content is not a list of keys")
        }
        var entries: [Entry] = []
        for item in list {
            guard let name = item["name"], let relative = item["relative"],
                  let content = item["content"].flatMap({ Data(base64Encoded: $0) }) else { throw .damaged("a key in it has no name or content") }
            entries.append(Entry(name: name, relative: relative, content: content))
        }
        return entries
    }

    static func derive(passphrase: String, salt: Data, cost: Cost) throws -> (SymmetricKey, SymmetricKey) {
        let derived = try KDF.Scrypt.deriveKey(from: Data(passphrase.utf8), salt: salt, outputByteCount: 64,
                                               rounds: cost.n, blockSize: cost.r, parallelism: cost.p)
        return derived.withUnsafeBytes { bytes in
            (SymmetricKey(data: Data(bytes.prefix(32))), SymmetricKey(data: Data(bytes.suffix(32))))
        }
    }
}
