public import AppConfig
public import Bus
import DrawingAPI
import Foundation
public import HTTPKit
import HTTPTypes
import Hummingbird
import MediaAPI
import NIOCore
public import PluginKit
import ShareLinkAPI
import StorageAPI

/// The `share-link` plugin: read-only links to a resource (a photo, a saved album search, a
/// notebook), with an optional expiry and password, revocable; a public page per link with Open
/// Graph tags whose picture is a media rendition (written without EXIF, so without GPS).
///
/// ```yaml
/// share-link: { rendition: share, resolves_per_minute: 60, public_url: "https://photos.example.org" }
/// ```
public struct ShareLinkPlugin: Plugin {
    public struct Config: Sendable {
        var rendition: String
        var resolvesPerMinute: Int
        var passwordFailuresPerHour: Int
        var maxDays: Int
        var publicURL: String?
    }

    public static let descriptor = PluginDescriptor(
        id: "share-link",
        summary: "Read-only share links (expiry, password, revocation) with a public Open Graph page; tokens stored hashed",
        dependencies: ["storage", "auth", "media"],
        settings: [
            SettingDescription("rendition", "media rendition name", default: "share", "The rendition a shared page shows (media strips its EXIF)"),
            SettingDescription("resolves_per_minute", "int 1...100000", default: "60", "Link openings per client address per minute; more get 429"),
            SettingDescription("password_failures_per_hour", "int 1...10000", default: "20", "Wrong link passwords per client address per hour"),
            SettingDescription("max_days", "int 1...36500", default: "3650", "The longest expiry a link may have"),
            SettingDescription("public_url", "URL", default: "none: og:url left out, pictures linked by path",
                               "The server's address as others reach it, for og:url and an absolute og:image (the Host header is never trusted for them)"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        let publicURL = section.string("public_url").flatMap { $0.isEmpty ? nil : $0 }
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            section.report("public_url", "must start with http:// or https://")
        }
        return Config(rendition: section.string("rendition", default: "share") ?? "share",
                      resolvesPerMinute: section.int("resolves_per_minute", default: 60, in: 1...100_000),
                      passwordFailuresPerHour: section.int("password_failures_per_hour", default: 20, in: 1...10_000),
                      maxDays: section.int("max_days", default: 3650, in: 1...36_500),
                      publicURL: publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
    }

    public static func references(_ config: Config) -> [NameReference] {
        [NameReference(setting: "rendition", kind: "rendition", name: config.rendition, declaredIn: "media")]
    }

    let service: ShareLinkService
    let config: Config
    let resolves: SlidingWindow
    /// Pictures are many per page (a shared search shows up to 60): their own, larger allowance.
    let pictures: SlidingWindow
    let passwordFailures: SlidingWindow

    public init(config: Config, context: PluginContext) async throws {
        let store = BusRecordStore(bus: context.bus)
        try await store.declare(ShareLinkService.schema)
        // The kinds the app's plugins offer (the album's photos and searches, notebooks).
        let kinds = Dictionary(context.offers.compactMap { $0 as? any SharedKind.Type }.map { ($0.id, ShareLinkService.Kind.of($0)) },
                               uniquingKeysWith: { first, _ in first })
        service = ShareLinkService(store: store, bus: context.bus, clock: context.clock, maxLifetime: TimeInterval(config.maxDays) * 86_400, kinds: kinds)
        self.config = config
        resolves = SlidingWindow(limit: config.resolvesPerMinute, window: 60)
        pictures = SlidingWindow(limit: config.resolvesPerMinute * 100, window: 60)
        passwordFailures = SlidingWindow(limit: config.passwordFailuresPerHour, window: 3600)
    }

    public var features: [String] { ["share-links"] + service.kinds.keys.sorted().map { "share:\($0)" } }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(CreateShareLink.self) { request, _ in try await service.create(request) }
        try bus.handle(ListShareLinks.self) { request, _ in .init(links: try await service.list(owner: request.owner)) }
        try bus.handle(RevokeShareLink.self) { request, _ in try await service.revoke(owner: request.owner, id: request.id) }
        try bus.handle(ResolveShareLink.self) { request, _ in
            let (record, stored) = try await service.resolve(token: request.token, password: request.password)
            return .init(linkID: record.id, owner: record.owner, kind: stored.kind, resource: stored.resource)
        }
    }

    struct CreateInput: Decodable {
        var kind: String
        var resource: [String: String]
        var title: String?
        var expiresAt: Date?
        var expiresInSeconds: Int?
        var password: String?
    }

    public func routes(_ routes: PluginRoutes) throws {
        let service = self.service
        try routes.add(.post, "links", summary: "Share a resource read-only: {kind, resource, title?, expiresAt? | expiresInSeconds?, password?}; "
                       + "answers the token once") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(CreateInput.self, context: context)
            if input.expiresAt != nil, input.expiresInSeconds != nil {
                throw Problem.badRequest("Give expiresAt or expiresInSeconds, not both.", field: "expiresInSeconds")
            }
            if let seconds = input.expiresInSeconds, seconds < 1 {
                throw Problem.invalid("expiresInSeconds is at least 1.", field: "expiresInSeconds")
            }
            let expiresAt = input.expiresAt ?? input.expiresInSeconds.map { service.clock.now().addingTimeInterval(TimeInterval($0)) }
            let created = try await service.create(CreateShareLink(owner: identity.accountID, kind: input.kind, resource: input.resource,
                                                                   title: input.title, expiresAt: expiresAt, password: input.password))
            return try .json(created, status: .created, headers: [.location: created.path])
        }
        try routes.add(.get, "links", query: ["limit", "cursor"], summary: "My share links, newest first (tokens are never shown again)") {
            request, _, identity in
            try .json(try ListPage.slice(try await service.list(owner: identity.accountID), request: request, pageSize: 100, max: 1000))
        }
        try routes.add(.delete, "links/{id}", summary: "Revoke a link: it answers 410 from now on") { _, context, identity in
            guard let id = context.parameters.get("id") else { throw Problem.badRequest("The link id is missing from the path.") }
            return try .json(try await service.revoke(owner: identity.accountID, id: id))
        }
        routes.addPublic(.get, "s/{token}", query: ["format", "password"], summary: "A shared page: HTML with Open Graph tags, or JSON (Accept: application/json or ?format=json); "
                         + "password in the Share-Password header or ?password=") { request, context in
            try await page(request, context)
        }
        routes.addPublic(.get, "s/{token}/image/{index}", query: ["grant", "password"], summary: "The picture of a shared page's item, as a rendition without EXIF") {
            request, context in
            try await image(request, context)
        }
        for path in ["s/{token}", "s/{token}/image/{index}"] {
            for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
                routes.addPublic(method, path, summary: "Refused: a share link is read-only (405)") { _, _ in
                    throw Problem(status: .methodNotAllowed, code: "read_only", detail: "A share link is read-only: only GET is allowed.",
                                  headers: [.allow: "GET, HEAD"])
                }
            }
        }
    }

    /// Resolves the token in the path after the address's rate limit, counting wrong passwords.
    private func resolve(_ request: Request, _ context: QuireContext, picture: Bool = false) async throws -> (Record, ShareLinkService.Stored) {
        let address = context.remoteAddress ?? "local"
        if let retry = (picture ? pictures : resolves).take(address, now: service.clock.now()) {
            throw Problem(status: .tooManyRequests, code: BusError.Code.rateLimited.rawValue,
                          detail: "Too many link openings from your address; wait \(retry) s.", headers: [.retryAfter: String(retry)])
        }
        let token = context.parameters.get("token") ?? ""
        let password = try request.headers[.sharePassword] ?? request.query("password")
        // After too many wrong passwords even the right one waits: else a guesser would learn it from the one 200.
        if password != nil, let retry = passwordFailures.retryAfter(address, now: service.clock.now()) {
            throw Problem(status: .tooManyRequests, code: BusError.Code.rateLimited.rawValue,
                          detail: "Too many wrong passwords from your address; wait \(retry) s.", headers: [.retryAfter: String(retry)])
        }
        let grant = picture ? try request.query("grant") : nil
        let result: Result<(Record, ShareLinkService.Stored), BusError>
        do {
            result = .success(try await service.resolve(token: token, password: password, grant: grant))
        } catch {
            result = .failure(error)
        }
        if case .failure(let error) = result, error.code == .unauthenticated, password != nil {
            passwordFailures.record(address, now: service.clock.now())
        }
        return try result.get()
    }

    private func wantsJSON(_ request: Request) -> Bool {
        if request.uri.queryParameters["format"] == "json" { return true }
        return Self.prefersJSON(accept: request.headers[.accept] ?? "")
    }

    /// Content negotiation for a page that is HTML for browsers and link previews and JSON for apps:
    /// JSON when the Accept header ranks a JSON type (application/json, application/problem+json,
    /// any +json) above HTML; HTML when it names neither, or only wildcards.
    static func prefersJSON(accept: String) -> Bool {
        var json = 0.0, html = 0.0
        for entry in accept.split(separator: ",") {
            let parts = entry.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)).flatMap { $0.isFinite ? min(1, max(0, $0)) : nil } ?? 0
            }
            if type == "application/json" || type == "application/problem+json" || type.hasSuffix("+json") {
                json = max(json, quality)
            } else if type == "text/html" || type == "application/xhtml+xml" {
                html = max(html, quality)
            }
        }
        return json > html
    }

    /// The configured public address, or nothing: links are then paths on this server. Never the
    /// request's Host header, which anyone sending the request writes (a page of ours naming their site).
    private var baseURL: String { config.publicURL ?? "" }

    private func page(_ request: Request, _ context: QuireContext) async throws -> Response {
        let json = wantsJSON(request)
        do {
            let (record, stored) = try await resolve(request, context)
            var view = try await service.show(record, stored)
            if let title = stored.title, !title.isEmpty { view.title = title }
            let token = context.parameters.get("token") ?? ""
            let base = baseURL + "/api/v1/share-link/s/\(token)"
            // A picture: a photo (with its mark-up), or a drawing on its own (a note's back).
            let images = view.items.indices.filter { view.items[$0].image != nil || view.items[$0].overlay != nil }
            // On a password-protected link the pictures carry a grant instead of the password.
            let suffix = ShareLinkService.grant(for: stored).map { "?grant=\($0)" } ?? ""
            let picture = { (index: Int) in "\(base)/image/\(index)\(suffix)" }
            if json {
                return try .json(PageJSON(title: view.title, description: view.description, url: base, expiresAt: stored.expiresAt,
                                          contents: view.items.enumerated().map { index, item in
                                              PageJSON.Item(item, image: item.image == nil && item.overlay == nil ? nil : picture(index))
                                          }, image: images.first.map(picture)),
                                 headers: [.cacheControl: "no-store", .referrerPolicy: "no-referrer"])
            }
            let html = SharePage.html(view, pageURL: config.publicURL == nil ? nil : base, imageURL: picture)
            return Self.html(html, status: .ok)
        } catch let error as BusError where !json {
            if error.code == .unauthenticated {
                return Self.html(SharePage.passwordForm(message: error.message), status: .unauthorized)
            }
            return Self.html(SharePage.message(error.code == .gone ? "No longer shared" : "Not found", error.message),
                             status: Problem(error).status)
        }
    }

    private func image(_ request: Request, _ context: QuireContext) async throws -> Response {
        let (record, stored) = try await resolve(request, context, picture: true)
        let view = try await service.show(record, stored)
        guard let index = context.parameters.get("index").flatMap(Int.init), view.items.indices.contains(index),
              view.items[index].image != nil || view.items[index].overlay != nil else {
            throw Problem.notFound("This shared page has no picture \(context.parameters.get("index") ?? "").")
        }
        let bytes: Data
        let type: String
        guard let sha256 = view.items[index].image else {
            // A drawing on its own (a note's back), as the drawing plugin renders it: a PNG.
            let drawn = try await service.bus.request(RenderDrawing(sha256: view.items[index].overlay, format: .png), timeout: .seconds(30))
            let headers: HTTPFields = [.contentType: "image/png", .cacheControl: "private, max-age=300",
                                       .xContentTypeOptions: "nosniff", .referrerPolicy: "no-referrer"]
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try await drawn.bytes(on: service.bus))))
        }
        if let overlay = view.items[index].overlay {
            // The mark-up drawn over the same rendition: a PNG drawing writes, without EXIF either.
            let marked = try await service.bus.request(RenderDrawing(sha256: overlay, format: .png,
                                                                     over: .init(sha256: sha256, rendition: config.rendition)),
                                                       timeout: .seconds(30))
            (bytes, type) = (try await marked.bytes(on: service.bus), "image/png")
        } else {
            let rendered = try await service.bus.request(RenderImage(sha256: sha256, rendition: config.rendition), timeout: .seconds(30))
            (bytes, type) = (try await rendered.bytes(on: service.bus), rendered.format.mimeType)
        }
        let headers: HTTPFields = [.contentType: type, .cacheControl: "private, max-age=300",
                                   .xContentTypeOptions: "nosniff", .referrerPolicy: "no-referrer"]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func html(_ text: String, status: HTTPResponse.Status) -> Response {
        let headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
                                   .referrerPolicy: "no-referrer",
                                   .contentSecurityPolicy: "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'"]
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    struct PageJSON: Encodable {
        struct Item: Encodable {
            var id: String
            var title: String?
            var text: String?
            var takenAt: String?
            var place: String?
            var tags: [String]
            var image: String?
            init(_ item: SharedView.Item, image: String?) {
                (id, title, text, takenAt, place, tags) = (item.id, item.title, item.text, item.takenAt, item.place, item.tags)
                self.image = image
            }
        }
        var title: String
        var description: String?
        var url: String
        var expiresAt: Date?
        /// What the page shows (a photo, a search's photos, a notebook): the page's content, not a list resource.
        var contents: [Item]
        var image: String?
    }
}

extension HTTPField.Name {
    static let sharePassword = HTTPField.Name("Share-Password")!  // a valid constant token
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!  // a valid constant token
}
