import Crypto
public import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization
import UnixSignals

/// Keeps a certificate for one public domain from an ACME CA: the stored one while it is valid, a
/// new one ordered on start when there is none (or it expired, or is due), renewed
/// `renewBeforeDays` before it expires (checked every 12 hours, and at once on SIGHUP). Each
/// check that does something says so in one log line: what was issued, or why it failed and what
/// to check; a failure keeps what is served and tries again later (5 minutes, doubling to 6 hours).
public final class ACMEManager: Sendable {
    public struct Settings: Sendable {
        public var domain: String
        public var email: String
        public var directory: String
        public var directoryCAFile: String?
        public var renewBeforeDays: Int
        /// `http-01` (the plain-HTTP port answers) or `tls-alpn-01` (the HTTPS port does).
        public var challengeType: String

        public init(domain: String, email: String, directory: String, directoryCAFile: String?, renewBeforeDays: Int, challengeType: String) {
            self.domain = domain
            self.email = email
            self.directory = directory
            self.directoryCAFile = directoryCAFile
            self.renewBeforeDays = renewBeforeDays
            self.challengeType = challengeType
        }
    }

    /// What is served now.
    struct Served: Sendable {
        /// nil while the placeholder is served.
        var certificate: StoredCertificate?
        var failures = 0
    }

    public let settings: Settings
    public let store: ACMEStore
    let solver: ACMEChallengeSolver
    let transport: any ACMETransport
    typealias Install = @Sendable (_ certPEM: [UInt8], _ keyPEM: [UInt8]) throws -> Void
    let installer = Mutex<Install?>(nil)
    let logger: Logger
    let served: Mutex<Served>
    /// The longest wait between two checks.
    public static let checkInterval: Duration = .seconds(12 * 3600)

    public init(settings: Settings, store: ACMEStore, solver: ACMEChallengeSolver, transport: any ACMETransport, logger: Logger) {
        self.settings = settings
        self.store = store
        self.solver = solver
        self.transport = transport
        self.logger = logger
        self.served = Mutex(Served())
    }

    /// Where each new certificate goes: `install` serves a chain and its key to new connections
    /// (the TLS server's ``TLSCertificates/install(certPEM:keyPEM:)``).
    public func serve(with install: @escaping @Sendable (_ certPEM: [UInt8], _ keyPEM: [UInt8]) throws -> Void) {
        installer.withLock { $0 = install }
    }

    /// What to serve as the server starts: the stored certificate when it has not expired, else a
    /// self-signed placeholder (phones warn) until the CA's arrives.
    public func initialCertificate(now: Date = Date()) throws -> (cert: [UInt8], key: [UInt8]) {
        if let stored = store.stored(domain: settings.domain), stored.notValidAfter > now {
            served.withLock { $0.certificate = stored }
            return (stored.certPEM, stored.keyPEM)
        }
        return try ACMECertificates.selfSigned(domain: settings.domain, now: now)
    }

    /// When the certificate served is due for renewal; nil while none (the placeholder) is.
    func renewalDate(of certificate: StoredCertificate) -> Date {
        certificate.notValidAfter - TimeInterval(settings.renewBeforeDays) * 86400
    }

    private static func text(_ date: Date) -> String { date.formatted(.iso8601) }

