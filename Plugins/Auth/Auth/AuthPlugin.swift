public import AppConfig
import AuthAPI
import Crypto
public import Bus
import Foundation
import SafeFetch
public import HTTPKit
import Hummingbird
import Logging
public import PluginKit
import StorageAPI

/// The `auth` plugin: accounts (password and password-less device), sessions with short-lived
/// access tokens and rotating refresh tokens, sign-in throttling, and the authenticator in front of
/// every other plugin's routes.
///
/// ```yaml
/// auth: { methods: [password, device], access_token_ttl: 15m }
/// ```
public struct AuthPlugin: Plugin {
    public struct Config: Sendable {
        var methods: [String]
        /// How a new person starts: the method a client offers first ("Get Started" for device).
        var onboarding: String
        var accessTTL: Duration
        var refreshTTL: Duration
        var bcryptCost: Int
        var secret: String?
        var secretFile: String?
        var attemptsPerAccount: Int
        var attemptsPerAddress: Int
        var throttleWindow: Duration
        var providers: [OIDCProviderConfig]
        var firstAccountIsAdmin: Bool
    }

    public static let descriptor = PluginDescriptor(
        id: "auth",
        summary: "Accounts (password, device), sessions with access and refresh tokens, sign-in throttling",
        dependencies: ["storage"],
        settings: [
            SettingDescription("methods", "list of password | device | oidc", default: "[password, device]", "How people may sign up and sign in"),
            SettingDescription("onboarding", "password | device", default: "the first of methods",
                               "The sign-up a client offers first (the manifest says onboarding:<method>); device is password-less"),
            SettingDescription("access_token_ttl", "duration 1m...24h", default: "15m", "Lifetime of an access token"),
            SettingDescription("refresh_token_ttl", "duration 1h...365d", default: "30d", "A session ends after this long unused"),
            SettingDescription("bcrypt_cost", "int 4...16", default: "12", "Work factor of password hashes"),
            SettingDescription("secret", "string, 32+ characters", "The token-signing key; use ${QUIRE_AUTH_SECRET}. Without it a key is generated into secret_file"),
            SettingDescription("secret_file", "path", default: "./data/<app>.auth-secret", "Where a generated key is kept (mode 0600)"),
            SettingDescription("max_failed_logins", "int 1...1000", default: "5", "Failed sign-ins per account within throttle_window"),
            SettingDescription("max_failed_logins_per_address", "int 1...10000", default: "20", "Failed sign-ins per client address within throttle_window"),
            SettingDescription("oidc_providers",
                               "list of {name, issuer, audience, keys_url, keys_ttl?, nonce_hash?: none|sha256, authorize_url?, label?, "
                                   + "response_mode?: fragment|form_post, redirect_uri?, team_id?, key_id?, private_key_file?, allow_networks?}",
                               default: "[]",
                               "OpenID Connect providers whose ID tokens sign people in (with 'oidc' in methods); nonce_hash sha256 for Apple; "
                                   + "authorize_url puts a 'Continue with <label>' button on the web client; response_mode form_post (Sign in with Apple "
                                   + "on the web) has the provider post to redirect_uri, our …/oidc/<name>/callback; team_id, key_id and "
                                   + "private_key_file are Apple's key (.p8), checked at start; allow_networks is for tests only"),
            SettingDescription("first_account_is_admin", "bool", default: "false",
                               "The first account made (sign-up, device, provider) is the server's operator; otherwise: quire admin grant"),
            SettingDescription("throttle_window", "duration 1m...24h", default: "15m", "The sliding window of the sign-in limits"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        let methods = section.stringList("methods", default: ["password", "device"], allowed: ["password", "device", "oidc"])
        var providers: [OIDCProviderConfig] = []
        for entry in section.sectionList("oidc_providers") {
            let name = entry.string("name") ?? ""
            if name.isEmpty || !name.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }) {
                entry.report("name", "a provider's name is lowercase letters, digits and '-' (it is part of the sign-in URL)")
            }
            if providers.contains(where: { $0.name == name }) { entry.report("name", "\"\(name)\" is named twice") }
            var networks: [IPNetwork] = []
            for text in entry.stringList("allow_networks", default: []) {
                if let network = IPNetwork(text) { networks.append(network) } else { entry.report("allow_networks", "'\(text)' is not a CIDR block") }
            }
            let keysURL = entry.string("keys_url") ?? ""
            if !Self.isProviderAddress(keysURL, testNetworks: !networks.isEmpty) {
                entry.report("keys_url", "the provider's JWKS address, https:// (http:// only with allow_networks, in tests)")
            }
            let authorizeURL = entry.string("authorize_url")
            if let authorizeURL, !Self.isProviderAddress(authorizeURL, testNetworks: !networks.isEmpty) {
                entry.report("authorize_url", "the provider's authorization endpoint, https:// (http:// only with allow_networks, in tests)")
            }
            let responseMode = OIDCProviderConfig.ResponseMode(rawValue: entry.choice("response_mode", ["fragment", "form_post"], default: "fragment"))
                ?? .fragment
            let redirectURI = entry.string("redirect_uri").flatMap { $0.isEmpty ? nil : $0 }
            if responseMode == .formPost {
                if authorizeURL == nil { entry.report("authorize_url", "form_post is a browser sign-in: give the provider's authorization endpoint") }
                if let redirectURI {
                    if !Self.isProviderAddress(redirectURI, testNetworks: !networks.isEmpty) || !redirectURI.hasSuffix("/api/v1/auth/oidc/\(name)/callback") {
                        entry.report("redirect_uri", "our callback as registered at the provider: https://<your host>/api/v1/auth/oidc/\(name)/callback")
                    }
                } else {
                    entry.report("redirect_uri", "form_post needs our callback's address, registered at the provider: "
                                 + "https://<your host>/api/v1/auth/oidc/\(name)/callback")
                }
            }
            let appleKey = Self.appleKey(entry)
            let issuer = entry.string("issuer") ?? ""
            let audience = entry.string("audience") ?? ""
            if issuer.isEmpty { entry.report("issuer", "the provider's issuer (the ID tokens' 'iss') is required") }
            if audience.isEmpty { entry.report("audience", "this app's client id at the provider (the ID tokens' 'aud') is required") }
            providers.append(OIDCProviderConfig(name: name, issuer: issuer, audience: audience, keysURL: keysURL,
                                                keysTTL: entry.duration("keys_ttl", default: .seconds(3600), in: .seconds(60) ... .seconds(86_400)),
                                                allowNetworks: networks,
                                                nonceHash: OIDCProviderConfig.NonceHash(rawValue: entry.choice("nonce_hash", ["none", "sha256"], default: "none")) ?? .none,
                                                authorizeURL: authorizeURL,
                                                label: entry.string("label") ?? name.prefix(1).uppercased() + name.dropFirst(),
                                                responseMode: responseMode, redirectURI: redirectURI, appleKey: appleKey))
        }
        if methods.contains("oidc"), providers.isEmpty { section.report("oidc_providers", "'oidc' is in methods, so list at least one provider") }
        let onboarding = section.choice("onboarding", ["password", "device"], default: methods.first ?? "password")
        if !methods.contains(onboarding) { section.report("onboarding", "\"\(onboarding)\" is not one of methods \(methods)") }
        let secret = section.string("secret").flatMap { $0.isEmpty ? nil : $0 }
        if let secret, secret.utf8.count < ServerSecret.minimumBytes {
            // Said here, with the line and column, rather than when serve builds the plugin.
            section.report("secret", "must be at least \(ServerSecret.minimumBytes) characters (it has \(secret.utf8.count)); "
                           + "generate one with: openssl rand -base64 48")
        }
        return Config(
            methods: methods,
            onboarding: onboarding,
            accessTTL: section.duration("access_token_ttl", default: .seconds(900), in: .seconds(60) ... .seconds(86_400)),
            refreshTTL: section.duration("refresh_token_ttl", default: .seconds(30 * 86_400), in: .seconds(3600) ... .seconds(365 * 86_400)),
            bcryptCost: section.int("bcrypt_cost", default: 12, in: 4...16),
            secret: secret,
            secretFile: section.string("secret_file"),
            attemptsPerAccount: section.int("max_failed_logins", default: 5, in: 1...1000),
            attemptsPerAddress: section.int("max_failed_logins_per_address", default: 20, in: 1...10_000),
            throttleWindow: section.duration("throttle_window", default: .seconds(900), in: .seconds(60) ... .seconds(86_400)),
            providers: providers,
            firstAccountIsAdmin: section.bool("first_account_is_admin", default: false))
    }

