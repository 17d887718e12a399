/// Where a NATS connection goes and how it signs in, read from a URL as NATS' own clients write it:
/// `nats://host:4222`, `nats://user:password@host:4222`, `nats://token@host:4222`, several servers
/// separated by commas (`nats://a:4222,nats://b:4222`), and `tls://host:4222` for TLS: the server's
/// certificate is checked against the system's trusted roots, or the CA in ``TLS/caFile``.
public struct NATSOptions: Sendable, Equatable {
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var description: String { "\(host):\(port)" }
    }

    /// TLS to the server: the server's certificate must chain to these roots and name its host.
    public struct TLS: Sendable, Equatable {
        /// A PEM file of the CA that signed the server's certificate (a private CA); nil: the system's roots.
        public var caFile: String?
        public init(caFile: String? = nil) { self.caFile = caFile }
    }

    public var servers: [Server]
    /// Set by a `tls://` URL: every server is spoken to over TLS.
    public var tls: TLS?
    public var user: String?
    public var password: String?
    public var token: String?
    /// The name the server lists the connection under (`nats-server`'s monitoring shows it).
    public var name = "quire"
    /// Bytes of publications kept while disconnected, sent on reconnect; past it, publishing fails.
    public var reconnectBufferBytes = 8 * 1024 * 1024
    /// How long one attempt to reach a server may take.
    public var connectTimeout: Duration = .seconds(2)
    /// The longest wait between two attempts to reconnect.
    public var maxReconnectDelay: Duration = .seconds(2)

    public init(servers: [Server], user: String? = nil, password: String? = nil, token: String? = nil) {
        self.servers = servers
        self.user = user
        self.password = password
        self.token = token
    }

    /// Reads `url`; the error says what is wrong and what to write instead (and never repeats a password).
    public init(url: String) throws(NATSError) {
        var servers: [Server] = []
        var user: String?, password: String?, token: String?
        var schemes: Set<String> = []
        for part in url.split(separator: ",", omittingEmptySubsequences: true) {
            var rest = Substring(part.trimmingSpaces())
            if rest.hasPrefix("tls://") {
                schemes.insert("tls")
                rest = rest.dropFirst("tls://".count)
            } else {
                schemes.insert("nats")
                if rest.hasPrefix("nats://") { rest = rest.dropFirst("nats://".count) }
            }
            if let at = rest.lastIndex(of: "@") {
                let credentials = rest[..<at]
                rest = rest[rest.index(after: at)...]
                if let colon = credentials.firstIndex(of: ":") {
                    user = String(credentials[..<colon])
                    password = String(credentials[credentials.index(after: colon)...])
                } else {
                    token = String(credentials)
                }
            }
            if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
            var host = String(rest), port = 4222
            if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
                guard let number = Int(rest[rest.index(after: colon)...]), (1...65535).contains(number) else {
                    throw NATSError.invalidURL("'\(rest)' has no valid port; write nats://host:4222.")
                }
                host = String(rest[..<colon])
                port = number
            }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw NATSError.invalidURL("A NATS URL names a host; write nats://host:4222.") }
            servers.append(Server(host: host, port: port))
        }
        guard !servers.isEmpty else { throw NATSError.invalidURL("The NATS URL is empty; write nats://host:4222.") }
        guard schemes.count == 1 else {
            throw NATSError.invalidURL("The NATS URL mixes tls:// and nats:// servers; write every server with tls:// (or none).")
        }
        self.init(servers: servers, user: user, password: password, token: token)
        if schemes == ["tls"] { tls = TLS() }
    }
}

/// What can go wrong talking to NATS.
public struct NATSError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case invalidURL, unreachable, refused, disconnected, tooLarge, bufferFull, timedOut, closed
    }

    public var kind: Kind
    public var message: String
    public var description: String { message }

    static func invalidURL(_ message: String) -> NATSError { NATSError(kind: .invalidURL, message: message) }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
