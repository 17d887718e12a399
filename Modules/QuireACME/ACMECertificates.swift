public import Crypto
public import Foundation
import SwiftASN1
import X509

/// The certificates ACME needs that are not the CA's: the CSR sent to finalize an order, the
/// placeholder served before the first certificate arrives, and the TLS-ALPN-01 answer.
public enum ACMECertificates {
    /// A PKCS #10 request (DER) for `domain`, signed by `key`: the name in the subject and in a
    /// subjectAltName, as RFC 8555 §7.4 asks.
    public static func csr(domain: String, key: P256.Signing.PrivateKey) throws -> [UInt8] {
        let extensions = try Certificate.Extensions { SubjectAlternativeNames([.dnsName(domain)]) }
        let request = try CertificateSigningRequest.Attribute(ExtensionRequest(extensions: extensions))
        let csr = try CertificateSigningRequest(
            version: .v1, subject: try DistinguishedName { CommonName(domain) }, privateKey: Certificate.PrivateKey(key),
            attributes: CertificateSigningRequest.Attributes([request]), signatureAlgorithm: .ecdsaWithSHA256)
        var serializer = DER.Serializer()
        try serializer.serialize(csr)
        return serializer.serializedBytes
    }

    /// id-pe-acmeIdentifier (RFC 8737 §6.1).
    public static let acmeIdentifierOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 1, 31]

    /// A self-signed certificate for `domain`, valid a day. With `keyAuthorization`, it is the
    /// TLS-ALPN-01 answer (RFC 8737 §3): the critical id-pe-acmeIdentifier extension holds the
    /// SHA-256 of the key authorization. Without, it is the placeholder served until the CA's
    /// certificate arrives.
    /// - Returns: the certificate and key in PEM.
    public static func selfSigned(domain: String, keyAuthorization: String? = nil, now: Date = Date()) throws -> (cert: [UInt8], key: [UInt8]) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(keyAuthorization == nil ? "\(domain) (temporary: waiting for the ACME CA)" : domain)
        }
        var extensions = try Certificate.Extensions { SubjectAlternativeNames([.dnsName(domain)]) }
        if let keyAuthorization {
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1OctetString(contentBytes: ArraySlice(SHA256.hash(data: Data(keyAuthorization.utf8)))))
            try extensions.append(Certificate.Extension(oid: acmeIdentifierOID, critical: true, value: ArraySlice(serializer.serializedBytes)))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: Certificate.PrivateKey(key))
        return (Array(try certificate.serializeAsPEM().pemString.utf8), Array(key.pemRepresentation.utf8))
    }
}

/// A certificate chain for one domain as stored: the leaf, what it says, and its key.
public struct StoredCertificate: Sendable {
    public var certPEM: [UInt8]
    public var keyPEM: [UInt8]
    public var notValidAfter: Date
    /// The issuer's common name (the CA's intermediate, e.g. "R11").
    public var issuer: String
    public var dnsNames: [String]

    /// Reads a chain (leaf first) and its key; nil with the reason when they cannot serve `domain`.
    public static func parse(certPEM: [UInt8], keyPEM: [UInt8], domain: String) -> Result<StoredCertificate, ACMEFailure> {
        do {
            let documents = try PEMDocument.parseMultiple(pemString: String(decoding: certPEM, as: UTF8.self))
                .filter { $0.discriminator == "CERTIFICATE" }
            guard let first = documents.first else { return .failure(ACMEFailure(.certificate, "no certificate in the chain")) }
            let leaf = try Certificate(derEncoded: first.derBytes)
            let key = try Certificate.PrivateKey(pemEncoded: String(decoding: keyPEM, as: UTF8.self))
            guard key.publicKey == leaf.publicKey else {
                return .failure(ACMEFailure(.certificate, "the key does not belong to the certificate"))
            }
            let names = (try leaf.extensions.subjectAlternativeNames.map { Array($0) } ?? []).compactMap { name -> String? in
                if case .dnsName(let dns) = name { return dns.lowercased() }
                return nil
            }
            guard names.contains(domain) else {
                return .failure(ACMEFailure(.certificate, "the certificate names \(names.joined(separator: ", ")), not \(domain)"))
            }
            return .success(StoredCertificate(certPEM: certPEM, keyPEM: keyPEM, notValidAfter: leaf.notValidAfter,
                                              issuer: commonName(of: leaf.issuer) ?? "\(leaf.issuer)", dnsNames: names))
        } catch {
            return .failure(ACMEFailure(.certificate, "the chain or its key cannot be read (\(error))"))
        }
    }

    static func commonName(of name: DistinguishedName) -> String? {
        for rdn in name {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                return "\(attribute.value)"
            }
        }
        return nil
    }
}

/// The files of `server.tls.dir`/acme: the account key, and each domain's chain and key. Keys are
/// written 0600 in a 0700 folder, each file whole (a temporary file renamed).
public struct ACMEStore: Sendable {
    public let folder: String

    public init(folder: String) { self.folder = folder }

    public var accountKeyPath: String { "\(folder)/account.key" }
    public func certificatePath(_ domain: String) -> String { "\(folder)/\(domain).crt" }
    public func keyPath(_ domain: String) -> String { "\(folder)/\(domain).key" }

    /// The account's key, made and written on first use.
    public func accountKey() throws -> ACMEAccountKey {
        if let data = FileManager.default.contents(atPath: accountKeyPath) {
            do {
                return ACMEAccountKey(try P256.Signing.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self)))
            } catch {
                throw ACMEFailure(.account, "\(accountKeyPath) is not a P-256 private key in PEM; move it away and a new account is made")
            }
        }
        let key = P256.Signing.PrivateKey()
        try write(Array(key.pemRepresentation.utf8), to: accountKeyPath, private: true)
        return ACMEAccountKey(key)
    }

    /// The stored chain for `domain`, whatever its dates; nil when there is none (or it is unusable).
    public func stored(domain: String) -> StoredCertificate? {
        guard let cert = FileManager.default.contents(atPath: certificatePath(domain)),
              let key = FileManager.default.contents(atPath: keyPath(domain)) else { return nil }
        return try? StoredCertificate.parse(certPEM: Array(cert), keyPEM: Array(key), domain: domain).get()
    }

    /// Writes the key, then the chain: a crash between leaves a pair that does not match, which is
    /// read as no certificate (and a new one is ordered).
    public func save(_ certificate: StoredCertificate, domain: String) throws {
        try write(certificate.keyPEM, to: keyPath(domain), private: true)
        try write(certificate.certPEM, to: certificatePath(domain), private: false)
    }

    func write(_ bytes: [UInt8], to path: String, private isPrivate: Bool) throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ACMEFailure(.certificate, "cannot make the folder \(folder) (\(error.localizedDescription)); make server.tls.dir writable by the user quire runs as")
        }
        let temporary = "\(path).tmp-\(ProcessInfo.processInfo.processIdentifier)"
        guard manager.createFile(atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: isPrivate ? 0o600 : 0o644]) else {
            throw ACMEFailure(.certificate, "cannot write \(temporary); make \(folder) writable by the user quire runs as")
        }
        if rename(temporary, path) != 0 {
            try? manager.removeItem(atPath: temporary)
            throw ACMEFailure(.certificate, "cannot replace \(path) (errno \(errno)); make \(folder) writable by the user quire runs as")
        }
    }
}
