import AppConfig
import HTTPKit
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS
import PluginKit
import QuireACME
import QuireTLS
import ServiceLifecycle
import Synchronization

/// HTTPS: TLS with the certificate ``TLSCertificates`` holds when the connection arrives, then
/// HTTP/2 or HTTP/1.1 as ALPN negotiated.
///
/// HummingbirdHTTP2's `HTTP2UpgradeChannel` serves its HTTP/1.1 side with a plain `HTTP1Channel`,
/// which cannot upgrade to a WebSocket, and fixes its TLS context when it is made. Browsers open a
/// WebSocket over HTTP/1.1 (ALPN `http/1.1`), so the HTTP/1.1 side here is the server's own
/// ``UpgradableServer`` (WebSocket upgrades, malformed heads answered with a problem), and each new
/// connection reads the current context, so that a renewed certificate needs no restart.
struct SecureServer: ServerChildChannel {
    typealias Negotiated = NIONegotiatedHTTPVersion<UpgradableServer.Value, HTTP2Channel.Value>

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let certificates: TLSCertificates
    let http1: UpgradableServer
    let http2: HTTP2Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            if certificates.hasACMEChallenges {
                // TLS-ALPN-01 pending: the ClientHello decides which certificate this connection gets.
                try channel.pipeline.syncOperations.addHandler(ACMEALPNSelector(certificates: certificates))
            } else {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: certificates.context))
            }
            let alpn = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                switch result {
                case .negotiated("h2"):
                    // Streams have their own timeouts (StreamProbe); HTTP/2's idle timeout closes a connection without any.
                    ConnectionWatch.of(channel)?.update { clock, _ in clock.multiplexed() }
                    return http2.setup(channel: channel, logger: logger).map { .http2($0) }
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).map { .http1_1($0) }
                case .negotiated:
                    return channel.close().flatMapThrowing { throw NIOHTTP2Errors.invalidALPNToken() }
                }
            }
            try channel.pipeline.syncOperations.addHandler(alpn)
            return Value(negotiated: alpn.protocolNegotiationResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1_1(let http1Value):
                await http1.handle(value: http1Value, logger: logger)
            case .http2(let http2Value):
                await http2.handle(value: http2Value, logger: logger)
            }
        } catch {
            // A failed handshake (a client that does not trust the certificate, a scanner): nothing to answer.
            logger.debug("TLS connection ended before HTTP", metadata: ["reason": "\(error)"])
        }
    }
}

/// What `server.tls` and `server.http_port` add to the server: the certificates (and their
/// watcher), and the plain-HTTP listener.
struct HTTPSSetup: Sendable {
    let certificates: TLSCertificates
    let localCA: LocalCA?
    let challenges: ACMEChallengeStore
    /// With `server.tls.acme`: gets and renews the certificate (its service replaces the certificate watcher).
    var acme: ACMEManager?

    /// Loads (or, with the local CA, issues) the certificate.
    /// - Throws: ``PluginSetupError`` saying what to fix.
    static func prepare(_ tls: AppConfig.TLS, server: AppConfig.Server, challenges: ACMEChallengeStore, logger: Logger) throws -> HTTPSSetup {
        var tlsLogger = logger
        tlsLogger[metadataKey: "component"] = "tls"
        let localCA = tls.localCA ? LocalCA(directory: tls.directory) : nil
        let source: TLSCertificates.Source
        var acme: ACMEManager?
        let served = ServedCertificates()
        if let settings = tls.acme {
            var acmeLogger = logger
            acmeLogger[metadataKey: "component"] = "acme"
            let manager = ACMEManager.make(settings, folder: "\(tls.directory)/acme", http01: server.httpPort != nil,
                                           challenges: challenges, served: served, logger: acmeLogger)
            do {
                let initial = try manager.initialCertificate()
                source = .provided(cert: initial.cert, key: initial.key)
            } catch {
                throw PluginSetupError("server.tls.acme: cannot make the temporary certificate for \(settings.domain) (\(error))")
            }
            acme = manager
        } else if let localCA {
            source = .localCA(localCA, boundHost: server.host)
        } else if let cert = tls.certFile, let key = tls.keyFile {
            source = .files(cert: cert, key: key)
        } else {
            throw PluginSetupError("server.tls: give cert_file and key_file, local_ca: true, or acme")
        }
        do {
            let certificates = try TLSCertificates(source: source, logger: tlsLogger)
            acme?.serve { try certificates.install(certPEM: $0, keyPEM: $1) }
            served.certificates.withLock { $0 = certificates }
            return HTTPSSetup(certificates: certificates, localCA: localCA, challenges: challenges, acme: acme)
        } catch let error as TLSSetupError {
            throw PluginSetupError(error.description)
        }
    }

