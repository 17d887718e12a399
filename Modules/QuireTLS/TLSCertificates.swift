import Foundation
import Logging
public import NIOSSL
import ServiceLifecycle
import SwiftASN1
import Synchronization
import UnixSignals
import X509

/// A TLS setup that cannot be used, saying what went wrong and what to do.
public struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The certificate and key files of `server.tls`, checked before the server starts.
public enum TLSFiles {
    /// A mistake in one of the two files.
    public struct Problem: Sendable, Equatable {
        public enum File: Sendable { case certificate, key }
        public var file: File
        public var message: String
    }

    /// What is wrong with the pair (nothing when the server can use it): a file missing or
    /// unreadable, not PEM, a key that does not belong to the certificate, a certificate expired.
    public static func check(certFile: String, keyFile: String, now: Date = Date()) -> [Problem] {
        var problems: [Problem] = []
        let certText = read(certFile, what: "certificate", file: .certificate, into: &problems)
        let keyText = read(keyFile, what: "private key", file: .key, into: &problems)
        var leaf: Certificate?
        if let certText {
            do {
                let documents = try PEMDocument.parseMultiple(pemString: certText).filter { $0.discriminator == "CERTIFICATE" }
                guard let first = documents.first else { throw TLSSetupError("no CERTIFICATE block") }
                leaf = try Certificate(derEncoded: first.derBytes)
            } catch {
                problems.append(Problem(file: .certificate, message: "\(certFile) is not a PEM certificate (\(error)); give the "
                                        + "certificate chain in PEM, the server's certificate first (-----BEGIN CERTIFICATE-----)"))
            }
        }
        if let leaf, leaf.notValidAfter < now {
            problems.append(Problem(file: .certificate, message: "the certificate in \(certFile) expired on \(leaf.notValidAfter); renew it "
                                    + "(tailscale cert, or your CA) and write the new one to this file"))
        }
        var key: Certificate.PrivateKey?
        if let keyText {
            do {
                key = try Certificate.PrivateKey(pemEncoded: keyText)
            } catch {
                // An unusual form swift-certificates does not read (e.g. an old RSA form); BoringSSL decides.
                if (try? NIOSSLPrivateKey(bytes: Array(keyText.utf8), format: .pem)) == nil {
                    problems.append(Problem(file: .key, message: "\(keyFile) is not a PEM private key; give the key of the certificate, "
                                            + "unencrypted, in PEM (-----BEGIN PRIVATE KEY----- or -----BEGIN EC PRIVATE KEY-----)"))
                }
            }
        }
        if let leaf, let key, key.publicKey != leaf.publicKey {
            problems.append(Problem(file: .key, message: "the key in \(keyFile) does not match the certificate in \(certFile); give the "
                                    + "key the certificate was issued for"))
        }
        return problems
    }

