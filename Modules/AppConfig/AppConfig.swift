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
        /// `server.memory_budget`: bytes large request work (uploads) may hold at once, in all.
        public var memoryBudget = AppConfig.defaultMemoryBudget
        /// `server.memory_budget_wait`: how long work waits for room in the budget before its 503.
        public var memoryBudgetWait = AppConfig.defaultMemoryBudgetWait
        /// Timeouts and connection bounds (`request_head_timeout`, `max_connections`, …).
        public var connections = Connections()
        /// `server.jobs`: the one queue of heavy jobs (imports).
        public var jobs = Jobs()
    }

    /// `server.jobs: { workers, max_jobs, max_jobs_per_user }`: imports and other long jobs run on
    /// `workers` workers (fairly shared between users); past `max_jobs` admitted in all a new one is
    /// refused with 503, past `max_jobs_per_user` for one user with 429, each with `Retry-After`.
    public struct Jobs: Sendable, Equatable {
        public var workers = 2
        public var maxJobs = 32
        public var maxJobsPerUser = 8

        public init(workers: Int = 2, maxJobs: Int = 32, maxJobsPerUser: Int = 8) {
            self.workers = workers
            self.maxJobs = maxJobs
            self.maxJobsPerUser = maxJobsPerUser
        }
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
        /// A certificate for a public domain from an ACME CA (Let's Encrypt), kept in `dir`/acme.
        public var acme: ACME?
    }

    /// `server.tls.acme`: the domain, the account's contact, and the CA's directory.
    public struct ACME: Sendable, Equatable {
        /// Let's Encrypt's production directory, the default.
        public static let letsEncrypt = "https://acme-v02.api.letsencrypt.org/directory"

        public var domain: String
        public var email: String
        public var directory: String
        /// A PEM file of the CA that signed the directory's HTTPS certificate (a test CA such as
        /// Pebble's); nil: the system's roots.
        public var directoryCAFile: String?
        /// Renew this many days before the certificate expires.
        public var renewBeforeDays: Int
        /// Where `directory_ca_file` is written, for a file that cannot be read.
        public var directoryCAFileLocation: SourceLocation
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
        self.server.memoryBudget = Self.readMemoryBudget(server)
        self.server.memoryBudgetWait = server.duration("memory_budget_wait", default: Self.defaultMemoryBudgetWait, in: .milliseconds(100) ... .seconds(600))
        self.server.connections = Self.readConnections(server)
        let jobs = server.section("jobs")
        self.server.jobs = Jobs(workers: jobs.int("workers", default: 2, in: 1...64), maxJobs: jobs.int("max_jobs", default: 32, in: 1...10_000),
                                maxJobsPerUser: jobs.int("max_jobs_per_user", default: 8, in: 1...10_000))
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
        let acmeSection = section.section("acme")
        let mistakesBefore = section.reader.diagnostics.count
        let acme = readACME(acmeSection)
        let acmeGiven = acme != nil || section.reader.diagnostics.count > mistakesBefore || !(acmeSection.string("domain") ?? "").isEmpty
        if acmeGiven, localCA || certFile != nil || keyFile != nil {
            section.report("acme", "cannot be used with cert_file/key_file or local_ca; choose one source of the certificate "
                           + "(acme gets one for a public domain by itself)")
        } else if let acme {
            tls = TLS(certFile: nil, keyFile: nil, localCA: false, directory: directory,
                      certFileLocation: section.location(of: "cert_file"), keyFileLocation: section.location(of: "key_file"), acme: acme)
        } else if localCA, certFile != nil || keyFile != nil {
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
                // An acme section with mistakes was reported already; http_port needing TLS would only add noise.
                if tls == nil, !acmeGiven {
                    server.report("http_port", "redirects to HTTPS, so it needs server.tls (cert_file and key_file, local_ca: true, or acme)")
                } else if number == port, port != 0 {
                    server.report("http_port", "must differ from server.port (\(port)), which serves HTTPS")
                }
            } else {
                server.report("http_port", "expected a whole number between 0 and 65535, found \"\(raw)\"")
            }
        }
        return (tls, httpPort)
    }

    /// `server.tls.acme`; nil when absent or when `domain` is empty (an unset `${QUIRE_ACME_DOMAIN:-}`).
    static func readACME(_ section: ConfigSection) -> ACME? {
        let nonEmpty = { (key: String) in section.string(key).flatMap { $0.isEmpty ? nil : $0 } }
        let email = nonEmpty("email")
        let directory = nonEmpty("directory") ?? ACME.letsEncrypt
        let caFile = nonEmpty("directory_ca_file")
        let renewBefore = section.int("renew_before_days", default: 30, in: 1...36500)
        guard let domain = nonEmpty("domain")?.lowercased() else {
            if email != nil || section.contains("directory") || caFile != nil {
                section.report("domain", "is required with acme; give the public name phones open, e.g. domain: photos.example.org")
            }
            return nil
        }
        var valid = true
        if !looksLikeDomain(domain) {
            section.report("domain", "expected a public DNS name such as photos.example.org (no address, port, scheme or wildcard), "
                           + "found \"\(domain)\"")
            valid = false
        }
        if email == nil {
            section.report("email", "is required with acme; the CA writes to it about the account and expiring certificates")
            valid = false
        } else if let email, !looksLikeEmail(email) {
            section.report("email", "expected an address such as you@example.org, found \"\(email)\"")
            valid = false
        }
        if !looksLikeHTTPSURL(directory) {
            section.report("directory", "expected the https:// URL of the CA's ACME directory (Let's Encrypt's: \(ACME.letsEncrypt)), "
                           + "found \"\(directory)\"")
            valid = false
        }
        guard valid, let email else { return nil }
        return ACME(domain: domain, email: email, directory: directory, directoryCAFile: caFile, renewBeforeDays: renewBefore,
                    directoryCAFileLocation: section.location(of: "directory_ca_file"))
    }

    /// A DNS name of two labels or more, letters, digits and hyphens (not an address: the last label has a letter).
    static func looksLikeDomain(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, text.utf8.count <= 253, let last = labels.last, last.contains(where: { $0.isLetter }) else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }
        }
    }

    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !text.contains(where: { $0.isWhitespace || $0 == "," })
    }

    /// `https://HOST[:PORT]/…`.
    static func looksLikeHTTPSURL(_ text: String) -> Bool {
        guard text.hasPrefix("https://"), !text.contains(where: { $0.isWhitespace }) else { return false }
        let host = text.dropFirst(8).prefix { $0 != "/" && $0 != ":" && $0 != "?" && $0 != "#" }
        return !host.isEmpty
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