    /// The plain-HTTP listener of `server.http_port`.
    func plainHTTP(server: AppConfig.Server, port: Int, httpsPort: Int, connections: ConnectionRegistry, logger: Logger) -> some Service {
        let site = PlainHTTPSite(httpsPort: httpsPort, fallbackHost: LANAddresses.isWildcard(server.host) ? "localhost" : server.host,
                                 challenges: challenges, localCA: localCA)
        return Application(responder: site,
                           // Counted and timed with the HTTPS listener's connections: one limit for the server's open files.
                           server: HTTPServerBuilder { responder in
                               GuardedServer(inner: HTTP1Channel(responder: responder), registry: connections, secure: false)
                           },
                           configuration: .init(address: .hostname(server.host, port: port), serverName: "Quire"),
                           onServerRunning: { channel in
                               logger.info(localCA == nil ? "Quire redirects plain HTTP to HTTPS"
                                                          : "Quire shows the phone setup page (the CA, a QR code) on plain HTTP; other paths redirect to HTTPS",
                                           metadata: [
                                   "address": "http://\(channel.localAddress?.ipAddress ?? "?"):\(channel.localAddress?.port ?? 0)"])
                           },
                           logger: logger)
    }
}

extension HTTPSSetup {
    /// Says where phones open the app: each reachable address over HTTPS, and, with the local CA,
    /// the plain-HTTP page that offers the CA.
    func announce(server: AppConfig.Server, port: Int, logger: Logger) {
        for address in LANAddresses.reachable(boundHost: server.host) {
            let host = address.contains(":") ? "[\(address)]" : address
            var metadata: Logger.Metadata = ["open": "https://\(host):\(port)/"]
            if localCA != nil, let httpPort = server.httpPort {
                metadata["trustTheCAFirst"] = "http://\(host):\(httpPort)/"
            }
            logger.notice("Open Quire on a phone", metadata: metadata)
        }
    }
}

extension ACMEManager {
    /// The manager of `server.tls.acme`: HTTP-01 answered from `challenges` on `server.http_port`
    /// when there is one, else TLS-ALPN-01 on the HTTPS port; files in `folder`.
    static func make(_ settings: AppConfig.ACME, folder: String, http01: Bool, challenges: ACMEChallengeStore, served: ServedCertificates,
                     logger: Logger) -> ACMEManager {
        let solver = http01
            ? ACMEChallengeSolver(type: "http-01", present: { _, token, keyAuthorization in
                challenges.set(token: token, keyAuthorization: keyAuthorization)
            }, cleanup: { _, token in
                challenges.remove(token: token)
            })
            : ACMEChallengeSolver(type: "tls-alpn-01", present: { domain, _, keyAuthorization in
                let (cert, key) = try ACMECertificates.selfSigned(domain: domain, keyAuthorization: keyAuthorization)
                guard let certificates = served.certificates.withLock({ $0 }) else {
                    throw ACMEFailure(.challenge, "the HTTPS server is not set up yet")
                }
                try certificates.setACMEChallenge(domain: domain, certPEM: cert, keyPEM: key)
            }, cleanup: { domain, _ in
                served.certificates.withLock { $0 }?.removeACMEChallenge(domain: domain)
            })
        return ACMEManager(
            settings: .init(domain: settings.domain, email: settings.email, directory: settings.directory,
                            directoryCAFile: settings.directoryCAFile, renewBeforeDays: settings.renewBeforeDays, challengeType: solver.type),
            store: ACMEStore(folder: folder), solver: solver, transport: HTTPACMETransport(caFile: settings.directoryCAFile), logger: logger)
    }
}

/// The HTTPS server's certificates, once made: the TLS-ALPN-01 solver is made before them.
final class ServedCertificates: Sendable {
    let certificates = Mutex<TLSCertificates?>(nil)
}