    /// Orders a certificate when none is served or the one served is due, and says what it did.
    /// - Parameter announce: say what is served even when nothing is due (on start and SIGHUP).
    /// - Returns: how long until the next check.
    @discardableResult
    public func check(now: Date = Date(), announce: Bool = false) async -> Duration {
        let current = served.withLock { $0.certificate }
        let domain = settings.domain
        if let current, renewalDate(of: current) > now {
            if announce {
                let line = "ACME: serving the stored certificate for \(domain) issued by \(current.issuer), valid until "
                    + "\(Self.text(current.notValidAfter)); it is renewed from \(Self.text(renewalDate(of: current)))"
                logger.notice("\(line)")
            }
            return Self.clamp(renewalDate(of: current).timeIntervalSince(now))
        }
        do {
            let (issued, retries) = try await obtain()
            try installer.withLock { $0 }?(issued.certPEM, issued.keyPEM)
            served.withLock { $0 = Served(certificate: issued, failures: 0) }
            let renewed = current == nil ? "issued" : "renewed"
            let line = "ACME: certificate for \(domain) \(renewed) by \(issued.issuer), valid until \(Self.text(issued.notValidAfter)); "
                + "serving it to new connections; it is renewed from \(Self.text(renewalDate(of: issued)))"
                + (retries > 0 ? " (\(retries) \(retries == 1 ? "request" : "requests") sent again after a badNonce)" : "")
            logger.notice("\(line)")
            return Self.clamp(renewalDate(of: issued).timeIntervalSince(now))
        } catch is CancellationError {
            return .seconds(0)
        } catch {
            if Task.isCancelled { return .seconds(0) }
            let failures = served.withLock { $0.failures += 1; return $0.failures }
            let wait = Duration.seconds(min(300 * (1 << min(failures - 1, 10)), 6 * 3600))
            let keeping = current.map { "still serving the certificate valid until \(Self.text($0.notValidAfter))" }
                ?? "HTTPS serves a temporary self-signed certificate (phones warn) until one is issued"
            let line = "ACME: \(explain(error)); \(keeping); trying again in \(wait.components.seconds / 60) min (or at once on SIGHUP)"
            logger.error("\(line)")
            return wait
        }
    }

    /// The failure in one sentence: what went wrong, in the CA's words, and what to check.
    func explain(_ error: any Error) -> String {
        let domain = settings.domain
        guard let failure = error as? ACMEFailure else { return "getting the certificate for \(domain) failed (\(error))" }
        let port = settings.challengeType == "http-01" ? "port 80 (server.http_port)" : "port 443 (server.port)"
        switch failure.stage {
        case .directory, .nonce:
            return "cannot use the CA's directory for \(domain): \(failure.detail); check server.tls.acme.directory, this server's "
                + "access to it, and directory_ca_file for a private CA"
        case .account:
            return "the CA refused the account for \(settings.email): \(failure.detail); check server.tls.acme.email"
        case .order:
            return "the CA refused the order for \(domain): \(failure.detail); check that the domain points at this server and \(port) reaches it"
        case .authorization, .challenge:
            return "the CA could not validate \(domain) by \(settings.challengeType): \(failure.detail); check that \(domain) resolves to "
                + "this server and that \(port) reaches it from the internet"
        case .finalize:
            return "the CA did not issue the certificate for \(domain): \(failure.detail)"
        case .certificate:
            return "the certificate for \(domain) cannot be used or stored: \(failure.detail)"
        }
    }

    /// Account, order, challenge, CSR, chain; the new key and chain stored before they are served.
    func obtain() async throws -> (StoredCertificate, Int) {
        let client = ACMEClient(directoryURL: settings.directory, accountKey: try store.accountKey(), transport: transport)
        let key = P256.Signing.PrivateKey()
        let csr = try ACMECertificates.csr(domain: settings.domain, key: key)
        let chain = try await client.certificate(domain: settings.domain, csrDER: csr, email: settings.email, solver: solver)
        let issued = try StoredCertificate.parse(certPEM: Array(chain.utf8), keyPEM: Array(key.pemRepresentation.utf8),
                                                 domain: settings.domain).get()
        try store.save(issued, domain: settings.domain)
        return (issued, await client.nonceRetries)
    }

    /// Between a minute and ``checkInterval``.
    static func clamp(_ seconds: TimeInterval) -> Duration {
        .seconds(Int64(min(max(seconds, 60), Double(checkInterval.components.seconds))))
    }

    /// Checks on start, then when the last check said, and on SIGHUP, until shutdown.
    public var service: some Service { Runner(manager: self) }

    struct Runner: Service {
        let manager: ACMEManager

        func run() async throws {
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            let (triggers, trigger) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
            await cancelWhenGracefulShutdown {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in hangups { trigger.yield(true) }
                    }
                    group.addTask {
                        var delay = await manager.check(announce: true)
                        var iterator = triggers.makeAsyncIterator()
                        while !Task.isCancelled {
                            let wait = delay
                            let timer = Task {
                                if (try? await Task.sleep(for: wait)) != nil { trigger.yield(false) }
                            }
                            guard let announce = await iterator.next() else {
                                timer.cancel()
                                break
                            }
                            timer.cancel()
                            delay = await manager.check(announce: announce)
                        }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
            if let transport = manager.transport as? HTTPACMETransport { await transport.shutdown() }
        }
    }
}
