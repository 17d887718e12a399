import AppConfig
import Testing

@Suite("App config: server.tls.acme")
struct ACMEConfigTests {
    func load(_ tls: String, environment: [String: String] = [:]) throws -> AppConfig {
        AppConfig(root: try YAMLLoader.parse("app: a\nserver:\n  port: 8443\n  http_port: 8080\n  tls:\n\(tls)plugins: {}\n", file: "app.yaml"),
                  environment: environment)
    }

    func problems(_ tls: String, environment: [String: String] = [:]) throws -> [String] {
        let config = try load(tls, environment: environment)
        do {
            try config.reader.finish()
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("domain and email are enough: Let's Encrypt's directory, 30 days before expiry, files in dir")
    func defaults() throws {
        let config = try load("    dir: /var/lib/quire/tls\n    acme: { domain: Photos.Example.org, email: me@example.org }\n")
        try config.reader.finish()
        let tls = try #require(config.server.tls)
        #expect(tls.certFile == nil && !tls.localCA && tls.directory == "/var/lib/quire/tls")
        let acme = try #require(tls.acme)
        #expect(acme.domain == "photos.example.org" && acme.email == "me@example.org")
        #expect(acme.directory == "https://acme-v02.api.letsencrypt.org/directory" && acme.directoryCAFile == nil && acme.renewBeforeDays == 30)
        #expect(config.server.httpPort == 8080)
    }

    @Test("an empty domain (an unset ${QUIRE_ACME_DOMAIN:-}) is no acme; the rest of the file still serves its own certificate")
    func unset() throws {
        let config = try load("    cert_file: a.crt\n    key_file: a.key\n    acme: { domain: '${QUIRE_ACME_DOMAIN:-}', email: '${QUIRE_ACME_EMAIL:-}' }\n")
        try config.reader.finish()
        #expect(config.server.tls?.acme == nil && config.server.tls?.certFile == "a.crt")
    }

    @Test("mistakes are named at their line and column: a bad domain, a missing email, a directory that is not https://, acme with cert_file")
    func mistakes() throws {
        #expect(try problems("    acme:\n      domain: 10.0.0.1\n      email: me@example.org\n")
                == [#"app.yaml:7:15: server.tls.acme.domain: expected a public DNS name such as photos.example.org (no address, port, scheme or wildcard), found "10.0.0.1""#])
        #expect(try problems("    acme:\n      domain: '*.example.org'\n      email: me@example.org\n").first?.contains("server.tls.acme.domain") == true)
        #expect(try problems("    acme:\n      domain: photos.example.org\n").first?.hasPrefix("app.yaml:7:7: server.tls.acme.email: is required with acme") == true)
        #expect(try problems("    acme:\n      domain: photos.example.org\n      email: nobody\n").first?.contains("server.tls.acme.email: expected an address") == true)
        #expect(try problems("    acme:\n      domain: photos.example.org\n      email: me@example.org\n      directory: http://ca.example/dir\n")
                .first?.hasPrefix("app.yaml:9:18: server.tls.acme.directory: expected the https:// URL") == true)
        #expect(try problems("    acme:\n      email: me@example.org\n").first?.contains("server.tls.acme.domain: is required with acme") == true)
        #expect(try problems("    cert_file: a.crt\n    key_file: a.key\n    acme: { domain: photos.example.org, email: me@example.org }\n")
                .first?.hasPrefix("app.yaml:8:11: server.tls.acme: cannot be used with cert_file/key_file or local_ca") == true)
        #expect(try problems("    local_ca: true\n    acme: { domain: photos.example.org, email: me@example.org }\n").count == 1)
        #expect(try problems("    acme: { domain: photos.example.org, email: me@example.org, renew_before_days: 0 }\n")
                .first?.contains("server.tls.acme.renew_before_days") == true)
        #expect(try problems("    acme: { domain: photos.example.org, email: me@example.org, staging: true }\n")
                .first?.contains("server.tls.acme.staging: unknown key") == true)
    }
}
