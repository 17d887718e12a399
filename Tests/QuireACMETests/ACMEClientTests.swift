import Crypto
import Foundation
import QuireACME
import SwiftASN1
import Synchronization
import Testing
import X509

/// A CA in memory: a directory, nonces, and answers for the requests a test expects, in order.
final class FakeCA: ACMETransport {
    struct Sent: Sendable {
        var method: String
        var url: String
        var body: Data?
    }

    private let state = Mutex<(sent: [Sent], answers: [String: [ACMEHTTPResponse]], nonce: Int)>(([], [:], 0))

    /// Answers for POSTs to `url`, one per request, the last one repeated.
    func answer(_ url: String, _ responses: ACMEHTTPResponse...) {
        state.withLock { $0.answers[url, default: []] += responses }
    }

    var sent: [Sent] { state.withLock { $0.sent } }

    func send(method: String, url: String, body: Data?) async throws -> ACMEHTTPResponse {
        state.withLock { state in
            state.sent.append(Sent(method: method, url: url, body: body))
            state.nonce += 1
            let nonce = "nonce-\(state.nonce)"
            if url == "https://ca.test/dir" {
                return Self.json(200, #"{"newNonce":"https://ca.test/nonce","newAccount":"https://ca.test/account","newOrder":"https://ca.test/order"}"#)
            }
            if url == "https://ca.test/nonce" { return ACMEHTTPResponse(status: 200, headers: ["Replay-Nonce": nonce], body: Data()) }
            var queue = state.answers[url] ?? []
            guard var response = queue.first else { return Self.json(404, #"{"type":"urn:ietf:params:acme:error:malformed","detail":"unexpected"}"#) }
            if queue.count > 1 { queue.removeFirst() }
            state.answers[url] = queue
            response.headers["replay-nonce"] = nonce
            return response
        }
    }

    static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> ACMEHTTPResponse {
        ACMEHTTPResponse(status: status, headers: headers, body: Data(text.utf8))
    }
}

/// The protected header and payload of a JWS the client sent, and whether its ES256 signature verifies with `key`.
func open(_ body: Data?, key: P256.Signing.PublicKey) throws -> (header: [String: Any], payload: String, verified: Bool) {
    let sent = try #require(body)
    let jws = try #require(try JSONSerialization.jsonObject(with: sent) as? [String: String])
    let protected = try #require(jws["protected"]), payload = try #require(jws["payload"]), signature = try #require(jws["signature"])
    let headerJSON = try #require(Base64URL.decode(protected))
    let header = try #require(try JSONSerialization.jsonObject(with: headerJSON) as? [String: Any])
    let raw = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(signature)))
    let verified = key.isValidSignature(raw, for: Data("\(protected).\(payload)".utf8))
    return (header, String(decoding: Base64URL.decode(payload) ?? Data(), as: UTF8.self), verified)
}

@Suite("ACME: JWS, nonces, orders, CSR")
struct ACMEClientTests {
    let key = ACMEAccountKey(P256.Signing.PrivateKey())

