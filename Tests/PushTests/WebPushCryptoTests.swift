import Crypto
import Foundation
import Logging
@testable import Push
import PushAPI
import StorageAPI
import SyncAPI
import Testing

/// RFC 8291, Appendix A: the worked example, byte for byte.
@Suite("Web Push encryption (RFC 8291)")
struct WebPushCryptoTests {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) throws -> Data { try #require(WebPushCrypto.fromBase64URL(text)) }

    @Test("the example's keys, salt and secret give the example's message")
    func appendixA() throws {
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: try Self.bytes(Self.asPrivate))
        #expect(WebPushCrypto.base64URL(sender.publicKey.x963Representation) == Self.asPublic)
        let message = try WebPushCrypto.encrypt(Data(Self.plaintext.utf8), subscriptionKey: try Self.bytes(Self.uaPublic),
                                                authSecret: try Self.bytes(Self.authSecret), senderKey: sender, salt: try Self.bytes(Self.salt))
        #expect(WebPushCrypto.base64URL(message) == Self.body)
        // The header: salt, rs = 4096, idlen = 65, the sender's public key.
        #expect(message.prefix(16) == (try Self.bytes(Self.salt)))
        #expect(Array(message[16..<21]) == [0, 0, 0x10, 0, 65])
    }

    @Test("the user agent's private key opens what was sent with a fresh key and salt")
    func roundTrip() throws {
        let ua = try P256.KeyAgreement.PrivateKey(rawRepresentation: try Self.bytes(Self.uaPrivate))
        let auth = try Self.bytes(Self.authSecret)
        let message = try WebPushCrypto.encrypt(Data(#"{"title":"Reminder: milk"}"#.utf8), subscriptionKey: ua.publicKey.x963Representation, authSecret: auth)
        // The receiver's side (RFC 8291 §3.4), written out here apart from the sender's code path.
        let salt = message.prefix(16)
        let idlen = Int(message[20])
        let senderPublic = message[21..<(21 + idlen)]
        let shared = try ua.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: senderPublic))
        let ecdh = shared.withUnsafeBytes { Data($0) }
        let prkKey = Data(HMAC<SHA256>.authenticationCode(for: ecdh, using: SymmetricKey(data: auth)))
        let info = Data("WebPush: info".utf8) + [0] + ua.publicKey.x963Representation + senderPublic + [1]
        let ikm = Data(HMAC<SHA256>.authenticationCode(for: info, using: SymmetricKey(data: prkKey)))
        let prk = Data(HMAC<SHA256>.authenticationCode(for: ikm, using: SymmetricKey(data: salt)))
        let cek = Data(HMAC<SHA256>.authenticationCode(for: Data("Content-Encoding: aes128gcm".utf8) + [0, 1], using: SymmetricKey(data: prk))).prefix(16)
        let nonce = Data(HMAC<SHA256>.authenticationCode(for: Data("Content-Encoding: nonce".utf8) + [0, 1], using: SymmetricKey(data: prk))).prefix(12)
        let record = message.suffix(from: 21 + idlen)
        let box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16))
        let opened = try AES.GCM.open(box, using: SymmetricKey(data: cek))
        #expect(opened.last == 2)
        #expect(String(decoding: opened.dropLast(), as: UTF8.self) == #"{"title":"Reminder: milk"}"#)
    }

    @Test("a bad subscription key, a short secret and an oversized message are refused")
    func refusals() throws {
        let auth = try Self.bytes(Self.authSecret)
        #expect(throws: WebPushCrypto.Failure.badSubscriptionKey) {
            try WebPushCrypto.encrypt(Data("x".utf8), subscriptionKey: Data(repeating: 4, count: 65), authSecret: auth)
        }
        #expect(throws: WebPushCrypto.Failure.badAuthSecret) {
            try WebPushCrypto.encrypt(Data("x".utf8), subscriptionKey: try Self.bytes(Self.uaPublic), authSecret: auth.prefix(8))
        }
        #expect(throws: WebPushCrypto.Failure.tooLong) {
            try WebPushCrypto.encrypt(Data(count: 5000), subscriptionKey: try Self.bytes(Self.uaPublic), authSecret: auth)
        }
    }
}

