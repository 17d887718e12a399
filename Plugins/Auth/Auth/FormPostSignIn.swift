import Bus
import Foundation
import HTTPKit
import Hummingbird
import NIOCore
import Secrets

/// Sign-in on the web with a provider that answers with `response_mode=form_post` (Sign in with
/// Apple): the provider posts the ID token to a callback of ours instead of handing it to the page.
///
/// 1. The page asks `POST /api/v1/auth/oidc/<name>/begin`; this makes a state and a nonce, keeps
///    them (ten minutes, one answer) and answers the provider's authorization address for them (the
///    nonce hashed when the provider's `nonce_hash` says so).
/// 2. The provider posts `state`, `id_token` (and `code`, unused) to `…/<name>/callback`; the state
///    finds the nonce, and the token is verified as any provider's (``OIDCProvider/verify(idToken:nonce:)``:
///    signature against the published keys, issuer, audience, expiry, nonce). A state answers once: a
///    replayed post is refused.
/// 3. The callback signs the person in (``AccountService/signInExternal(provider:_:)``, the same
///    account as the ID-token route) and sends the browser back to the app, `/#session=…&state=…`,
///    or `/#error=<reason>&error_description=…&state=…`; the page checks the state is the one it
///    began with, so an answer cannot be pushed into someone else's browser.
///
/// The state is kept in this process: in a cluster, the callback must reach the node that began the
/// sign-in (otherwise it is refused as `replayed`, and the person taps the button again).
actor FormPostSignIns {
    struct Pending: Sendable {
        var provider: String
        var nonce: String
        var expires: ContinuousClock.Instant
    }

    private var pending: [String: Pending] = [:]
    private let clock = ContinuousClock()
    static let lifetime: Duration = .seconds(600)
    /// Sign-ins under way at most; begins past it are refused until some end (the route is public).
    static let limit = 10_000

    func begin(provider: String) throws(BusError) -> (state: String, nonce: String) {
        let now = clock.now
        if pending.count >= Self.limit { pending = pending.filter { $0.value.expires > now } }
        guard pending.count < Self.limit else {
            throw BusError(.unavailable, "Too many sign-ins are under way at once; try again in a minute.")
        }
        let state = Secrets.random(bytes: 24)
        let nonce = Secrets.random(bytes: 24)
        pending[state] = Pending(provider: provider, nonce: nonce, expires: now + Self.lifetime)
        return (state, nonce)
    }

    /// The sign-in `state` began with `provider`, taken: nil when unknown, already answered or expired.
    func take(state: String, provider: String) -> Pending? {
        guard let found = pending.removeValue(forKey: state) else { return nil }
        guard found.provider == provider, found.expires > clock.now else { return nil }
        return found
    }
}

