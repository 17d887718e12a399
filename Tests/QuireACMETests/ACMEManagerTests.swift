import Crypto
import Foundation
import Logging
import QuireACME
import Synchronization
import Testing

/// Every line logged, by level.
final class LogLines: Sendable {
    let lines = Mutex<[(Logger.Level, String)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(lines: self) }
    }

    struct Handler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.lines.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }
}

@Suite("ACME: the manager's checks")
struct ACMEManagerTests {
    func manager(_ ca: FakeCA, folder: String, log: LogLines) -> ACMEManager {
        let solver = ACMEChallengeSolver(type: "http-01", present: { _, _, _ in }, cleanup: { _, _ in })
        return ACMEManager(settings: .init(domain: "photos.example.org", email: "me@example.org", directory: "https://ca.test/dir",
                                           directoryCAFile: nil, renewBeforeDays: 30, challengeType: "http-01"),
                           store: ACMEStore(folder: folder), solver: solver, transport: ca, logger: log.logger)
    }

    @Test("a refused order is one error line in the CA's words with what to check; nothing installed; tried again in 5, then 10 minutes")
    func refused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-acme-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ca = FakeCA()
        ca.answer("https://ca.test/account", FakeCA.json(201, "{}", headers: ["Location": "https://ca.test/acct/1"]))
        ca.answer("https://ca.test/order", FakeCA.json(400, #"{"type":"urn:ietf:params:acme:error:rejectedIdentifier","detail":"Issuance for photos.example.org is forbidden by policy"}"#))
        let log = LogLines()
        let acme = manager(ca, folder: folder, log: log)
        let installed = Mutex(0)
        acme.serve { _, _ in installed.withLock { $0 += 1 } }
        let placeholder = try acme.initialCertificate()
        #expect(String(decoding: placeholder.cert, as: UTF8.self).contains("BEGIN CERTIFICATE"))

        #expect(await acme.check(announce: true) == .seconds(300))
        let lines = log.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.0 == .error)
        let line = lines.first?.1 ?? ""
        #expect(line.hasPrefix("ACME: the CA refused the order for photos.example.org: Issuance for photos.example.org is forbidden by policy; "
                               + "check that the domain points at this server and port 80 (server.http_port) reaches it"))
        #expect(line.contains("temporary self-signed certificate") && line.contains("trying again in 5 min"))
        #expect(!line.contains("PRIVATE KEY"))
        #expect(installed.withLock { $0 } == 0)
        #expect(await acme.check() == .seconds(600))
        let mode = try FileManager.default.attributesOfItem(atPath: "\(folder)/account.key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a stored certificate still valid and not due is served on start without asking the CA, said in one line")
    func stored() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-acme-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A certificate valid for a day, renewed 0 days before expiry: not due yet.
        let (cert, key) = try ACMECertificates.selfSigned(domain: "photos.example.org")
        let store = ACMEStore(folder: folder)
        try store.save(try StoredCertificate.parse(certPEM: cert, keyPEM: key, domain: "photos.example.org").get(), domain: "photos.example.org")
        let ca = FakeCA()
        let log = LogLines()
        let solver = ACMEChallengeSolver(type: "http-01", present: { _, _, _ in }, cleanup: { _, _ in })
        let acme = ACMEManager(settings: .init(domain: "photos.example.org", email: "me@example.org", directory: "https://ca.test/dir",
                                               directoryCAFile: nil, renewBeforeDays: 0, challengeType: "http-01"),
                               store: store, solver: solver, transport: ca, logger: log.logger)
        #expect(try acme.initialCertificate().cert == cert)
        let wait = await acme.check(announce: true)
        #expect(wait > .seconds(3600) && wait <= ACMEManager.checkInterval)
        #expect(ca.sent.isEmpty, "no request to the CA")
        let lines = log.lines.withLock { $0 }
        #expect(lines.count == 1 && lines.first?.1.hasPrefix("ACME: serving the stored certificate for photos.example.org issued by photos.example.org (temporary") == true)
        _ = await acme.check()
        #expect(log.lines.withLock { $0.count } == 1, "a check with nothing to do says nothing")
    }
}
