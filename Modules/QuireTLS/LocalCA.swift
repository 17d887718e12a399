import Crypto
import Foundation
import SwiftASN1
import X509

/// The names a server certificate is for: DNS names and IP addresses (as text).
public struct ServerNames: Sendable, Equatable {
    public var dnsNames: [String]
    public var ipAddresses: [String]

    public init(dnsNames: [String], ipAddresses: [String]) {
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
    }
}

/// A small certificate authority of this machine's own, for a LAN without a domain: made on first
/// start in `directory` (its key readable by the owner only), it issues the server a certificate for
/// the machine's addresses and `<hostname>.local`, again when they change or a month before it
/// expires. Phones trust it once (the setup page on `server.http_port` offers `/quire-ca.crt`).
/// P-256 keys throughout; certificates kept to what iOS and Android accept (a leaf of 397 days with
/// subjectAltName and serverAuth).
public struct LocalCA: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public var caKeyPath: String { "\(directory)/quire-ca.key" }
    public var caCertificatePath: String { "\(directory)/quire-ca.crt" }
    public var serverKeyPath: String { "\(directory)/server.key" }
    public var serverCertificatePath: String { "\(directory)/server.crt" }

    static let caLifetime: TimeInterval = 10 * 365 * 86_400
    static let serverLifetime: TimeInterval = 397 * 86_400
    static let renewBefore: TimeInterval = 30 * 86_400

    /// The CA's certificate in DER, for phones to download.
    public func caCertificateDER() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(try loadCA().certificate)
        return serializer.serializedBytes
    }

    /// Makes the CA when there is none yet, then issues the server certificate when there is none,
    /// it is not for `names`, not signed by this CA, or expires within 30 days.
    /// - Returns: whether a server certificate was issued.
    /// - Throws: ``TLSSetupError`` when the directory or its files cannot be written or read.
    @discardableResult
    public func ensureServerCertificate(for names: ServerNames, now: Date = Date()) throws -> Bool {
        let ca = try loadOrMakeCA(now: now)
        if let current = try? Certificate(pemEncoded: String(decoding: FileManager.default.contents(atPath: serverCertificatePath) ?? Data(), as: UTF8.self)),
           FileManager.default.fileExists(atPath: serverKeyPath),
           current.issuer == ca.certificate.subject,
           ca.certificate.publicKey.isValidSignature(current.signature, for: current),
           current.notValidAfter.timeIntervalSince(now) > Self.renewBefore,
           Self.names(of: current) == Self.normalized(names) {
            return false
        }
        let key = P256.Signing.PrivateKey()
        let certificate = try Self.issue(names: names, publicKey: Certificate.PublicKey(key.publicKey), ca: ca, now: now)
        // The key first: a reload between the two writes then finds a pair that does not match and
        // keeps the certificate it has until the next check.
        try write(Array(key.pemRepresentation.utf8), to: serverKeyPath, private: true)
        try write(Array(try certificate.serializeAsPEM().pemString.utf8), to: serverCertificatePath, private: false)
        return true
    }

    struct Authority {
        var key: P256.Signing.PrivateKey
        var certificate: Certificate
    }

    func loadCA() throws -> Authority {
        guard let keyData = FileManager.default.contents(atPath: caKeyPath),
              let certData = FileManager.default.contents(atPath: caCertificatePath) else {
            throw TLSSetupError("the local CA in \(directory) is incomplete (\(caKeyPath) or \(caCertificatePath) cannot be read); "
                                + "check its permissions, or move the folder away to make a new CA (phones must then trust the new one)")
        }
        do {
            let key = try P256.Signing.PrivateKey(pemRepresentation: String(decoding: keyData, as: UTF8.self))
            let certificate = try Certificate(pemEncoded: String(decoding: certData, as: UTF8.self))
            guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
                throw TLSSetupError("the key does not match the certificate")
            }
            return Authority(key: key, certificate: certificate)
        } catch {
            throw TLSSetupError("the local CA in \(directory) cannot be read (\(error)); move the folder away to make a new CA "
                                + "(phones must then trust the new one)")
        }
    }

    func loadOrMakeCA(now: Date) throws -> Authority {
        let manager = FileManager.default
        if manager.fileExists(atPath: caKeyPath) || manager.fileExists(atPath: caCertificatePath) {
            // Owner-only, whatever a copy or an umask did to it.
            try? manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: caKeyPath)
            return try loadCA()
        }
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw TLSSetupError("cannot make the local CA's folder \(directory) (\(error.localizedDescription)); make it writable "
                                + "or set server.tls.dir to a folder quire can write")
        }
        let key = P256.Signing.PrivateKey()
        let host = Self.hostName()
        let name = try DistinguishedName {
            OrganizationName("Quire")
            CommonName("Quire local CA (\(host))")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Self.caLifetime),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        try write(Array(key.pemRepresentation.utf8), to: caKeyPath, private: true)
        try write(Array(try certificate.serializeAsPEM().pemString.utf8), to: caCertificatePath, private: false)
        return Authority(key: key, certificate: certificate)
    }

    static func issue(names: ServerNames, publicKey: Certificate.PublicKey, ca: Authority, now: Date) throws -> Certificate {
        var general: [GeneralName] = names.dnsNames.map { .dnsName($0) }
        for address in names.ipAddresses {
            if let bytes = IPBytes.parse(address) { general.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes)))) }
        }
        let authorityKey = try? ca.certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let subject = try DistinguishedName {
            OrganizationName("Quire")
            CommonName(names.dnsNames.first ?? names.ipAddresses.first ?? "quire")
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(serverLifetime),
            issuer: ca.certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(general)
                SubjectKeyIdentifier(hash: publicKey)
                if let authorityKey { AuthorityKeyIdentifier(keyIdentifier: authorityKey) }
            },
            issuerPrivateKey: Certificate.PrivateKey(ca.key))
    }

    /// The names a certificate's subjectAltName lists, in the form ``normalized(_:)`` gives.
    static func names(of certificate: Certificate) -> Set<String> {
        guard let alternatives = try? certificate.extensions.subjectAlternativeNames else { return [] }
        var result = Set<String>()
        for name in alternatives {
            switch name {
            case .dnsName(let dns): result.insert("dns:\(dns.lowercased())")
            case .ipAddress(let octets): result.insert("ip:\(Array(octets.bytes).map(String.init).joined(separator: "."))")
            default: break
            }
        }
        return result
    }

    static func normalized(_ names: ServerNames) -> Set<String> {
        Set(names.dnsNames.map { "dns:\($0.lowercased())" })
            .union(names.ipAddresses.compactMap { IPBytes.parse($0).map { "ip:\($0.map(String.init).joined(separator: "."))" } })
    }

    /// This machine's name as a DNS label (for `<hostname>.local` and the CA's name).
    public static func hostName() -> String {
        let raw = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "quire"
        let label = String(raw.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(63))
        return label.isEmpty ? "quire" : label
    }

    private func write(_ bytes: [UInt8], to path: String, private isPrivate: Bool) throws {
        let temporary = "\(path).\(UUID().uuidString).tmp"
        let manager = FileManager.default
        guard manager.createFile(atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: isPrivate ? 0o600 : 0o644]) else {
            throw TLSSetupError("cannot write \(temporary) for the local CA; make \(directory) writable by the user quire runs as")
        }
        if rename(temporary, path) != 0 {
            try? manager.removeItem(atPath: temporary)
            throw TLSSetupError("cannot replace \(path) for the local CA; make \(directory) writable by the user quire runs as")
        }
    }
}