    /// Sign in with Apple's key: team id, key id and the .p8 file, all three or none; the file must
    /// hold a P-256 private key (what Apple's developer account gives as AuthKey_<key id>.p8).
    static func appleKey(_ entry: ConfigSection) -> OIDCProviderConfig.AppleKey? {
        // An empty value (an unset ${VAR}) is no value.
        func given(_ name: String) -> String? { entry.string(name).flatMap { $0.isEmpty ? nil : $0 } }
        let team = given("team_id"), key = given("key_id"), file = given("private_key_file")
        if team == nil, key == nil, file == nil { return nil }
        guard let team, let key, let file else {
            entry.report(team == nil ? "team_id" : key == nil ? "key_id" : "private_key_file",
                         "Apple's key needs team_id, key_id and private_key_file together (or none of them)")
            return nil
        }
        guard let pem = FileManager.default.contents(atPath: file) else {
            entry.report("private_key_file", "cannot read '\(file)'; download the key (AuthKey_\(key).p8) from Apple's developer account to that path")
            return nil
        }
        guard (try? P256.Signing.PrivateKey(pemRepresentation: String(decoding: pem, as: UTF8.self))) != nil else {
            entry.report("private_key_file", "'\(file)' is not a P-256 private key in PEM (Apple's .p8 begins with -----BEGIN PRIVATE KEY-----)")
            return nil
        }
        return OIDCProviderConfig.AppleKey(teamID: team, keyID: key, privateKeyFile: file)
    }