    @Test("a JWS is ES256 over protected.payload (r||s), with the jwk before the account exists and its kid after")
    func jws() throws {
        let first = try open(try key.sign(payload: Data(#"{"a":1}"#.utf8), url: "https://ca.test/x", nonce: "n1", kid: nil),
                             key: key.key.publicKey)
        #expect(first.verified)
        #expect(first.header["alg"] as? String == "ES256" && first.header["nonce"] as? String == "n1" && first.header["url"] as? String == "https://ca.test/x")
        #expect(first.header["kid"] == nil)
        let jwk = try #require(first.header["jwk"] as? [String: String])
        #expect(jwk == key.jwk && jwk["kty"] == "EC" && jwk["crv"] == "P-256" && Base64URL.decode(jwk["x"] ?? "")?.count == 32)
        #expect(first.payload == #"{"a":1}"#)
        let asGet = try open(try key.sign(payload: nil, url: "https://ca.test/y", nonce: "n2", kid: "https://ca.test/acct/1"),
                             key: key.key.publicKey)
        #expect(asGet.verified && asGet.payload.isEmpty)
        #expect(asGet.header["kid"] as? String == "https://ca.test/acct/1" && asGet.header["jwk"] == nil)
    }

    @Test("the key authorization is token.thumbprint, the thumbprint RFC 7638's SHA-256 of the canonical JWK")
    func thumbprint() throws {
        let jwk = key.jwk
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(jwk["x"] ?? "")","y":"\#(jwk["y"] ?? "")"}"#
        let expected = Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
        #expect(key.thumbprint == expected && !expected.contains("="))
        #expect(key.keyAuthorization(token: "tok_1-a") == "tok_1-a.\(expected)")
    }

    @Test("a badNonce is sent again with the nonce its answer carried; other problems end with the CA's detail")
    func badNonce() async throws {
        let ca = FakeCA()
        let badNonce = #"{"type":"urn:ietf:params:acme:error:badNonce","detail":"JWS has an invalid anti-replay nonce"}"#
        ca.answer("https://ca.test/account", FakeCA.json(400, badNonce), FakeCA.json(400, badNonce),
                  FakeCA.json(201, #"{"status":"valid"}"#, headers: ["Location": "https://ca.test/acct/7"]))
        let client = ACMEClient(directoryURL: "https://ca.test/dir", accountKey: key, transport: ca)
        #expect(try await client.account(email: "me@example.org") == "https://ca.test/acct/7")
        #expect(await client.nonceRetries == 2)
        let posts = ca.sent.filter { $0.method == "POST" }
        #expect(posts.count == 3)
        // The first nonce from newNonce; each retry the Replay-Nonce of the rejection before it.
        let nonces = try posts.map { try open($0.body, key: key.key.publicKey).header["nonce"] as? String }
        let heads = ca.sent.filter { $0.method == "HEAD" }.count
        #expect(heads == 1)
        #expect(Set(nonces.compactMap { $0 }).count == 3)
        let payload = try open(posts[0].body, key: key.key.publicKey).payload
        #expect(payload.contains("mailto:me@example.org") && payload.contains("termsOfServiceAgreed"))

        let refused = FakeCA()
        refused.answer("https://ca.test/account", FakeCA.json(400, badNonce))
        let stubborn = ACMEClient(directoryURL: "https://ca.test/dir", accountKey: key, transport: refused, maxNonceRetries: 3)
        await #expect(throws: ACMEFailure.self) { try await stubborn.account(email: "me@example.org") }
        #expect(refused.sent.filter { $0.method == "POST" }.count == 4)
    }

    @Test("an order: the challenge answered, validated, finalized with the CSR, the chain downloaded; a failed challenge says the CA's detail")
    func order() async throws {
        let ca = FakeCA()
        ca.answer("https://ca.test/account", FakeCA.json(201, "{}", headers: ["Location": "https://ca.test/acct/1"]))
        let order = #"{"status":"pending","authorizations":["https://ca.test/authz/1"],"finalize":"https://ca.test/finalize/1"}"#
        ca.answer("https://ca.test/order", FakeCA.json(201, order, headers: ["Location": "https://ca.test/order/1"]))
        let challenge = #"{"type":"http-01","url":"https://ca.test/chall/1","token":"tok-1","status":"pending"}"#
        let other = #"{"type":"dns-01","url":"https://ca.test/chall/2","token":"tok-2"}"#
        ca.answer("https://ca.test/authz/1",
                  FakeCA.json(200, #"{"status":"pending","identifier":{"type":"dns","value":"a.example.org"},"challenges":[\#(other),\#(challenge)]}"#),
                  FakeCA.json(200, #"{"status":"pending","identifier":{"type":"dns","value":"a.example.org"},"challenges":[\#(challenge)]}"#),
                  FakeCA.json(200, #"{"status":"valid","identifier":{"type":"dns","value":"a.example.org"},"challenges":[]}"#))
        ca.answer("https://ca.test/chall/1", FakeCA.json(200, challenge))
        ca.answer("https://ca.test/order/1",
                  FakeCA.json(200, #"{"status":"ready","authorizations":[],"finalize":"https://ca.test/finalize/1"}"#),
                  FakeCA.json(200, #"{"status":"valid","authorizations":[],"finalize":"https://ca.test/finalize/1","certificate":"https://ca.test/cert/1"}"#))
        ca.answer("https://ca.test/finalize/1",
                  FakeCA.json(200, #"{"status":"processing","authorizations":[],"finalize":"https://ca.test/finalize/1"}"#))
        let chain = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        ca.answer("https://ca.test/cert/1", ACMEHTTPResponse(status: 200, headers: [:], body: Data(chain.utf8)))

        let presented = Mutex<[String]>([])
        let solver = ACMEChallengeSolver(type: "http-01", present: { domain, token, keyAuthorization in
            presented.withLock { $0.append("+\(domain) \(token) \(keyAuthorization)") }
        }, cleanup: { domain, token in
            presented.withLock { $0.append("-\(domain) \(token)") }
        })
        let client = ACMEClient(directoryURL: "https://ca.test/dir", accountKey: key, transport: ca)
        let csr: [UInt8] = [1, 2, 3]
        #expect(try await client.certificate(domain: "a.example.org", csrDER: csr, email: "me@example.org", solver: solver) == chain)
        #expect(presented.withLock { $0 } == ["+a.example.org tok-1 \(key.keyAuthorization(token: "tok-1"))", "-a.example.org tok-1"])
        let finalize = try #require(ca.sent.first { $0.url == "https://ca.test/finalize/1" })
        #expect(try open(finalize.body, key: key.key.publicKey).payload == #"{"csr":"AQID"}"#)
        let challengePost = try #require(ca.sent.first { $0.url == "https://ca.test/chall/1" })
        #expect(try open(challengePost.body, key: key.key.publicKey).payload == "{}")
        let newOrder = try #require(ca.sent.first { $0.url == "https://ca.test/order" })
        #expect(try open(newOrder.body, key: key.key.publicKey).header["kid"] as? String == "https://ca.test/acct/1")

        let failing = FakeCA()
        failing.answer("https://ca.test/account", FakeCA.json(201, "{}", headers: ["Location": "https://ca.test/acct/1"]))
        failing.answer("https://ca.test/order", FakeCA.json(201, order, headers: ["Location": "https://ca.test/order/1"]))
        let invalid = #"{"type":"http-01","url":"https://ca.test/chall/1","token":"tok-1","status":"invalid","error":{"type":"urn:ietf:params:acme:error:connection","detail":"127.0.0.2: Connection refused"}}"#
        failing.answer("https://ca.test/authz/1",
                       FakeCA.json(200, #"{"status":"pending","identifier":{"type":"dns","value":"a.example.org"},"challenges":[\#(challenge)]}"#),
                       FakeCA.json(200, #"{"status":"invalid","identifier":{"type":"dns","value":"a.example.org"},"challenges":[\#(invalid)]}"#))
        failing.answer("https://ca.test/chall/1", FakeCA.json(200, challenge))
        presented.withLock { $0 = [] }
        do {
            _ = try await ACMEClient(directoryURL: "https://ca.test/dir", accountKey: key, transport: failing)
                .certificate(domain: "a.example.org", csrDER: csr, email: "me@example.org", solver: solver)
            Issue.record("a failed challenge was taken as valid")
        } catch let failure as ACMEFailure {
            #expect(failure.stage == .challenge && failure.detail == "127.0.0.2: Connection refused")
            #expect(failure.problemType == "urn:ietf:params:acme:error:connection")
        }
        #expect(presented.withLock { $0.last } == "-a.example.org tok-1", "the answer is withdrawn after a failure too")
    }

    @Test("the CSR names the domain in its subject and a subjectAltName, signed by the certificate's key")
    func csr() throws {
        let certificateKey = P256.Signing.PrivateKey()
        let der = try ACMECertificates.csr(domain: "photos.example.org", key: certificateKey)
        let csr = try CertificateSigningRequest(derEncoded: der)
        #expect(csr.publicKey == Certificate.PublicKey(certificateKey.publicKey))
        #expect(csr.subject.description.contains("CN=photos.example.org"))
        let names = try #require(try csr.attributes.extensionRequest?.extensions.subjectAlternativeNames)
        #expect(Array(names) == [.dnsName("photos.example.org")])
        #expect(csr.publicKey.isValidSignature(csr.signature, for: csr))
    }

    @Test("the TLS-ALPN-01 certificate carries the critical acmeIdentifier extension: the SHA-256 of the key authorization")
    func tlsALPN() throws {
        let (certPEM, _) = try ACMECertificates.selfSigned(domain: "photos.example.org", keyAuthorization: "tok.thumb")
        let certificate = try Certificate(pemEncoded: String(decoding: certPEM, as: UTF8.self))
        let extensionValue = try #require(certificate.extensions[oid: ACMECertificates.acmeIdentifierOID])
        #expect(extensionValue.critical)
        let digest = try ASN1OctetString(derEncoded: extensionValue.value)
        #expect(Array(digest.bytes) == Array(SHA256.hash(data: Data("tok.thumb".utf8))))
        #expect(Array(try #require(try certificate.extensions.subjectAlternativeNames)) == [.dnsName("photos.example.org")])
        let (placeholder, _) = try ACMECertificates.selfSigned(domain: "photos.example.org")
        #expect(try Certificate(pemEncoded: String(decoding: placeholder, as: UTF8.self)).extensions[oid: ACMECertificates.acmeIdentifierOID] == nil)
    }

    @Test("a stored pair is refused when the key is another certificate's or the name another domain's; files are written 0600")
    func stored() throws {
        let (cert, key) = try ACMECertificates.selfSigned(domain: "photos.example.org")
        let (_, otherKey) = try ACMECertificates.selfSigned(domain: "photos.example.org")
        #expect((try? StoredCertificate.parse(certPEM: cert, keyPEM: key, domain: "photos.example.org").get()) != nil)
        #expect((try? StoredCertificate.parse(certPEM: cert, keyPEM: otherKey, domain: "photos.example.org").get()) == nil)
        #expect((try? StoredCertificate.parse(certPEM: cert, keyPEM: key, domain: "other.example.org").get()) == nil)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-acme-\(UUID().uuidString)").path + "/acme"
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let store = ACMEStore(folder: folder)
        let account = try store.accountKey()
        #expect(try store.accountKey().thumbprint == account.thumbprint, "the stored account key is read back")
        let pair = try StoredCertificate.parse(certPEM: cert, keyPEM: key, domain: "photos.example.org").get()
        try store.save(pair, domain: "photos.example.org")
        #expect(store.stored(domain: "photos.example.org")?.certPEM == cert)
        for path in [store.accountKeyPath, store.keyPath("photos.example.org")] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(path)")
        }
    }
}
