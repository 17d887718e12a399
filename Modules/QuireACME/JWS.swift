public import Crypto
import Foundation

/// Base64url without padding (RFC 7515 §2), as every ACME field is written.
public enum Base64URL {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// The ACME account's key (P-256, ES256): its JWK, its thumbprint, and the JWS it signs requests with.
public struct ACMEAccountKey: Sendable {
    public let key: P256.Signing.PrivateKey

    public init(_ key: P256.Signing.PrivateKey) { self.key = key }

    /// The public key's coordinates, base64url.
    private var coordinates: (x: String, y: String) {
        // x963: 0x04 || X (32 bytes) || Y (32 bytes).
        let raw = Array(key.publicKey.x963Representation.dropFirst())
        return (Base64URL.encode(raw[0..<32]), Base64URL.encode(raw[32..<64]))
    }

    /// The public JWK (RFC 7517), as `jwk` in a JWS header.
    public var jwk: [String: String] {
        let (x, y) = coordinates
        return ["crv": "P-256", "kty": "EC", "x": x, "y": y]
    }

    /// RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace; base64url.
    public var thumbprint: String {
        let (x, y) = coordinates
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// RFC 8555 §8.1: what a challenge's answer proves, `token.thumbprint`.
    public func keyAuthorization(token: String) -> String { "\(token).\(thumbprint)" }

    /// A flattened JWS (RFC 8555 §6.2): ES256 over `protected.payload`, the key by `kid` once the
    /// account exists, by `jwk` before. A nil payload is a POST-as-GET (an empty payload).
    public func sign(payload: Data?, url: String, nonce: String, kid: String?) throws -> Data {
        var header: [String: Any] = ["alg": "ES256", "nonce": nonce, "url": url]
        if let kid { header["kid"] = kid } else { header["jwk"] = jwk }
        let protected = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys, .withoutEscapingSlashes]))
        let encodedPayload = payload.map { Base64URL.encode($0) } ?? ""
        let signature = try key.signature(for: Data("\(protected).\(encodedPayload)".utf8))
        // JWS ES256 is r || s, 32 bytes each (RFC 7518 §3.4), not DER.
        let body = ["protected": protected, "payload": encodedPayload, "signature": Base64URL.encode(signature.rawRepresentation)]
        return try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