    /// A provider's address: https, or http when the provider is on a test network.
    static func isProviderAddress(_ text: String, testNetworks: Bool) -> Bool {
        guard let url = URL(string: text), url.host?.isEmpty == false else { return false }
        return url.scheme == "https" || (url.scheme == "http" && testNetworks)
    }

    let accounts: AccountService
    let methods: Set<String>
    let onboarding: String
    let bus: any MessageBus
    let providers: [String: OIDCProvider]
    /// Sign-ins begun with a form_post provider, waiting for its post.
    let formPostSignIns = FormPostSignIns()
    /// Other nodes' auth events, applied here.
    let peers: [HandlerRegistration]

    public init(config: Config, context: PluginContext) async throws {
        let secret = try ServerSecret.load(configured: config.secret,
                                           file: config.secretFile ?? "./data/\(context.appName).auth-secret",
                                           logger: context.logger)
        let store = BusRecordStore(bus: context.bus)
        accounts = AccountService(
            store: store,
            tokens: await TokenIssuer(secret: secret, issuer: "quire:\(context.appName)", accessTTL: config.accessTTL,
                                    clock: context.clock),
            hasher: PasswordHasher(cost: config.bcryptCost),
            throttle: LoginThrottle(window: config.throttleWindow, perAccount: config.attemptsPerAccount,
                                    perAddress: config.attemptsPerAddress),
            refreshTTL: config.refreshTTL,
            bus: context.bus,
            clock: context.clock,
            firstAccountIsOperator: config.firstAccountIsAdmin)
        peers = AuthPeerListener.observe(accounts, on: context.bus)
        methods = Set(config.methods)
        onboarding = config.onboarding
        providers = config.methods.contains("oidc")
            ? Dictionary(uniqueKeysWithValues: config.providers.map { ($0.name, OIDCProvider(config: $0, clock: context.clock)) }) : [:]
        for provider in config.providers where !provider.allowNetworks.isEmpty {
            context.logger.warning("auth: a provider's keys may be fetched from private networks (tests only)",
                                   metadata: ["provider": "\(provider.name)", "networks": "\(provider.allowNetworks.map(\.description).joined(separator: ", "))"])
        }
        bus = context.bus
        for schema in AuthCollections.schemas { try await store.declare(schema) }
    }

    public var authenticator: (any RequestAuthenticator)? { BusAuthenticator(bus: bus) }

    public var features: [String] {
        methods.sorted().map { "sign-in:\($0)" } + providers.keys.sorted().map { "oidc:\($0)" } + ["onboarding:\(onboarding)"]
    }

