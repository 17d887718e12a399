import Foundation

/// One HTTP exchange with the CA. ``HTTPACMETransport`` speaks it over HTTPS; tests give their own.
public protocol ACMETransport: Sendable {
    /// `body`, when given, is a JWS (`application/jose+json`).
    func send(method: String, url: String, body: Data?) async throws -> ACMEHTTPResponse
}

public struct ACMEHTTPResponse: Sendable {
    public var status: Int
    /// By lowercased name (the first value of a repeated field).
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// Why getting a certificate stopped: where, and the CA's own words (its problem document's
/// `detail`, and those of its subproblems) or the network's.
public struct ACMEFailure: Error, Sendable, CustomStringConvertible {
    public enum Stage: String, Sendable {
        case directory, nonce, account, order, authorization, challenge, finalize, certificate
    }

    public var stage: Stage
    public var detail: String
    /// The problem type (`urn:ietf:params:acme:error:…`), when the CA sent a problem document.
    public var problemType: String?

    public init(_ stage: Stage, _ detail: String, problemType: String? = nil) {
        self.stage = stage
        self.detail = detail
        self.problemType = problemType
    }

    public var description: String { "\(stage): \(detail)" }
}

/// What the client needs from the server to answer a challenge.
public struct ACMEChallengeSolver: Sendable {
    /// `http-01` or `tls-alpn-01`.
    public var type: String
    /// Serves the answer (`keyAuthorization`) for `domain` until `cleanup`.
    public var present: @Sendable (_ domain: String, _ token: String, _ keyAuthorization: String) async throws -> Void
    public var cleanup: @Sendable (_ domain: String, _ token: String) async -> Void

    public init(type: String, present: @escaping @Sendable (String, String, String) async throws -> Void,
                cleanup: @escaping @Sendable (String, String) async -> Void) {
        self.type = type
        self.present = present
        self.cleanup = cleanup
    }
}

/// An RFC 8555 client for one certificate of one domain: the account (registered, or found again
/// by its key), a new order, its challenges answered through a ``ACMEChallengeSolver``, finalize
/// with a CSR, the chain downloaded. Requests rejected for a `badNonce` are sent again with the
/// nonce that rejection carried.
public actor ACMEClient {
    public static let badNonce = "urn:ietf:params:acme:error:badNonce"

    let transport: any ACMETransport
    let directoryURL: String
    let accountKey: ACMEAccountKey
    /// How many times one request is sent again after a `badNonce`.
    let maxNonceRetries: Int
    /// How long to wait for the CA to validate a challenge or issue the certificate.
    let pollLimit: Duration

    private var directory: Directory?
    private var nonce: String?
    private var kid: String?
    /// Requests sent again after a `badNonce`, since this client was made.
    public private(set) var nonceRetries = 0

    struct Directory: Decodable {
        var newNonce: String
        var newAccount: String
        var newOrder: String
    }

    struct Problem: Decodable {
        var type: String?
        var detail: String?
        var subproblems: [Problem]?

        var text: String {
            var text = detail ?? type ?? "no detail"
            for sub in subproblems ?? [] { text += "; " + sub.text }
            return text
        }
    }

    struct Order: Decodable {
        var status: String
        var authorizations: [String]
        var finalize: String
        var certificate: String?
        var error: Problem?
    }

    struct Authorization: Decodable {
        struct Identifier: Decodable { var value: String }
        struct Challenge: Decodable {
            var type: String
            var url: String
            var token: String?
            var status: String?
            var error: Problem?
        }

        var status: String
        var identifier: Identifier
        var challenges: [Challenge]
    }

    public init(directoryURL: String, accountKey: ACMEAccountKey, transport: any ACMETransport, maxNonceRetries: Int = 10,
                pollLimit: Duration = .seconds(120)) {
        self.directoryURL = directoryURL
        self.accountKey = accountKey
        self.transport = transport
        self.maxNonceRetries = maxNonceRetries
        self.pollLimit = pollLimit
    }

    /// The account's URL (`kid`): registered with `email` as its contact, or the existing account of this key.
    @discardableResult
    public func account(email: String) async throws -> String {
        if let kid { return kid }
        let directory = try await loadDirectory()
        let payload = try JSONSerialization.data(withJSONObject: ["termsOfServiceAgreed": true, "contact": ["mailto:\(email)"]] as [String: Any])
        let response = try await post(directory.newAccount, payload: payload, stage: .account)
        guard let location = response.headers["location"] else {
            throw ACMEFailure(.account, "the CA's answer to the new account has no Location")
        }
        kid = location
        return location
    }

    /// Orders, validates and downloads a certificate for `domain` with the key of `csrDER`.
    /// - Returns: the PEM chain, the domain's certificate first.
    public func certificate(domain: String, csrDER: [UInt8], email: String, solver: ACMEChallengeSolver) async throws -> String {
        try await account(email: email)
        guard let directory else { throw ACMEFailure(.directory, "the directory was not loaded") }
        let orderPayload = try JSONSerialization.data(withJSONObject: ["identifiers": [["type": "dns", "value": domain]]])
        let created = try await post(directory.newOrder, payload: orderPayload, stage: .order)
        guard let orderURL = created.headers["location"] else { throw ACMEFailure(.order, "the CA's new order has no Location") }
        var order: Order = try decode(created.body, stage: .order)
        for authorizationURL in order.authorizations {
            try await authorize(authorizationURL, solver: solver)
        }
        order = try await poll(orderURL, stage: .order, until: { (order: Order) in order.status != "pending" })
        if order.status == "ready" {
            let finalizePayload = try JSONSerialization.data(withJSONObject: ["csr": Base64URL.encode(csrDER)])
            order = try decode(try await post(order.finalize, payload: finalizePayload, stage: .finalize).body, stage: .finalize)
        }
        if order.status == "processing" {
            order = try await poll(orderURL, stage: .finalize, until: { (order: Order) in order.status != "processing" })
        }
        guard order.status == "valid", let certificateURL = order.certificate else {
            throw ACMEFailure(.finalize, order.error?.text ?? "the order ended \(order.status)", problemType: order.error?.type)
        }
        let chain = try await post(certificateURL, payload: nil, stage: .certificate)
        let pem = String(decoding: chain.body, as: UTF8.self)
        guard pem.contains("-----BEGIN CERTIFICATE-----") else {
            throw ACMEFailure(.certificate, "the CA sent something other than a PEM certificate chain")
        }
        return pem
    }

    private func authorize(_ url: String, solver: ACMEChallengeSolver) async throws {
        let authorization: Authorization = try decode(try await post(url, payload: nil, stage: .authorization).body, stage: .authorization)
        if authorization.status == "valid" { return }
        let domain = authorization.identifier.value
        guard authorization.status == "pending" else {
            throw ACMEFailure(.authorization, "the authorization for \(domain) is \(authorization.status)")
        }
        guard let challenge = authorization.challenges.first(where: { $0.type == solver.type }), let token = challenge.token,
              !token.isEmpty, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw ACMEFailure(.authorization, "the CA offers no \(solver.type) challenge for \(domain) (it offers "
                              + "\(authorization.challenges.map(\.type).joined(separator: ", ")))")
        }
        try await solver.present(domain, token, accountKey.keyAuthorization(token: token))
        do {
            _ = try await post(challenge.url, payload: Data("{}".utf8), stage: .challenge)
            let done: Authorization = try await poll(url, stage: .challenge, until: { (authorization: Authorization) in
                authorization.status != "pending"
            })
            if done.status != "valid" {
                let failed = done.challenges.first { $0.type == solver.type }
                throw ACMEFailure(.challenge, failed?.error?.text ?? "the authorization for \(domain) ended \(done.status)",
                                  problemType: failed?.error?.type)
            }
        } catch {
            await solver.cleanup(domain, token)
            throw error
        }
        await solver.cleanup(domain, token)
    }

