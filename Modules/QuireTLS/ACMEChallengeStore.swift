import Synchronization

/// The answers to ACME HTTP-01 challenges, by token, that the plain-HTTP listener (`server.http_port`)
/// serves at `/.well-known/acme-challenge/{token}`.
///
/// The seam for an ACME client (`server.tls.acme`, `Modules/QuireACME`): it puts a token's key
/// authorization here before it asks the CA to validate, removes it afterwards, and hands the
/// certificate it gets to ``TLSCertificates/install(certPEM:keyPEM:)`` for new connections.
public final class ACMEChallengeStore: Sendable {
    private let answers = Mutex<[String: String]>([:])

    public init() {}

    /// Serves `keyAuthorization` for `token` until it is removed.
    public func set(token: String, keyAuthorization: String) {
        answers.withLock { $0[token] = keyAuthorization }
    }

    public func remove(token: String) {
        _ = answers.withLock { $0.removeValue(forKey: token) }
    }

    /// The key authorization for `token`, or nil when no challenge with that token is pending.
    public func lookup(token: String) -> String? {
        answers.withLock { $0[token] }
    }
}
