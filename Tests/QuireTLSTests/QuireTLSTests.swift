import AppConfig
import AppHost
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOSSL
@testable import QuireTLS
import SwiftASN1
import Testing
import X509

/// A fresh folder under the system's temporary directory.
func temporaryFolder() throws -> String {
    let path = NSTemporaryDirectory() + "quire-tls-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A self-signed P-256 certificate and its key, written as PEM into `folder`.
func selfSigned(in folder: String, name: String, notAfter: Date = Date().addingTimeInterval(86_400)) throws -> (cert: String, key: String) {
    let key = P256.Signing.PrivateKey()
    let subject = try DistinguishedName { CommonName(name) }
    let certificate = try Certificate(
        version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date().addingTimeInterval(-7200),
        notValidAfter: notAfter, issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
        extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName(name)]) }, issuerPrivateKey: .init(key))
    let certPath = "\(folder)/\(name).crt", keyPath = "\(folder)/\(name).key"
    try certificate.serializeAsPEM().pemString.write(toFile: certPath, atomically: true, encoding: .utf8)
    try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
    return (certPath, keyPath)
}

@Suite("ACME challenge store")
struct ACMEChallengeStoreTests {
    @Test("a token answers its key authorization until it is removed")
    func setLookupRemove() {
        let store = ACMEChallengeStore()
        #expect(store.lookup(token: "abc") == nil)
        store.set(token: "abc", keyAuthorization: "abc.thumbprint")
        #expect(store.lookup(token: "abc") == "abc.thumbprint")
        #expect(store.lookup(token: "other") == nil)
        store.remove(token: "abc")
        #expect(store.lookup(token: "abc") == nil)
    }
}

@Suite("Plain HTTP beside HTTPS")
struct PlainHTTPSiteTests {
    @Test("every request is redirected with 308 to the same path and query over HTTPS, on the host it named")
    func redirects() async throws {
        let site = PlainHTTPSite(httpsPort: 8443, fallbackHost: "localhost", challenges: ACMEChallengeStore(), localCA: nil)
        try await Application(responder: site).test(.router) { client in
            try await client.execute(uri: "/api/v1/notes?limit=5&x=%20", method: .post) { response in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "https://localhost:8443/api/v1/notes?limit=5&x=%20")
            }
            // Without the local CA, / is no setup page, and the CA certificate is not offered.
            try await client.execute(uri: "/quire-ca.crt", method: .get) { response in
                #expect(response.headers[.location] == "https://localhost:8443/quire-ca.crt")
            }
        }
        let v4 = site.answer(method: .get, path: "/a", query: "b=1", authority: "192.168.1.7:8080")
        #expect(v4.status == .permanentRedirect && v4.headers[.location] == "https://192.168.1.7:8443/a?b=1")
        let v6 = site.answer(method: .get, path: "/", query: nil, authority: "[fd00::5]:8080")
        #expect(v6.headers[.location] == "https://[fd00::5]:8443/")
    }

    @Test("port 443 is left out of the address, and a hostile Host header is not echoed")
    func hostHandling() {
        let site = PlainHTTPSite(httpsPort: 443, fallbackHost: "quire.example", challenges: ACMEChallengeStore(), localCA: nil)
        #expect(site.answer(method: .get, path: "/a", query: nil, authority: "notes.example:80").headers[.location] == "https://notes.example/a")
        #expect(site.answer(method: .get, path: "/a", query: nil, authority: "evil\"<x>@").headers[.location] == "https://quire.example/a")
        #expect(site.answer(method: .get, path: "/a", query: nil, authority: nil).headers[.location] == "https://quire.example/a")
    }

    @Test("ACME HTTP-01 challenges are answered from the store, in plain HTTP")
    func challenges() async throws {
        let store = ACMEChallengeStore()
        store.set(token: "tok-123_x", keyAuthorization: "tok-123_x.key-thumbprint")
        let site = PlainHTTPSite(httpsPort: 8443, fallbackHost: "localhost", challenges: store, localCA: nil)
        try await Application(responder: site).test(.router) { client in
            try await client.execute(uri: "/.well-known/acme-challenge/tok-123_x", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "tok-123_x.key-thumbprint")
            }
            try await client.execute(uri: "/.well-known/acme-challenge/unknown", method: .get) { response in
                #expect(response.status == .notFound)
            }
            store.remove(token: "tok-123_x")
            try await client.execute(uri: "/.well-known/acme-challenge/tok-123_x", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("with the local CA, / is the phone setup page: a QR code of the HTTPS address and the CA to download")
    func setupPage() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ca = LocalCA(directory: "\(folder)/tls")
        try ca.ensureServerCertificate(for: ServerNames(dnsNames: ["box.local"], ipAddresses: ["10.1.2.3"]))
        let site = PlainHTTPSite(httpsPort: 8443, fallbackHost: "localhost", challenges: ACMEChallengeStore(), localCA: ca)
        try await Application(responder: site).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<svg") && page.contains("href=\"/quire-ca.crt\""))
                #expect(page.contains("https://localhost:8443/"))
                #expect(page.contains("iPhone") && page.contains("Android"))
            }
            try await client.execute(uri: "/quire-ca.crt", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/x-x509-ca-cert")
                let certificate = try Certificate(derEncoded: Array(buffer: response.body))
                #expect(try certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
            }
            try await client.execute(uri: "/other?q=1", method: .get) { response in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "https://localhost:8443/other?q=1")
            }
        }
        let page = site.answer(method: .get, path: "/", query: nil, authority: "10.1.2.3:8080")
        #expect(page.status == .ok)
    }

    @Test("the QR code is a real one: square, with the three finder patterns")
    func qrCode() throws {
        let modules = try #require(QRCode.modules("https://192.168.1.20:8443/"))
        #expect(modules.count >= 21 && modules.allSatisfy { $0.count == modules.count })
        let size = modules.count
        for (row, column) in [(0, 0), (0, size - 7), (size - 7, 0)] {
            // A finder pattern: a dark 7x7 ring around a light ring around a dark 3x3 core.
            #expect(modules[row][column] && modules[row + 6][column + 6] && !modules[row + 1][column + 1] && modules[row + 3][column + 3])
        }
    }
}