extension AuthPlugin {
    /// The provider's authorization address for one sign-in.
    static func authorizeAddress(_ config: OIDCProviderConfig, state: String, nonce: String) throws(BusError) -> String {
        guard let authorize = config.authorizeURL, let redirect = config.redirectURI, var address = URLComponents(string: authorize) else {
            throw BusError(.notFound, "'\(config.name)' gives the page its ID token itself (POST /api/v1/auth/oidc/\(config.name)); "
                           + "it has no begin step.")
        }
        let sent = switch config.nonceHash {
        case .none: nonce
        case .sha256: Secrets.sha256Hex(nonce)
        }
        address.queryItems = (address.queryItems ?? []) + [
            URLQueryItem(name: "client_id", value: config.audience),
            URLQueryItem(name: "redirect_uri", value: redirect),
            URLQueryItem(name: "response_type", value: "code id_token"),
            URLQueryItem(name: "response_mode", value: "form_post"),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: sent),
        ]
        guard let text = address.string else { throw BusError(.invalid, "The authorization address of \(config.name) could not be made from '\(authorize.prefix(100))'.") }
        return text
    }

    /// The fields of an `application/x-www-form-urlencoded` body.
    static func formFields(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let name = parts.first.map(decoded), !name.isEmpty, fields[name] == nil else { continue }
            fields[name] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return fields
    }

    /// Back to the app's page with `fields` in the address's fragment (never sent to a server).
    static func backToApp(_ fields: [(String, String)]) -> Response {
        var query = URLComponents()
        query.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        let fragment = (query.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        return Response(status: .seeOther, headers: [.location: "/#" + fragment, .cacheControl: "no-store"])
    }

    /// A refusal said on the sign-in screen: `reason` is the stable code, `message` what to do.
    static func refusedToApp(_ reason: String, _ message: String, state: String) -> Response {
        backToApp([("error", reason), ("error_description", message), ("state", state)])
    }

    func addFormPostRoutes(_ routes: PluginRoutes, provider: @escaping @Sendable (QuireContext) throws -> OIDCProvider) {
        let accounts = self.accounts
        let signIns = self.formPostSignIns
        routes.addPublic(.post, "oidc/{provider}/begin",
                         summary: "Begin a form_post sign-in (Sign in with Apple on the web): {authorizeUrl, state}; the provider posts to …/callback") {
            _, context in
            let provider = try provider(context)
            let config = provider.config
            guard config.responseMode == .formPost else {
                throw Problem.notFound("'\(config.name)' gives the page its ID token itself (POST /api/v1/auth/oidc/\(config.name)); it has no begin step.")
            }
            let (state, nonce) = try await signIns.begin(provider: config.name)
            return try .json(["authorizeUrl": try Self.authorizeAddress(config, state: state, nonce: nonce), "state": state])
        }
        routes.addPublic(.post, "oidc/{provider}/callback",
                         summary: "Where a form_post provider posts {state, id_token, code}: verifies the token, signs in, and sends the browser back to /#session=…") {
            request, context in
            var request = request
            let provider = try provider(context)
            let config = provider.config
            // Apple's form (application/x-www-form-urlencoded): a state, a code and an ID token.
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: 64 << 10)
            } catch is NIOTooManyBytesError {
                throw Problem(status: .contentTooLarge, code: "too_large", detail: "The provider's answer is over 64 KB; it is not a sign-in answer.")
            }
            let fields = Self.formFields(Data(body.readableBytesView))
            let state = fields["state"] ?? ""
            guard config.responseMode == .formPost else {
                throw Problem.notFound("'\(config.name)' gives the page its ID token itself; it has no callback.")
            }
            guard let begun = await signIns.take(state: state, provider: config.name) else {
                return Self.refusedToApp("replayed", "This sign-in answer was used already, or is more than ten minutes old. "
                                         + "Tap “Continue with \(config.label)” again.", state: state)
            }
            if let refusal = fields["error"] {
                // Apple's "user_cancelled_authorize": the person closed its page.
                return refusal.hasSuffix("cancelled_authorize") || refusal == "access_denied"
                    ? Self.refusedToApp("access_denied", "Sign-in was cancelled.", state: state)
                    : Self.refusedToApp("provider_refused", "\(config.label) did not sign you in (\(refusal.prefix(60))). Try again.", state: state)
            }
            guard let idToken = fields["id_token"], !idToken.isEmpty else {
                return Self.refusedToApp("malformed", "\(config.label)'s answer had no ID token. Try again.", state: state)
            }
            let tokens: TokenPair
            do throws(BusError) {
                let verified = try await provider.verify(idToken: idToken, nonce: begun.nonce)
                tokens = try await accounts.signInExternal(provider: config.name, verified)
            } catch {
                return Self.refusedToApp(error.details["reason"] ?? error.code.rawValue, error.message, state: state)
            }
            guard let session = try? JSONEncoder().encode(tokens) else {
                return Self.refusedToApp("internal", "Signing in did not finish; try again.", state: state)
            }
            return Self.backToApp([("session", Secrets.base64URL(session)), ("state", state)])
        }
    }
}
