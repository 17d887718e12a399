import AppConfig
import Testing

@Suite("App config: reading YAML strictly")
struct AppConfigTests {
    func load(_ yaml: String, environment: [String: String] = [:]) throws -> AppConfig {
        AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"), environment: environment)
    }

    @Test("a good file reads with defaults filled in")
    func good() throws {
        let config = try load("""
            app: napkin-notes
            server: { port: 9000 }
            plugins:
              storage: {}
            """)
        #expect(config.app == "napkin-notes")
        #expect(config.server.host == "127.0.0.1" && config.server.port == 9000 && config.server.maxBodyBytes == 1 << 20)
        #expect(config.bus.transport == "in-process")
        #expect(config.plugins.map(\.id) == ["storage"])
        #expect(config.plugins[0].keyLocation == SourceLocation(file: "app.yaml", line: 4, column: 3))
        try config.reader.finish()
    }

    @Test("YAML syntax errors point at their line and column")
    func syntax() {
        #expect {
            _ = try YAMLLoader.parse("app: x\nserver: { port: 80\n", file: "bad.yaml")
        } throws: { error in
            guard let error = error as? ConfigError, let first = error.diagnostics.first else { return false }
            return first.location.file == "bad.yaml" && first.location.line >= 2 && first.message.contains("YAML syntax error")
        }
    }

    @Test("an unknown key is reported where it stands, with what was expected")
    func unknownKey() throws {
        let config = try load("""
            app: a
            server: { host: 127.0.0.1, prot: 80 }
            plugins: {}
            """)
        let error = try #require(throws: ConfigError.self) { try config.reader.finish() }
        #expect(error.diagnostics.count == 1)
        #expect(error.description == "app.yaml:2:28: server.prot: unknown key; expected one of: body_min_rate, body_rate_grace, host, http_port, idle_timeout, jobs, max_body_bytes, max_connections, max_connections_per_address, memory_budget, memory_budget_wait, metrics_token, port, request_head_timeout, tls, trusted_proxies, websocket_handshake_timeout")
    }

    @Test("wrong types and out-of-range values are reported at the value")
    func wrongValues() throws {
        let config = try load("""
            app: a
            server:
              port: eighty
              max_body_bytes: 5
            bus: { transport: carrier-pigeon }
            plugins: {}
            """)
        let error = try #require(throws: ConfigError.self) { try config.reader.finish() }
        let lines = error.diagnostics.map(\.description)
        #expect(lines == [
            "app.yaml:3:9: server.port: expected a whole number between 0 and 65535, found \"eighty\"",
            "app.yaml:4:19: server.max_body_bytes: expected a whole number between 1024 and 1073741824, found 5",
            "app.yaml:5:19: bus.transport: expected one of in-process, nats, found \"carrier-pigeon\"",
        ])
    }

    @Test("the bus over NATS: a URL is required, nats:// or tls://, read only with that transport; a CA file only with tls://")
    func natsBus() throws {
        let good = try load("app: a\nbus: { transport: nats, url: 'nats://tok@10.0.0.5:4222', subject_prefix: prod }\nplugins: {}\n")
        try good.reader.finish()
        #expect(good.bus == AppConfig.Bus(transport: "nats", url: "nats://tok@10.0.0.5:4222", subjectPrefix: "prod"))
        let tls = try load("app: a\nbus: { transport: nats, url: 'tls://tok@nats.example:4222', tls_ca_file: /etc/quire/ca.pem }\nplugins: {}\n")
        try tls.reader.finish()
        #expect(tls.bus.tlsCAFile == "/etc/quire/ca.pem")
        let remote = try load("app: a\nbus: { transport: nats, url: 'nats://h:4222', remote: [media, drawing] }\nplugins: { storage: {}, media: {}, drawing: {} }\n")
        #expect(remote.bus.remote == ["media", "drawing"])
        let fromEnvironment = AppConfig(root: try YAMLLoader.parse("app: a\nbus: { transport: nats, url: 'nats://h:4222', remote: '${QUIRE_REMOTE:-}' }\nplugins: { storage: {}, media: {} }\n",
                                                                   file: "app.yaml"), environment: ["QUIRE_REMOTE": "media, "])
        #expect(fromEnvironment.bus.remote == ["media"])
        let noneFromEnvironment = AppConfig(root: try YAMLLoader.parse("app: a\nbus: { remote: '${QUIRE_REMOTE:-}' }\nplugins: {}\n", file: "app.yaml"),
                                            environment: [:])
        #expect(noneFromEnvironment.bus.remote.isEmpty)
        try noneFromEnvironment.reader.finish()
        for (yaml, message) in [
            ("bus: { transport: nats }", "bus.url: is required with transport: nats"),
            ("bus: { transport: nats, url: 'http://h:4222' }", "bus.url: expected nats://HOST:PORT"),
            ("bus: { transport: nats, url: 'tls://a:4222,nats://b:4222' }", "one scheme"),
            ("bus: { transport: nats, url: 'nats://h:4222', tls_ca_file: /etc/ca.pem }", "bus.tls_ca_file: is read only with a tls:// URL"),
            ("bus: { url: 'nats://h:4222' }", "bus.url: is read only with transport: nats"),
            ("bus: { transport: nats, url: 'nats://h', subject_prefix: 'a.b' }", "bus.subject_prefix: expected letters"),
            ("bus: { remote: [media] }", "bus.remote: is read only with transport: nats"),
            ("bus: { transport: nats, url: 'nats://h:4222', remote: [telepathy] }", "bus.remote: names 'telepathy', which is not under plugins"),
            ("bus: { transport: nats, url: 'nats://h:4222', remote: [storage] }", "bus.remote: cannot name storage"),
        ] {
            let config = try load("app: a\n\(yaml)\nplugins: { storage: {}, media: {} }\n")
            let error = try #require(throws: ConfigError.self) { try config.reader.finish() }
            #expect(error.diagnostics.contains { $0.description.contains(message) }, "\(yaml): \(error.diagnostics)")
        }
    }

    @Test("server.trusted_proxies takes address blocks and explains anything else; an empty bus URL is no URL (in-process)")
    func trustedProxies() throws {
        let good = try load("app: a\nserver: { trusted_proxies: [127.0.0.1/32, '::1', 10.0.0.0/8] }\nbus: { url: '' }\nplugins: {}\n")
        try good.reader.finish()
        #expect(good.server.trustedProxies == ["127.0.0.1/32", "::1", "10.0.0.0/8"])
        let bad = try load("app: a\nserver: { trusted_proxies: [localhost, 10.0.0.0/99] }\nplugins: {}\n")
        let error = try #require(throws: ConfigError.self) { try bad.reader.finish() }
        #expect(error.diagnostics.filter { $0.description.contains("server.trusted_proxies: expected address blocks") }.count == 2,
                "\(error.diagnostics)")
    }

    @Test("missing required keys are named")
    func missing() throws {
        let config = try load("server: {}\n")
        let error = try #require(throws: ConfigError.self) { try config.reader.finish() }
        #expect(error.diagnostics.map(\.path).contains("app"))
        #expect(error.diagnostics.contains { $0.message.contains("'plugins' is missing") })
    }

    @Test("${VAR} and ${VAR:-fallback} come from the environment given; an unset one is an error")
    func substitution() throws {
        let yaml = """
            app: ${APP_NAME}
            server: { host: "${HOST:-0.0.0.0}", port: 8080 }
            plugins: {}
            """
        let config = try load(yaml, environment: ["APP_NAME": "from-env"])
        #expect(config.app == "from-env")
        #expect(config.server.host == "0.0.0.0")
        try config.reader.finish()

        let unset = try load(yaml)
        let error = try #require(throws: ConfigError.self) { try unset.reader.finish() }
        #expect(error.description.contains("app.yaml:1:6: app: environment variable APP_NAME is not set"))
    }

    @Test("a section that should be a mapping but is not")
    func notAMapping() throws {
        let config = try load("app: a\nserver: [1, 2]\nplugins: {}\n")
        let error = try #require(throws: ConfigError.self) { try config.reader.finish() }
        #expect(error.description.contains("app.yaml:2:9: server: expected a mapping of settings, found a list"))
    }

    @Test("duplicate keys are refused")
    func duplicates() {
        #expect(throws: ConfigError.self) {
            _ = try YAMLLoader.parse("app: a\napp: b\n", file: "dup.yaml")
        }
    }

    @Test("durations", arguments: [("250ms", Duration.milliseconds(250)), ("30s", .seconds(30)), ("15m", .seconds(900)),
                                   ("12h", .seconds(43_200)), ("7d", .seconds(604_800))])
    func durations(_ text: String, _ expected: Duration) {
        #expect(ConfigSection.parseDuration(text) == expected)
    }

    @Test("bad durations", arguments: ["", "15", "m", "1.5h", "-3s", "10 s"])
    func badDurations(_ text: String) {
        #expect(ConfigSection.parseDuration(text) == nil)
    }

    @Test("a missing file says so")
    func missingFile() {
        #expect {
            _ = try AppConfig.load(file: "/nonexistent/app.yaml", environment: [:])
        } throws: { error in
            (error as? ConfigError)?.description.contains("/nonexistent/app.yaml:1:1: cannot read the config file (no such file)") == true
        }
    }
}
