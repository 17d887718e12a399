public import AppConfig
import Foundation
public import HTTPKit
import HTTPTypes
import Hummingbird
public import PluginKit

/// The `web` plugin: serves the one client for every app at `/` — the app shell, its assets under
/// `/app/<version>/` (immutable), a web app manifest for "add to home screen", and a service worker
/// that keeps the shell for offline use. The client reads `/api/v1/manifest` and shows the screens
/// of the plugins the app has.
///
/// ```yaml
/// web: { name: "Napkin Notes", short_name: Napkin, theme_color: "#8a5a00", background_color: "#fffaf0" }
/// ```
public struct WebPlugin: Plugin {
    public struct Config: Sendable {
        var name: String?
        var shortName: String?
        var themeColor: String
        var backgroundColor: String
        var description: String
    }

    public static let descriptor = PluginDescriptor(
        id: "web",
        summary: "The web client at /: app shell, hashed immutable assets, web app manifest, service worker, strict CSP",
        dependencies: [],
        settings: [
            SettingDescription("name", "text", default: "the app's name", "The name a phone shows for the installed app"),
            SettingDescription("short_name", "text", default: "name", "Under the home-screen icon"),
            SettingDescription("theme_color", "#rrggbb", default: "#1f5f8b", "The browser's bar and the icon's colour"),
            SettingDescription("background_color", "#rrggbb", default: "#ffffff", "The splash screen's colour"),
            SettingDescription("description", "text", default: "", "One sentence for the install prompt"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        func colour(_ key: String, _ fallback: String) -> String {
            let value = section.string(key) ?? fallback
            let hex = value.utf8.dropFirst()
            guard value.hasPrefix("#"), hex.count == 6, hex.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }) else {
                section.report(key, "a colour is #rrggbb, such as #1f5f8b")
                return fallback
            }
            return value
        }
        return Config(name: section.string("name"), shortName: section.string("short_name"), themeColor: colour("theme_color", "#1f5f8b"),
                      backgroundColor: colour("background_color", "#ffffff"), description: section.string("description") ?? "")
    }

    let assets: WebAssets
    let appName: String
    let config: Config

    public init(config: Config, context: PluginContext) async throws {
        guard let directory = Bundle.module.url(forResource: "Client", withExtension: nil) else {
            throw WebSetupError("The web client's files are missing from the build (Plugins/Web/Client).")
        }
        assets = try WebAssets(directory: directory)
        appName = context.appName
        self.config = config
    }

    public var features: [String] { ["client", "offline"] }

    /// Our own origin only; no inline script. Images may be blobs and data URLs (photos picked on
    /// the phone before they upload); the live WebSocket is same-origin.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
        + "connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    public func siteRoutes(_ routes: PluginRoutes) throws {
        let assets = self.assets
        let name = config.name ?? Self.title(appName)
        let cached = assets.files.keys.filter { $0 != "index.html" && $0 != "sw.js" }.sorted()
        let list = String(decoding: try JSONSerialization.data(withJSONObject: cached), as: UTF8.self)
        // The first screen's modules are fetched at once rather than import by import (a phone's
        // round trips); the screens of each app come with `import()` once it knows which app it is.
        let preload = assets.staticModules(from: "main.js").filter { $0 != "main.js" }.map { "<link rel=\"modulepreload\" href=\"/app/\(assets.version)/\($0)\">" }
            .joined(separator: "\n  ")
        let values = ["VERSION": assets.version, "NAME": Self.escape(name), "THEME": config.themeColor, "APP": Self.escape(appName),
                      "DESCRIPTION": Self.escape(config.description), "ASSETS": list, "PRELOAD": preload]
        guard let index = assets.rendered("index.html", values), let worker = assets.rendered("sw.js", values) else {
            throw RouteSetupError("The web client has no index.html or sw.js (Plugins/Web/Client).")
        }
        let manifest = try JSONSerialization.data(withJSONObject: [
            "name": name, "short_name": config.shortName ?? name, "description": config.description,
            "start_url": "/", "scope": "/", "display": "standalone", "orientation": "portrait",
            "theme_color": config.themeColor, "background_color": config.backgroundColor,
            "icons": [["src": "/app/\(assets.version)/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"]]
                + AppIcon.sizes.filter { $0 != 180 }.map { ["src": "/icon-\($0).png", "sizes": "\($0)x\($0)", "type": "image/png", "purpose": "any maskable"] },
        ] as [String: Any], options: [.sortedKeys])
        let manifestAsset = WebAssets.asset(manifest, type: "application/manifest+json")

        routes.addPublic(.get, "", summary: "The web client's shell (no-cache: it names the current assets)") { request, _ in
            Self.serve(index, request, cache: "no-cache", page: true)
        }
        routes.addPublic(.get, "sw.js", summary: "The service worker: keeps the shell and assets for offline use") { request, _ in
            var response = Self.serve(worker, request, cache: "no-cache", page: false)
            response.headers[Self.serviceWorkerAllowed] = "/"
            return response
        }
        routes.addPublic(.get, "manifest.webmanifest", summary: "The web app manifest: name, icons, colours from the app's YAML") { request, _ in
            Self.serve(manifestAsset, request, cache: "no-cache", page: false)
        }
        // The home-screen icons in the app's colour: drawn on first request, then kept.
        let icons = IconCache(accent: AppIcon.RGB(hex: config.themeColor) ?? AppIcon.RGB(0x1f, 0x5f, 0x8b))
        for size in AppIcon.sizes {
            let path = size == 180 ? "apple-touch-icon.png" : "icon-\(size).png"
            routes.addPublic(.get, path, summary: "The home-screen icon, \(size)×\(size) PNG in the app's colour") { request, _ in
                guard let icon = icons.icon(size) else { throw Problem(status: .serviceUnavailable, code: "unavailable", detail: "The icon could not be drawn; try again.") }
                return Self.serve(icon, request, cache: "public, max-age=86400", page: false)
            }
        }
        routes.addPublic(.get, "app/{version}/{file}", summary: "A client asset; its URL carries the build's version, so it never changes") {
            request, context in
            guard context.parameters.get("version") == assets.version, let file = context.parameters.get("file"), let asset = assets.files[file],
                  file != "index.html", file != "sw.js" else {
                throw Problem.notFound("No such asset in this version of the client; reload the page.")
            }
            return Self.serve(asset, request, cache: "public, max-age=31536000, immutable", page: false)
        }
    }

    static func serve(_ asset: WebAssets.Asset, _ request: Request, cache: String, page: Bool) -> Response {
        var headers: HTTPFields = [.contentType: asset.type, .cacheControl: cache, .eTag: asset.etag, .xContentTypeOptions: "nosniff",
                                   .vary: "Accept-Encoding"]
        headers[Self.referrerPolicy] = "same-origin"
        if page {
            headers[.contentSecurityPolicy] = contentSecurityPolicy
            headers[Self.permissionsPolicy] = "camera=(self), geolocation=(self), microphone=()"
        }
        if request.headers[.ifNoneMatch] == asset.etag { return Response(status: .notModified, headers: headers) }
        let accepts = (request.headers[.acceptEncoding] ?? "").lowercased().contains("gzip")
        if accepts, let gzipped = asset.gzipped {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: gzipped)))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    // Valid constant tokens, so the unwraps cannot fail.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let permissionsPolicy = HTTPField.Name("Permissions-Policy")!
    static let serviceWorkerAllowed = HTTPField.Name("Service-Worker-Allowed")!

    static func title(_ app: String) -> String {
        app.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

struct WebSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