    public func register(on bus: any MessageBus) async throws {
        let accounts = self.accounts
        try bus.handle(VerifySession.self) { request, _ in try await accounts.verify(request.accessToken) }
        try bus.handle(CreateAccount.self) { request, _ in
            try await accounts.register(username: request.username, password: request.password, idempotencyKey: nil)
        }
        try bus.handle(FindAccount.self) { request, _ in
            guard let account = try await accounts.account(named: request.username) else {
                throw BusError(.notFound, "There is no user '\(request.username)'; create one with quire-auth create-user.")
            }
            return try await accounts.summary(accountID: account.id)
        }
        try bus.handle(ResetPassword.self) { request, _ in
            try await accounts.resetPassword(username: request.username, newPassword: request.newPassword)
            return Empty()
        }
        try bus.handle(HashSecret.self) { request, _ in
            try CredentialRules.checkPassword(request.secret)
            return .init(hash: await accounts.hasher.hash(request.secret))
        }
        try bus.handle(VerifySecret.self) { request, _ in
            .init(matches: await accounts.hasher.verify(request.secret, hash: request.hash))
        }
        try bus.handle(ListAccounts.self) { request, _ in try await accounts.list(request) }
        try bus.handle(StartRestoredSession.self) { request, _ in try await accounts.startRestoredSession(accountID: request.accountID) }
        try bus.handle(GetAccount.self) { request, _ in try await accounts.accountRecord(id: request.accountID).0 }
        try bus.handle(SetOperator.self) { request, _ in try await accounts.setOperator(account: request.account, isOperator: request.isOperator) }
        try bus.handle(SetAccountDisabled.self) { request, _ in
            try await accounts.setDisabled(accountID: request.accountID, disabled: request.disabled)
        }
        try bus.handle(RevokeSessions.self) { request, _ in
            .init(revoked: try await accounts.revokeSessions(username: request.username))
        }
    }

    struct Credentials: Decodable {
        var username: String
        var password: String
    }

    struct DeviceSignIn: Decodable {
        var accountID: String
        var deviceSecret: String
        enum CodingKeys: String, CodingKey {
            case accountID = "accountId"
            case deviceSecret
        }
    }

    struct IDTokenBody: Decodable {
        var idToken: String
        var nonce: String?
        enum CodingKeys: String, CodingKey {
            case idToken = "id_token"
            case nonce
        }
    }

    struct DeviceSignUp: Decodable {
        var accountID: String
        var username: String
        var password: String
        enum CodingKeys: String, CodingKey {
            case accountID = "accountId"
            case username, password
        }
    }

    struct DeviceProviderSignUp: Decodable {
        var accountID: String
        var idToken: String
        var nonce: String?
        enum CodingKeys: String, CodingKey {
            case accountID = "accountId"
            case idToken = "id_token"
            case nonce
        }
    }

    struct RefreshBody: Decodable {
        var refreshToken: String
        enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
    }