    private static func read(_ path: String, what: String, file: Problem.File, into problems: inout [Problem]) -> String? {
        guard FileManager.default.fileExists(atPath: path) else {
            problems.append(Problem(file: file, message: "the \(what) file \(path) does not exist; check the path (relative paths start "
                                    + "from the directory quire runs in)"))
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            problems.append(Problem(file: file, message: "the \(what) file \(path) cannot be read; make it readable by the user quire runs as"))
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A TLS context serving `certPEM`/`keyPEM`, offering HTTP/2 and HTTP/1.1 by ALPN.
    static func context(certPEM: [UInt8], keyPEM: [UInt8]) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMBytes(certPEM)
        guard !chain.isEmpty else { throw TLSSetupError("no certificate in the file") }
        let key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
        // BoringSSL takes a key of another certificate here and fails every handshake later.
        if let parsed = try? Certificate.PrivateKey(pemEncoded: String(decoding: keyPEM, as: UTF8.self)),
           let leaf = try? Certificate(derEncoded: try chain[0].toDERBytes()), parsed.publicKey != leaf.publicKey {
            throw TLSSetupError("the key does not match the certificate")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.applicationProtocols = ["h2", "http/1.1"]
        return try NIOSSLContext(configuration: configuration)
    }
}

/// The server's certificate, as new connections get it: read from `cert_file`/`key_file`, or issued
/// by the ``LocalCA``; checked again by ``watcher(interval:)`` every minute and on SIGHUP, so that a
/// renewed certificate (or, with the local CA, new addresses) needs no restart. Connections already
/// open keep the certificate they started with.
public final class TLSCertificates: Sendable {
    public enum Source: Sendable {
        case files(cert: String, key: String)
        /// Issued for the addresses of the machine (or `boundHost`, when it is not a wildcard).
        case localCA(LocalCA, boundHost: String)
        /// Given in PEM by the server itself (the ACME client), which replaces it with ``install(certPEM:keyPEM:)``.
        case provided(cert: [UInt8], key: [UInt8])
    }

    private struct Loaded: Sendable {
        var context: NIOSSLContext
        var certPEM: [UInt8]
        var keyPEM: [UInt8]
    }

    public let source: Source
    private let loaded: Mutex<Loaded>
    /// TLS-ALPN-01 challenges pending, by domain.
    private let alpnChallenges = Mutex<[String: NIOSSLContext]>([:])
    private let logger: Logger

    /// Loads the certificate (issuing it first with the local CA).
    /// - Throws: ``TLSSetupError`` saying what to fix.
    public init(source: Source, logger: Logger) throws {
        self.source = source
        self.logger = logger
        if case .provided(let cert, let key) = source {
            do {
                loaded = Mutex(Loaded(context: try TLSFiles.context(certPEM: cert, keyPEM: key), certPEM: cert, keyPEM: key))
            } catch {
                throw TLSSetupError("server.tls: the certificate cannot serve TLS (\(error))")
            }
            return
        }
        let files = try Self.prepare(source, logger: logger)
        let (cert, key) = try Self.read(files)
        do {
            loaded = Mutex(Loaded(context: try TLSFiles.context(certPEM: cert, keyPEM: key), certPEM: cert, keyPEM: key))
        } catch {
            throw TLSSetupError("server.tls: \(files.cert) and \(files.key) cannot serve TLS (\(error)); check that they are the PEM "
                                + "certificate chain and its unencrypted key")
        }
    }

    /// Serves `certPEM` (the chain, leaf first) with `keyPEM` to new connections from now on.
    /// - Throws: when the pair cannot serve TLS; the certificate in use is kept.
    public func install(certPEM: [UInt8], keyPEM: [UInt8]) throws {
        let context = try TLSFiles.context(certPEM: certPEM, keyPEM: keyPEM)
        loaded.withLock { $0 = Loaded(context: context, certPEM: certPEM, keyPEM: keyPEM) }
    }

    /// Answers TLS-ALPN-01 for `domain` with this certificate (RFC 8737) until removed: a
    /// connection offering only `acme-tls/1` for that name gets it instead of the server's.
    public func setACMEChallenge(domain: String, certPEM: [UInt8], keyPEM: [UInt8]) throws {
        let context = try Self.acmeChallengeContext(certPEM: certPEM, keyPEM: keyPEM)
        alpnChallenges.withLock { $0[domain.lowercased()] = context }
    }

    public func removeACMEChallenge(domain: String) {
        _ = alpnChallenges.withLock { $0.removeValue(forKey: domain.lowercased()) }
    }

    /// Whether a TLS-ALPN-01 challenge is pending (new connections' ClientHello is read first).
    public var hasACMEChallenges: Bool { alpnChallenges.withLock { !$0.isEmpty } }

    func acmeChallengeContext(serverName: String?) -> NIOSSLContext? {
        guard let serverName else { return nil }
        return alpnChallenges.withLock { $0[serverName] }
    }

    /// The context for a connection accepted now.
    public var context: NIOSSLContext { loaded.withLock { $0.context } }

    /// The PEM of the certificate chain now served.
    public var certificatePEM: [UInt8] { loaded.withLock { $0.certPEM } }

    /// Re-issues (local CA) or re-reads (files) the certificate; a changed one serves new
    /// connections from now on. A pair that does not work (a key written before its certificate)
    /// is logged and the one in use kept, to be tried again at the next check.
    /// - Returns: whether the certificate served changed.
    @discardableResult
    public func refresh() -> Bool {
        if case .provided = source { return false }
        do {
            let files = try Self.prepare(source, logger: logger)
            let (cert, key) = try Self.read(files)
            let unchanged = loaded.withLock { $0.certPEM == cert && $0.keyPEM == key }
            if unchanged { return false }
            let context = try TLSFiles.context(certPEM: cert, keyPEM: key)
            loaded.withLock { $0 = Loaded(context: context, certPEM: cert, keyPEM: key) }
            logger.notice("TLS: serving the new certificate to new connections", metadata: ["file": "\(files.cert)"])
            return true
        } catch {
            logger.warning("TLS: the certificate could not be reloaded; still serving the previous one. Check the files; they are read again within a minute or on SIGHUP.", metadata: ["reason": "\(error)"])
            return false
        }
    }

    private static func prepare(_ source: Source, logger: Logger) throws -> (cert: String, key: String) {
        switch source {
        case .files(let cert, let key):
            return (cert, key)
        case .provided:
            throw TLSSetupError("server.tls: the certificate is given by the server, not read from files")
        case .localCA(let ca, let boundHost):
            let names = LANAddresses.serverNames(boundHost: boundHost)
            if try ca.ensureServerCertificate(for: names) {
                logger.notice("TLS: the local CA issued a server certificate", metadata: [
                    "names": "\((names.dnsNames + names.ipAddresses).joined(separator: ","))", "dir": "\(ca.directory)"])
            }
            return (ca.serverCertificatePath, ca.serverKeyPath)
        }
    }

    private static func read(_ files: (cert: String, key: String)) throws -> (cert: [UInt8], key: [UInt8]) {
        guard let cert = FileManager.default.contents(atPath: files.cert) else {
            throw TLSSetupError("server.tls: cannot read the certificate file \(files.cert); check it exists and is readable")
        }
        guard let key = FileManager.default.contents(atPath: files.key) else {
            throw TLSSetupError("server.tls: cannot read the key file \(files.key); check it exists and is readable")
        }
        return (Array(cert), Array(key))
    }

    /// A service that calls ``refresh()`` every `interval` and on SIGHUP until shutdown.
    public func watcher(interval: Duration = .seconds(60)) -> some Service {
        Watcher(certificates: self, interval: interval)
    }

    struct Watcher: Service {
        let certificates: TLSCertificates
        let interval: Duration

        func run() async throws {
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            await cancelWhenGracefulShutdown {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in hangups { certificates.refresh() }
                    }
                    group.addTask {
                        while (try? await Task.sleep(for: interval)) != nil { certificates.refresh() }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}