@Suite("Local CA")
struct LocalCATests {
    @Test("made once, key owner-only; the server certificate covers the names, signed by the CA, for iOS and Android")
    func issues() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ca = LocalCA(directory: "\(folder)/tls")
        let names = ServerNames(dnsNames: ["box.local", "localhost"], ipAddresses: ["192.168.1.20", "127.0.0.1", "fd00::1"])
        #expect(try ca.ensureServerCertificate(for: names))
        let attributes = try FileManager.default.attributesOfItem(atPath: ca.caKeyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: ca.serverKeyPath)[.posixPermissions] as? Int) == 0o600)
        let caCert = try Certificate(pemEncoded: String(contentsOfFile: ca.caCertificatePath, encoding: .utf8))
        let leaf = try Certificate(pemEncoded: String(contentsOfFile: ca.serverCertificatePath, encoding: .utf8))
        #expect(caCert.publicKey.isValidSignature(leaf.signature, for: leaf))
        #expect(leaf.issuer == caCert.subject)
        #expect(LocalCA.names(of: leaf) == LocalCA.normalized(names))
        #expect(try leaf.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        #expect(leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore) <= 398 * 86_400)
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)

        // The same names: nothing issued. New addresses: a new certificate from the same CA.
        #expect(try !ca.ensureServerCertificate(for: names))
        let moved = ServerNames(dnsNames: names.dnsNames, ipAddresses: ["10.0.0.9", "127.0.0.1"])
        #expect(try ca.ensureServerCertificate(for: moved))
        let again = try Certificate(pemEncoded: String(contentsOfFile: ca.serverCertificatePath, encoding: .utf8))
        #expect(LocalCA.names(of: again) == LocalCA.normalized(moved))
        #expect(try Certificate(pemEncoded: String(contentsOfFile: ca.caCertificatePath, encoding: .utf8)) == caCert)
        // Within a month of its end: re-issued.
        #expect(try ca.ensureServerCertificate(for: moved, now: Date().addingTimeInterval(380 * 86_400)))
        // The pair works for TLS.
        #expect(TLSFiles.check(certFile: ca.serverCertificatePath, keyFile: ca.serverKeyPath).isEmpty)
    }

    @Test("IP addresses become the bytes of subjectAltName")
    func ipBytes() {
        #expect(IPBytes.parse("192.168.1.20") == [192, 168, 1, 20])
        #expect(IPBytes.parse("::1") == [UInt8](repeating: 0, count: 15) + [1])
        #expect(IPBytes.parse("fd00::1:2") == [0xfd, 0] + [UInt8](repeating: 0, count: 10) + [0, 1, 0, 2])
        #expect(IPBytes.parse("::ffff:10.0.0.1") == [UInt8](repeating: 0, count: 10) + [0xff, 0xff, 10, 0, 0, 1])
        #expect(IPBytes.parse("box.local") == nil && IPBytes.parse("1.2.3") == nil && IPBytes.parse("1:2:3") == nil)
    }
}

