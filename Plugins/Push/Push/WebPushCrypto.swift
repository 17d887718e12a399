import Crypto
import Foundation

/// Web Push message encryption (RFC 8291): ECDH P-256 between a fresh key of ours and the
/// subscription's key, HKDF-SHA-256 mixed with the subscription's auth secret, and the result
/// written as one record of RFC 8188's aes128gcm content coding. Pure: the unit tests run it on
/// RFC 8291's Appendix A.
enum WebPushCrypto {
    /// RFC 8188's record size as the header says it; one record holds any message we send.
    static let recordSize: UInt32 = 4096
    /// What one record may carry: the record less the GCM tag and the delimiter octet.
    static let maxPlaintext = Int(recordSize) - 16 - 1

    enum Failure: Error, Equatable {
        case badSubscriptionKey
        case badAuthSecret
        case tooLong
    }

    /// The body to POST: header (salt, rs, idlen, our public key) and the one record.
    /// `senderKey` and `salt` are fresh for every message; tests pass the RFC's.
    static func encrypt(_ plaintext: Data, subscriptionKey: Data, authSecret: Data,
                        senderKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
                        salt: Data = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
        throws(Failure) -> Data {
        guard plaintext.count <= maxPlaintext else { throw .tooLong }
        guard authSecret.count == 16 else { throw .badAuthSecret }
        guard subscriptionKey.count == 65, let uaPublic = try? P256.KeyAgreement.PublicKey(x963Representation: subscriptionKey) else {
            throw .badSubscriptionKey
        }
        guard let shared = try? senderKey.sharedSecretFromKeyAgreement(with: uaPublic) else { throw .badSubscriptionKey }
        let ecdhSecret = shared.withUnsafeBytes { Data($0) }
        let asPublic = senderKey.publicKey.x963Representation
        // RFC 8291 §3.3-3.4.
        let prkKey = hmac(key: authSecret, ecdhSecret)
        let keyInfo = Data("WebPush: info".utf8) + [0] + subscriptionKey + asPublic
        let ikm = hmac(key: prkKey, keyInfo + [1])
        // RFC 8188 §2.2-2.3.
        let prk = hmac(key: salt, ikm)
        let cek = hmac(key: prk, Data("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16)
        let nonce = hmac(key: prk, Data("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12)
        // The last (only) record: the plaintext, then the delimiter 0x02, no padding.
        guard let gcmNonce = try? AES.GCM.Nonce(data: nonce),
              let sealed = try? AES.GCM.seal(plaintext + [2], using: SymmetricKey(data: cek), nonce: gcmNonce) else {
            throw .badSubscriptionKey
        }
        var header = salt
        withUnsafeBytes(of: recordSize.bigEndian) { header.append(contentsOf: $0) }
        header.append(UInt8(asPublic.count))
        header.append(asPublic)
        return header + sealed.ciphertext + sealed.tag
    }

    static func hmac(key: Data, _ data: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// base64url without padding, as Web Push writes keys.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// base64url, padded or not (a browser's `getKey()` encoded by the client).
    static func fromBase64URL(_ text: String) -> Data? {
        var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            .replacingOccurrences(of: "=", with: "")
        guard base.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }) else { return nil }
        base += String(repeating: "=", count: (4 - base.count % 4) % 4)
        return Data(base64Encoded: base)
    }
}