    struct DeviceAccount: Encodable {
        var tokens: TokenPair
        var deviceSecret: String
        func encode(to encoder: any Encoder) throws {
            try tokens.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(deviceSecret, forKey: .deviceSecret)
        }
        enum CodingKeys: String, CodingKey { case deviceSecret }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let accounts = self.accounts
        if methods.contains("password") {
            routes.addPublic(.post, "register", summary: "Create a password account") { request, context in
                var request = request
                let body = try await request.decodeJSON(Credentials.self, context: context)
                let account = try await accounts.register(username: body.username, password: body.password,
                                                          idempotencyKey: try request.idempotencyKey())
                return try .json(account.wire, status: .created)
            }
            routes.addPublic(.post, "login", summary: "Sign in with username and password; returns tokens") { request, context in
                var request = request
                let body = try await request.decodeJSON(Credentials.self, context: context)
                return try .json(try await accounts.login(username: body.username, password: body.password,
                                                          address: context.remoteAddress))
            }
        }
        if methods.contains("device") {
            routes.addPublic(.post, "device", summary: "Create a password-less device account, or sign in with its device secret") {
                request, context in
                var request = request
                let hasBody = request.headers[.contentLength].map { $0 != "0" } ?? false
                if hasBody {
                    let body = try await request.decodeJSON(DeviceSignIn.self, context: context)
                    return try .json(try await accounts.loginDevice(accountID: body.accountID, secret: body.deviceSecret,
                                                                    address: context.remoteAddress))
                }
                let (tokens, secret) = try await accounts.createDevice(idempotencyKey: try request.idempotencyKey(),
                                                                       address: context.remoteAddress)
                return try .json(DeviceAccount(tokens: tokens, deviceSecret: secret), status: .created)
            }
            if methods.contains("password") {
                try routes.add(.post, "device/sign-up", summary: "Sign up this device account (sign-in skipped): {accountId, username, password}; "
                               + "what it keeps stays its own") { request, context, identity in
                    var request = request
                    let body = try await request.decodeJSON(DeviceSignUp.self, context: context)
                    return try .json(try await accounts.signUpDevice(accountID: identity.accountID, claimed: body.accountID,
                                                                     username: body.username, password: body.password).wire)
                }
            }
        }
        if methods.contains("oidc") {
            let providers = self.providers
            @Sendable func provider(_ context: QuireContext) throws -> OIDCProvider {
                let name = context.parameters.get("provider") ?? ""
                guard let provider = providers[name] else {
                    throw Problem.notFound("No sign-in provider '\(name.prefix(40))'; this app offers \(providers.keys.sorted().joined(separator: ", ")).")
                }
                return provider
            }
            let browserProviders = providers.values.map(\.config).filter { $0.authorizeURL != nil }.sorted { $0.name < $1.name }
            routes.addPublic(.get, "oidc", summary: "The providers a browser can sign in with: {providers: [{name, label, authorizeUrl, clientId, nonceHash, responseMode}]}") {
                _, _ in
                try .json(["providers": browserProviders.map { provider in
                    ["name": provider.name, "label": provider.label, "authorizeUrl": provider.authorizeURL ?? "",
                     "clientId": provider.audience, "nonceHash": provider.nonceHash.rawValue, "responseMode": provider.responseMode.rawValue]
                }])
            }
            routes.addPublic(.post, "oidc/{provider}", summary: "Sign in with an OpenID Connect provider's ID token: {id_token, nonce}; "
                             + "the first sign-in creates a linked account") { request, context in
                var request = request
                let body = try await request.decodeJSON(IDTokenBody.self, context: context)
                let provider = try provider(context)
                let verified = try await provider.verify(idToken: body.idToken, nonce: body.nonce)
                return try .json(try await accounts.signInExternal(provider: provider.config.name, verified))
            }
            addFormPostRoutes(routes, provider: provider)
            try routes.add(.post, "oidc/{provider}/link", summary: "Link a provider's identity to my account: {id_token, nonce}") {
                request, context, identity in
                var request = request
                let body = try await request.decodeJSON(IDTokenBody.self, context: context)
                let provider = try provider(context)
                let verified = try await provider.verify(idToken: body.idToken, nonce: body.nonce)
                return try .json(try await accounts.linkExternal(accountID: identity.accountID, provider: provider.config.name, verified).wire)
            }
            if methods.contains("device") {
                try routes.add(.post, "oidc/{provider}/sign-up", summary: "Sign up this device account with a provider's identity: "
                               + "{accountId, id_token, nonce}; what it keeps stays its own") { request, context, identity in
                    var request = request
                    let body = try await request.decodeJSON(DeviceProviderSignUp.self, context: context)
                    let provider = try provider(context)
                    let verified = try await provider.verify(idToken: body.idToken, nonce: body.nonce)
                    return try .json(try await accounts.signUpDeviceExternal(accountID: identity.accountID, claimed: body.accountID,
                                                                             provider: provider.config.name, label: provider.config.label,
                                                                             verified).wire)
                }
            }
        }
        routes.addPublic(.post, "refresh", summary: "Exchange a refresh token for new tokens (the old one stops working)") {
            request, context in
            var request = request
            let body = try await request.decodeJSON(RefreshBody.self, context: context)
            return try .json(try await accounts.refresh(body.refreshToken))
        }
        try routes.add(.post, "logout", summary: "End this session: its refresh and access tokens stop working") { _, _, identity in
            try await accounts.logout(accountID: identity.accountID, sessionID: identity.sessionID)
            return .noContent
        }
        try routes.add(.get, "me", summary: "The signed-in account, and whether it is the server's operator (operator)") { _, _, identity in
            let summary = try await accounts.summary(accountID: identity.accountID)
            let record = try await accounts.accountRecord(id: identity.accountID).0
            return try .json(SignedInAccount(summary, operator: record.isOperator && !record.disabled))
        }
    }
}

/// GET /auth/me: the account, and whether it is the server's operator, so the web client knows
/// whether to link Admin without asking an admin route (those answer 404 to everyone else).
struct SignedInAccount: Encodable {
    let summary: AccountSummary
    let `operator`: Bool

    init(_ summary: AccountSummary, operator: Bool) {
        self.summary = summary
        self.operator = `operator`
    }

    enum Keys: String, CodingKey { case accountId, username, kind, createdAt, `operator` }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(summary.accountID, forKey: .accountId)
        try container.encode(summary.username, forKey: .username)
        try container.encode(summary.kind, forKey: .kind)
        try container.encode(JSONWriter.iso8601(summary.createdAt), forKey: .createdAt)
        try container.encode(`operator`, forKey: .operator)
    }
}

extension AccountSummary {
    /// The HTTP form, snake_case like the rest of the API.
    var wire: [String: String?] {
        ["accountId": accountID, "username": username, "kind": kind, "createdAt": JSONWriter.iso8601(createdAt)]
    }
}