@Suite("TLS certificate files")
struct TLSFilesTests {
    @Test("a missing file, a key of another certificate, an expired certificate: each said plainly")
    func problems() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let one = try selfSigned(in: folder, name: "one.test"), two = try selfSigned(in: folder, name: "two.test")
        #expect(TLSFiles.check(certFile: one.cert, keyFile: one.key).isEmpty)
        let missing = TLSFiles.check(certFile: "\(folder)/nope.crt", keyFile: one.key)
        #expect(missing.count == 1 && missing[0].file == .certificate && missing[0].message.contains("does not exist"))
        let mismatched = TLSFiles.check(certFile: one.cert, keyFile: two.key)
        #expect(mismatched.count == 1 && mismatched[0].file == .key && mismatched[0].message.contains("does not match"))
        let old = try selfSigned(in: folder, name: "old.test", notAfter: Date().addingTimeInterval(-60))
        #expect(TLSFiles.check(certFile: old.cert, keyFile: old.key).first?.message.contains("expired") == true)
        try "not a certificate".write(toFile: "\(folder)/junk.crt", atomically: true, encoding: .utf8)
        #expect(TLSFiles.check(certFile: "\(folder)/junk.crt", keyFile: one.key).first?.message.contains("not a PEM certificate") == true)
    }

    @Test("config mistakes point at the line and column of cert_file or key_file")
    func configLocations() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let one = try selfSigned(in: folder, name: "one.test"), two = try selfSigned(in: folder, name: "two.test")
        let yaml = """
            app: a
            server:
              port: 8443
              http_port: 8080
              tls: { cert_file: "\(one.cert)", key_file: "\(two.key)" }
            plugins: {}
            """
        let config = AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"), environment: [:])
        #expect(config.server.httpPort == 8080 && config.server.tls?.certFile == one.cert)
        #expect {
            try AppHost.validate(config, catalog: [])
        } throws: { error in
            let text = (error as? ConfigError)?.description ?? ""
            return text.contains("app.yaml:5:") && text.contains("server.tls.key_file: the key in") && text.contains("does not match")
        }
    }

    @Test("empty settings from an unset environment mean plain HTTP; a half-given TLS setting is refused")
    func environmentDriven() throws {
        let yaml = """
            app: a
            server: { port: "${QUIRE_PORT:-8080}", http_port: "${QUIRE_HTTP_PORT:-}",
                      tls: { local_ca: "${QUIRE_LOCAL_CA:-false}", cert_file: "${QUIRE_TLS_CERT:-}", key_file: "${QUIRE_TLS_KEY:-}", dir: "${QUIRE_DATA:-./data}/tls" } }
            plugins: {}
            """
        let plain = AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"), environment: [:])
        #expect(plain.server.tls == nil && plain.server.httpPort == nil)
        try plain.reader.finish()
        let lan = AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"),
                            environment: ["QUIRE_LOCAL_CA": "true", "QUIRE_HTTP_PORT": "8080", "QUIRE_PORT": "8443", "QUIRE_DATA": "/srv/q"])
        #expect(lan.server.tls?.localCA == true && lan.server.tls?.directory == "/srv/q/tls" && lan.server.httpPort == 8080)
        try lan.reader.finish()
        let half = AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"), environment: ["QUIRE_TLS_CERT": "/x.crt", "QUIRE_HTTP_PORT": "80"])
        #expect {
            try half.reader.finish()
        } throws: { error in
            let text = (error as? ConfigError)?.description ?? ""
            return text.contains("key_file: is required with cert_file") && text.contains("http_port: redirects to HTTPS")
        }
    }
}

@Suite("Reloading the certificate")
struct ReloadTests {
    @Test("a certificate replaced on disk is served to new connections after a check; a broken pair keeps the old one")
    func reload() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let one = try selfSigned(in: folder, name: "one.test"), two = try selfSigned(in: folder, name: "two.test")
        let certificates = try TLSCertificates(source: .files(cert: one.cert, key: one.key), logger: Logger(label: "test"))
        let first = certificates.certificatePEM
        #expect(!certificates.refresh())
        // Half-written renewal: the new certificate with the old key.
        try FileManager.default.removeItem(atPath: one.cert)
        try FileManager.default.copyItem(atPath: two.cert, toPath: one.cert)
        #expect(!certificates.refresh())
        #expect(certificates.certificatePEM == first)
        try FileManager.default.removeItem(atPath: one.key)
        try FileManager.default.copyItem(atPath: two.key, toPath: one.key)
        #expect(certificates.refresh())
        #expect(certificates.certificatePEM == Array(try Data(contentsOf: URL(fileURLWithPath: two.cert))))
    }
}