    /// POST-as-GET `url` until `done`, waiting as `Retry-After` says (1 to 10 s), at most ``pollLimit``.
    private func poll<T: Decodable>(_ url: String, stage: ACMEFailure.Stage, until done: (T) -> Bool) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + pollLimit
        while true {
            let response = try await post(url, payload: nil, stage: stage)
            let value: T = try decode(response.body, stage: stage)
            if done(value) { return value }
            guard clock.now < deadline else {
                throw ACMEFailure(stage, "the CA had not finished after \(pollLimit.components.seconds) s")
            }
            let wait = response.headers["retry-after"].flatMap(Int.init).map { min(max($0, 1), 10) } ?? 1
            try await Task.sleep(for: .milliseconds(wait == 1 ? 500 : wait * 1000))
        }
    }

    private func loadDirectory() async throws -> Directory {
        if let directory { return directory }
        let response: ACMEHTTPResponse
        do {
            response = try await transport.send(method: "GET", url: directoryURL, body: nil)
        } catch {
            throw ACMEFailure(.directory, "cannot reach \(directoryURL) (\(error))")
        }
        guard response.status == 200, let loaded = try? JSONDecoder().decode(Directory.self, from: response.body) else {
            throw ACMEFailure(.directory, "\(directoryURL) answered \(response.status), not an ACME directory")
        }
        directory = loaded
        return loaded
    }

    private func freshNonce() async throws -> String {
        if let nonce {
            self.nonce = nil
            return nonce
        }
        let directory = try await loadDirectory()
        let response: ACMEHTTPResponse
        do {
            response = try await transport.send(method: "HEAD", url: directory.newNonce, body: nil)
        } catch {
            throw ACMEFailure(.nonce, "cannot reach \(directory.newNonce) (\(error))")
        }
        guard let nonce = response.headers["replay-nonce"] else {
            throw ACMEFailure(.nonce, "\(directory.newNonce) answered \(response.status) without a Replay-Nonce")
        }
        return nonce
    }

    /// A signed POST (`payload` nil: POST-as-GET), sent again with the new nonce after a `badNonce`.
    func post(_ url: String, payload: Data?, stage: ACMEFailure.Stage) async throws -> ACMEHTTPResponse {
        var attempt = 0
        while true {
            let nonce = try await freshNonce()
            let body = try accountKey.sign(payload: payload, url: url, nonce: nonce, kid: kid)
            let response: ACMEHTTPResponse
            do {
                response = try await transport.send(method: "POST", url: url, body: body)
            } catch {
                throw ACMEFailure(stage, "cannot reach \(url) (\(error))")
            }
            if let next = response.headers["replay-nonce"] { self.nonce = next }
            if (200..<300).contains(response.status) { return response }
            let problem = try? JSONDecoder().decode(Problem.self, from: response.body)
            if problem?.type == Self.badNonce, attempt < maxNonceRetries {
                attempt += 1
                nonceRetries += 1
                continue
            }
            throw ACMEFailure(stage, problem?.text ?? "\(url) answered \(response.status)", problemType: problem?.type)
        }
    }

    private func decode<T: Decodable>(_ body: Data, stage: ACMEFailure.Stage) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw ACMEFailure(stage, "the CA's answer is not the \(T.self) RFC 8555 describes (\(error))")
        }
    }
}
