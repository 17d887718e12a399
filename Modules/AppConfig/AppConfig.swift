/// The host-level part of an app's YAML file: `app`, `server`, `bus` and the `plugins` map.
/// Each plugin reads its own section; see `PluginKit`.
public struct AppConfig: Sendable {
    public struct Server: Sendable, Equatable {
        public var host: String
        public var port: Int
        /// Largest request body accepted by JSON routes, in bytes.
        public var maxBodyBytes: Int
        /// Address blocks of reverse proxies (a load balancer) whose `X-Forwarded-For` names the
        /// client: sign-in throttles and share-link limits count the client, not the proxy.
        public var trustedProxies: [String] = []
        /// The bearer token Prometheus presents to read `/metrics`; without one `/metrics` is off.
        public var metricsToken: String?
        /// HTTPS on `port` (HTTP/2 and HTTP/1.1); nil: plain HTTP.
        public var tls: TLS?
        /// With `tls`: a plain-HTTP port that redirects to HTTPS and answers ACME challenges (and,
        /// with the local CA, shows the phone setup page at `/`).
        public var httpPort: Int?
    }

    /// `server.tls`: a certificate from files, or one the local CA issues.
    public struct TLS: Sendable, Equatable {
        /// PEM certificate chain, the server's first (with `key_file`).
        public var certFile: String?
        public var keyFile: String?
        /// Issue the certificate from a CA of this machine's own, kept in `dir`.
        public var localCA: Bool
        /// The local CA's folder.
        public var directory: String
        /// Where `cert_file` and `key_file` are written, for mistakes found in the files themselves.
        public var certFileLocation: SourceLocation
        public var keyFileLocation: SourceLocation
    }

    public struct Bus: Sendable, Equatable {
        /// `in-process` (one process) or `nats` (several, through a NATS server).
        public var transport: String
        /// With `nats`: the server(s), `nats://[token@|user:password@]host:4222[,nats://…]`.
        public var url: String?
        /// With `nats`: the first part of every subject, so that several deployments can share a server.
        public var subjectPrefix: String
        /// With `nats`: requests this process answers itself skip NATS (default); false sends every
        /// request across, to prove that every message crosses.
        public var localFirst: Bool
        /// With a `tls://` URL: the PEM file of the CA that signed the server's certificate (nil: the system's roots).
        public var tlsCAFile: String?
        /// With `nats`: plugins this node configures but does not run; workers (`quire-media serve`)
        /// answer their requests over NATS.
        public var remote: [String]

        public init(transport: String, url: String? = nil, subjectPrefix: String = "quire", localFirst: Bool = true, tlsCAFile: String? = nil,
                    remote: [String] = []) {
            self.transport = transport
            self.url = url
            self.subjectPrefix = subjectPrefix
            self.localFirst = localFirst
            self.tlsCAFile = tlsCAFile
            self.remote = remote
        }
    }

    /// One entry under `plugins:`.
    public struct PluginEntry: Sendable {
        public var id: String
        public var keyLocation: SourceLocation
        public var section: ConfigSection
    }

    /// The file the config came from.
    public var file: String
    public var app: String
    public var server: Server
    public var bus: Bus
    /// In file order.
    public var plugins: [PluginEntry]
    /// The reader, to report further mistakes and to finish.
    public let reader: ConfigReader