/// RFC 8292: the Authorization header a push service checks.
@Suite("VAPID (RFC 8292)")
struct VAPIDTests {
    @Test("vapid t=<ES256 JWT over aud, exp, sub>, k=<the public key>")
    func header() throws {
        let vapid = VAPID(key: P256.Signing.PrivateKey(), subject: "mailto:ops@example.org")
        let now = Date(timeIntervalSince1970: 1_760_000_000)
        let header = try vapid.authorization(endpoint: "https://push.example.net:8443/wpush/v2/abc?x=1", now: now)
        let match = try #require(header.wholeMatch(of: /vapid t=([A-Za-z0-9_\-.]+), k=([A-Za-z0-9_\-]+)/))
        let token = String(match.1), key = String(match.2)
        #expect(key == vapid.publicKey)
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let headerJSON = try JSONSerialization.jsonObject(with: try #require(WebPushCrypto.fromBase64URL(parts[0]))) as? [String: String]
        #expect(headerJSON == ["typ": "JWT", "alg": "ES256"])
        let claimBytes = try #require(WebPushCrypto.fromBase64URL(parts[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: claimBytes) as? [String: Any])
        #expect(claims["aud"] as? String == "https://push.example.net:8443")
        #expect(claims["sub"] as? String == "mailto:ops@example.org")
        let exp = try #require(claims["exp"] as? Int)
        #expect(exp > Int(now.timeIntervalSince1970) && exp <= Int(now.timeIntervalSince1970) + 24 * 3600)
        // The signature verifies with the public key the header names (r || s, 64 bytes).
        let publicKey = try P256.Signing.PublicKey(x963Representation: try #require(WebPushCrypto.fromBase64URL(key)))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(WebPushCrypto.fromBase64URL(parts[2])))
        #expect(publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(!publicKey.isValidSignature(signature, for: Data("\(parts[0]).e30".utf8)))
        // The default port is left out of the origin.
        let plain = try vapid.authorization(endpoint: "https://fcm.googleapis.com/fcm/send/xyz", now: now)
        let claims2 = try #require(plain.split(separator: ".").dropFirst().first.flatMap { WebPushCrypto.fromBase64URL(String($0)) })
        #expect(String(decoding: claims2, as: UTF8.self).contains(#""aud":"https://fcm.googleapis.com""#))
    }

    @Test("the key file is made once, 0600, and read back the same")
    func keyFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UInt64.random(in: 0...UInt64.max))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("app.vapid-key").path
        let first = try VAPID.load(configured: nil, file: file, subject: "mailto:a@b", logger: .init(label: "test"))
        let again = try VAPID.load(configured: nil, file: file, subject: "mailto:a@b", logger: .init(label: "test"))
        #expect(first.publicKey == again.publicKey)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let configured = try VAPID.load(configured: WebPushCrypto.base64URL(first.key.rawRepresentation), file: "/nonexistent/x", subject: "mailto:a@b",
                                        logger: .init(label: "test"))
        #expect(configured.publicKey == first.publicKey)
    }

    @Test("reminders and nearby alerts become notifications that open the right screen")
    func alerts() throws {
        let due = try #require(PushAlerts.notification(for: .init(user: "u", kind: "reminders.due",
            data: try .init(json: Data(#"{"subject":"notes/n_1","title":"Buy milk","at":"2026-01-01T00:00:00Z"}"#.utf8)))))
        #expect(due.0 == PushNotification(title: "Reminder: Buy milk", body: "Tap to open it.", tag: "reminder:notes/n_1", url: "#/notes/n_1"))
        #expect(due.1)
        let near = try #require(PushAlerts.notification(for: .init(user: "u", kind: "notebooks.nearby",
            data: try .init(json: Data(#"{"latitude":1,"longitude":2,"notebooks":[{"id":"nb_1","name":"Garden","distanceMeters":12.4,"canEdit":false}]}"#.utf8)))))
        #expect(near.0.title == "A pinned notebook is near")
        #expect(near.0.body == "“Garden” is 12 m away. Tap to open it.")
        #expect(near.0.url == "#/n/nb_1")
        #expect(PushAlerts.notification(for: .init(user: "u", kind: "device.battery", data: try .init(json: Data("{}".utf8)))) == nil)
    }
}
