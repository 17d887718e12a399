import Crypto
import Foundation
import Logging
import PluginKit

/// Voluntary Application Server Identification (RFC 8292): the server's P-256 key pair, and the
/// `Authorization: vapid t=<JWT>, k=<public key>` header each push carries. The JWT is ES256,
/// `aud` the endpoint's origin, `exp` at most 24 hours ahead (12 here), `sub` the operator's
/// contact from the config.
struct VAPID: Sendable {
    let key: P256.Signing.PrivateKey
    let subject: String

    /// The public key as the browser's `pushManager.subscribe({applicationServerKey})` takes it:
    /// the uncompressed point (65 bytes), base64url.
    var publicKey: String { WebPushCrypto.base64URL(key.publicKey.x963Representation) }

    static let lifetime: TimeInterval = 12 * 3600

    /// The header for a push to `endpoint`, valid from `now` for ``lifetime``.
    func authorization(endpoint: String, now: Date) throws -> String {
        guard let url = URL(string: endpoint), let scheme = url.scheme, let host = url.host else {
            throw VAPIDError("A push subscription's endpoint '\(endpoint.prefix(80))' has no origin.")
        }
        let origin = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        return "vapid t=\(try token(audience: origin, expires: now.addingTimeInterval(Self.lifetime))), k=\(publicKey)"
    }

    func token(audience: String, expires: Date) throws -> String {
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        let claims = try JSONSerialization.data(withJSONObject: ["aud": audience, "exp": Int(expires.timeIntervalSince1970), "sub": subject],
                                                options: [.sortedKeys, .withoutEscapingSlashes])
        let input = WebPushCrypto.base64URL(Data(header.utf8)) + "." + WebPushCrypto.base64URL(claims)
        // ES256 is r || s, 32 bytes each (what `rawRepresentation` is), not DER.
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + WebPushCrypto.base64URL(signature.rawRepresentation)
    }

    /// The key pair: from the config (`private_key`, base64url of the 32-byte scalar: what a cluster
    /// shares), else from `file`, else generated once into `file` (mode 0600). Never logged.
    static func load(configured: String?, file: String, subject: String, logger: Logger) throws -> VAPID {
        if let configured {
            guard let raw = WebPushCrypto.fromBase64URL(configured), let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
                throw PluginSetupError("push: 'private_key' is not a P-256 private key (base64url of 32 bytes); "
                                       + "remove it to have one generated into key_file, or copy that file's content")
            }
            return VAPID(key: key, subject: subject)
        }
        let manager = FileManager.default
        if let existing = manager.contents(atPath: file) {
            let text = String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let raw = WebPushCrypto.fromBase64URL(text), let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
                throw PluginSetupError("push: the key file '\(file)' does not hold a P-256 private key; restore it from a backup, "
                                       + "or delete it to generate a new one (every phone then has to turn notifications on again)")
            }
            return VAPID(key: key, subject: subject)
        }
        let key = P256.Signing.PrivateKey()
        let directory = (file as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty { try manager.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            let temporary = file + ".tmp"
            guard manager.createFile(atPath: temporary, contents: Data(WebPushCrypto.base64URL(key.rawRepresentation).utf8),
                                     attributes: [.posixPermissions: 0o600]) else {
                throw PluginSetupError("push: cannot write the key file '\(file)'; check that its folder is writable")
            }
            try manager.moveItem(atPath: temporary, toPath: file)
        } catch let error as PluginSetupError {
            throw error
        } catch {
            throw PluginSetupError("push: cannot create the key file '\(file)': \(error.localizedDescription)")
        }
        let vapid = VAPID(key: key, subject: subject)
        logger.info("push: generated the VAPID key pair", metadata: ["file": "\(file)", "public_key": "\(vapid.publicKey)"])
        return vapid
    }
}

struct VAPIDError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