    /// Reads the host-level settings. Plugin sections are read later by their plugins; call
    /// `reader.finish()` once they have all been read.
    public init(root: ConfigNode, environment: [String: String]) {
        let reader = ConfigReader(root: root, environment: environment)
        let top = reader.rootSection
        self.reader = reader
        self.file = root.location.file
        self.app = top.requiredString("app")
        if !app.isEmpty, !app.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            top.report("app", "expected a name of letters, digits, - and _, found \"\(app)\"")
        }
        let server = top.section("server")
        self.server = Server(
            host: server.string("host", default: "127.0.0.1") ?? "127.0.0.1",
            port: server.int("port", default: 8080, in: 0...65535),
            maxBodyBytes: server.int("max_body_bytes", default: 1 << 20, in: 1024...(1 << 30)),
            trustedProxies: server.stringList("trusted_proxies", default: []),
            metricsToken: server.string("metrics_token").flatMap { $0.isEmpty ? nil : $0 })
        if let token = self.server.metricsToken, token.utf8.count < 16 {
            server.report("metrics_token", "must be at least 16 characters (generate one with: openssl rand -base64 24)")
        }
        (self.server.tls, self.server.httpPort) = Self.readTLS(server, port: self.server.port)
        for proxy in self.server.trustedProxies where !Self.looksLikeNetwork(proxy) {
            server.report("trusted_proxies", "expected address blocks such as 127.0.0.1/32 or 10.0.0.0/8, found \"\(proxy)\"")
        }
        let bus = top.section("bus")
        let transport = bus.choice("transport", ["in-process", "nats"], default: "in-process")
        var url = bus.string("url")
        let subjectPrefix = bus.string("subject_prefix", default: "quire") ?? "quire"
        let localFirst = bus.bool("local_first", default: true)
        let tlsCAFile = bus.string("tls_ca_file").flatMap { $0.isEmpty ? nil : $0 }
        if transport == "nats" {
            if url == nil || url?.isEmpty == true {
                bus.report("url", "is required with transport: nats; write url: nats://HOST:4222 (or ${QUIRE_NATS_URL})")
                url = nil
            } else if let given = url {
                let schemes = Set(given.split(separator: ",").map { part -> String in
                    let trimmed = part.drop(while: { $0 == " " })
                    return trimmed.hasPrefix("nats://") ? "nats" : trimmed.hasPrefix("tls://") ? "tls" : "?"
                })
                if schemes.contains("?") || schemes.count > 1 {
                    bus.report("url", "expected nats://HOST:PORT or, over TLS, tls://HOST:PORT (several separated by commas, one scheme)")
                } else if tlsCAFile != nil, schemes != ["tls"] {
                    bus.report("tls_ca_file", "is read only with a tls:// URL")
                }
            }
        } else if let given = url, !given.isEmpty {
            bus.report("url", "is read only with transport: nats")
        }
        if !subjectPrefix.isEmpty, !subjectPrefix.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            bus.report("subject_prefix", "expected letters, digits, - and _, found \"\(subjectPrefix)\"")
        }
        let remote = bus.stringList("remote", default: [], commaSeparated: true)
        if !remote.isEmpty, transport != "nats" {
            bus.report("remote", "is read only with transport: nats (workers answer a remote plugin's requests over NATS)")
        }
        self.bus = Bus(transport: transport, url: url, subjectPrefix: subjectPrefix, localFirst: localFirst, tlsCAFile: tlsCAFile,
                       remote: remote)
        let pluginsSection = top.section("plugins")
        reader.acceptAnyKeys(in: pluginsSection)
        if !top.contains("plugins") {
            top.report(nil, "'plugins' is missing; list the plugins this app uses, e.g. plugins: { storage: {} }")
        }
        self.plugins = pluginsSection.keys.map { key, location in
            PluginEntry(id: key, keyLocation: location, section: pluginsSection.section(key))
        }
        let enabled = Set(plugins.map(\.id))
        for id in remote where !enabled.contains(id) {
            bus.report("remote", "names '\(id)', which is not under plugins; a remote plugin is configured here and run by a worker")
        }
        if remote.contains("storage") {
            bus.report("remote", "cannot name storage: every node, workers included, runs storage on the shared database")
        }
    }

    /// Loads and reads a file.
    public static func load(file: String, environment: [String: String]) throws(ConfigError) -> AppConfig {
        AppConfig(root: try YAMLLoader.load(file: file), environment: environment)
    }
}

extension AppConfig {
    /// `server.tls` and `server.http_port`. An empty value (an unset `${VAR:-}`) reads as absent, so
    /// one file serves plain HTTP by default and HTTPS when the environment says so.
    static func readTLS(_ server: ConfigSection, port: Int) -> (TLS?, Int?) {
        let section = server.section("tls")
        let nonEmpty = { (key: String) in section.string(key).flatMap { $0.isEmpty ? nil : $0 } }
        let certFile = nonEmpty("cert_file"), keyFile = nonEmpty("key_file")
        let localCA = section.bool("local_ca", default: false)
        let directory = nonEmpty("dir") ?? "./data/tls"
        var tls: TLS?
        if localCA, certFile != nil || keyFile != nil {
            section.report("local_ca", "cannot be used with cert_file/key_file; use either the local CA (local_ca: true) or your own certificate")
        } else if certFile != nil, keyFile == nil {
            section.report("key_file", "is required with cert_file; give the PEM private key of the certificate")
        } else if keyFile != nil, certFile == nil {
            section.report("cert_file", "is required with key_file; give the PEM certificate chain, the server's certificate first")
        } else if localCA || certFile != nil {
            tls = TLS(certFile: certFile, keyFile: keyFile, localCA: localCA, directory: directory,
                      certFileLocation: section.location(of: "cert_file"), keyFileLocation: section.location(of: "key_file"))
        }
        var httpPort: Int?
        if let raw = server.string("http_port"), !raw.isEmpty {
            if let number = Int(raw), (0...65535).contains(number) {
                httpPort = number
                if tls == nil {
                    server.report("http_port", "redirects to HTTPS, so it needs server.tls (cert_file and key_file, or local_ca: true)")
                } else if number == port, port != 0 {
                    server.report("http_port", "must differ from server.port (\(port)), which serves HTTPS")
                }
            } else {
                server.report("http_port", "expected a whole number between 0 and 65535, found \"\(raw)\"")
            }
        }
        return (tls, httpPort)
    }

    /// `ADDRESS[/BITS]` with a numeric IPv4 or IPv6 address (the host parses it for real).
    static func looksLikeNetwork(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty,
              parts[0].allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else { return false }
        guard parts.count == 2 else { return true }
        return Int(parts[1]).map { (0...(parts[0].contains(":") ? 128 : 32)).contains($0) } ?? false
    }
}
