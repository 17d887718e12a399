import Foundation
public import Hummingbird
import NIOCore

/// What `server.http_port` answers, in plain HTTP: ACME HTTP-01 challenges from the
/// ``ACMEChallengeStore``; with the local CA, the phone setup page at `/` (a QR code of the HTTPS
/// address, the CA certificate at `/quire-ca.crt`, how to trust it); every other request a 308 to
/// the same path and query over HTTPS.
public struct PlainHTTPSite: HTTPResponder {
    public typealias Context = BasicRequestContext

    /// The HTTPS port redirects go to.
    public let httpsPort: Int
    /// The host to redirect to when a request names none (HTTP/1.0 without Host).
    public let fallbackHost: String
    public let challenges: ACMEChallengeStore
    /// With `local_ca`: the CA whose certificate the setup page offers.
    public let localCA: LocalCA?

    public init(httpsPort: Int, fallbackHost: String, challenges: ACMEChallengeStore, localCA: LocalCA?) {
        self.httpsPort = httpsPort
        self.fallbackHost = fallbackHost
        self.challenges = challenges
        self.localCA = localCA
    }

    static let challengePrefix = "/.well-known/acme-challenge/"

    public func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        answer(method: request.method, path: request.uri.path, query: request.uri.query, authority: request.head.authority)
    }

    /// The answer to a request for `path` and `query` that named `authority` (its Host).
    func answer(method: HTTPRequest.Method, path: String, query: String?, authority: String?) -> Response {
        let isRead = method == .get || method == .head
        if isRead, path.hasPrefix(Self.challengePrefix) {
            let token = String(path.dropFirst(Self.challengePrefix.count))
            guard let answer = challenges.lookup(token: token) else {
                return Self.text(.notFound, "No ACME challenge is pending for this token.\n")
            }
            return Self.text(.ok, answer)
        }
        let host = Self.host(of: authority) ?? fallbackHost
        if let localCA, isRead {
            if path == "/" {
                return setupPage(host: host, caReadable: (try? localCA.caCertificateDER()) != nil)
            }
            if path == "/quire-ca.crt" {
                guard let der = try? localCA.caCertificateDER() else {
                    return Self.text(.internalServerError, "The local CA's certificate cannot be read; see the server's log.\n")
                }
                return Response(status: .ok, headers: [.contentType: "application/x-x509-ca-cert",
                                                       .contentDisposition: "attachment; filename=\"quire-ca.crt\""],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: der)))
            }
        }
        return Response(status: .permanentRedirect, headers: [.location: httpsAddress(host: host) + Self.pathAndQuery(path: path, query: query)])
    }

    /// `https://host[:port]` (the port left out when it is 443).
    public func httpsAddress(host: String) -> String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return httpsPort == 443 ? "https://\(bracketed)" : "https://\(bracketed):\(httpsPort)"
    }

    static func pathAndQuery(path: String, query: String?) -> String {
        let path = path.isEmpty ? "/" : path
        return query.map { "\(path)?\($0)" } ?? path
    }

    /// The host of an authority (`host`, `host:port`, `[v6]:port`) without its port; nil when
    /// absent or holding anything a host name or address cannot.
    static func host(of authority: String?) -> String? {
        guard var text = authority, !text.isEmpty else { return nil }
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            text = String(text[text.index(after: text.startIndex)..<end])
        } else if let colon = text.lastIndex(of: ":") {
            text = String(text[..<colon])
        }
        let allowed = text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-.:".unicodeScalars.contains($0)) }
        return allowed && !text.isEmpty ? text : nil
    }

    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    func setupPage(host: String, caReadable: Bool) -> Response {
        let address = httpsAddress(host: host) + "/"
        let qr = QRCode.svg(address) ?? ""
        let shown = Self.escape(address)
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Open Quire on your phone</title>
            <style>body{font:16px/1.45 system-ui,sans-serif;max-width:34rem;margin:1rem auto;padding:0 1rem;color:#222}
            .qr svg{width:min(16rem,80vw);height:auto}a.button{display:inline-block;padding:.6rem 1rem;background:#1d4ed8;color:#fff;
            border-radius:.4rem;text-decoration:none}code{word-break:break-all}li{margin:.3rem 0}</style></head><body>
            <h1>Open Quire on your phone</h1>
            <p>1. Download this server's certificate authority on the phone and trust it (once per phone):</p>
            <p><a class="button" href="/quire-ca.crt" download="quire-ca.crt">Download quire-ca.crt</a>\(caReadable ? "" : " (not readable now: see the server's log)")</p>
            <h2>iPhone and iPad</h2>
            <ol><li>Open this page in Safari, tap <b>Download quire-ca.crt</b>, then <b>Allow</b>.</li>
            <li>Settings → General → VPN &amp; Device Management → <b>Quire local CA</b> → Install.</li>
            <li>Settings → General → About → Certificate Trust Settings → turn on <b>Quire local CA</b>.</li></ol>
            <h2>Android</h2>
            <ol><li>Tap <b>Download quire-ca.crt</b>.</li>
            <li>Settings → Security &amp; privacy → More security settings → Encryption &amp; credentials → Install a certificate →
            <b>CA certificate</b> → Install anyway → pick quire-ca.crt.</li></ol>
            <p>2. Then scan this code with the phone's camera, or open <a href="\(shown)"><code>\(shown)</code></a>:</p>
            <p class="qr">\(qr)</p>
            <p>Only trust this certificate authority on your own devices: it can vouch for any site.</p>
            </body></html>
            """
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
