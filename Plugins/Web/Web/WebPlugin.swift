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
///
/// Maps (the client's `<map-view>`): Leaflet from Debian's `libjs-leaflet`, served from
/// `/usr/share/javascript/leaflet` at `/vendor/leaflet/`, and tiles from `map_tiles` (OpenStreetMap
/// by default), whose origin the page's CSP allows for images.
public struct WebPlugin: Plugin {
    public struct Config: Sendable {
        var name: String?
        var shortName: String?
        var themeColor: String
        var backgroundColor: String
        var description: String
        var mapTiles: String
        var mapAttribution: String
        var leafletDirectory: String
        var readAloud: Bool
        /// "Share to <app>": the manifest's share_target, the service worker's intake (apps with notes).
        var shareTarget: Bool
    }

    /// OpenStreetMap's standard tiles (their use policy: light use, with attribution).
    static let openStreetMapTiles = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    static let leafletMissing = "The map needs Leaflet on the server: install Debian's libjs-leaflet (tools/setup does) and restart the server."

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
            SettingDescription("map_tiles", "URL with {z}, {x}, {y}", default: openStreetMapTiles, "Where maps get their tiles (the CSP allows its origin)"),
            SettingDescription("map_attribution", "text", default: "© OpenStreetMap contributors", "Said in the corner of every map"),
            SettingDescription("leaflet_dir", "directory", default: "/usr/share/javascript/leaflet", "Leaflet's files (Debian's libjs-leaflet)"),
            SettingDescription("read_aloud", "bool", default: "false", "A \"Read aloud\" button by captions, notes and words (the browser's speechSynthesis)"),
            SettingDescription("share_target", "bool", default: "false",
                               "The installed app is offered in the phone's share sheet: a shared title, text, link and photo become a new note"),
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
        let tiles = section.string("map_tiles").flatMap { $0.isEmpty ? nil : $0 } ?? openStreetMapTiles
        if tileOrigin(tiles) == nil || !["{z}", "{x}", "{y}"].allSatisfy({ tiles.contains($0) }) {
            section.report("map_tiles", "a tile address is http(s)://host/…{z}/{x}/{y}…, such as \(openStreetMapTiles)")
        }
        return Config(name: section.string("name"), shortName: section.string("short_name"), themeColor: colour("theme_color", "#1f5f8b"),
                      backgroundColor: colour("background_color", "#ffffff"), description: section.string("description") ?? "",
                      mapTiles: tiles, mapAttribution: section.string("map_attribution") ?? "© OpenStreetMap contributors",
                      leafletDirectory: section.string("leaflet_dir") ?? "/usr/share/javascript/leaflet",
                      readAloud: section.bool("read_aloud", default: false), shareTarget: section.bool("share_target", default: false))
    }

    let assets: WebAssets
    let appName: String
    let config: Config
    /// Leaflet's files by their path under /vendor/leaflet/; empty when it is not installed.
    let leaflet: [String: WebAssets.Asset]
    let pagePolicy: String

    public init(config: Config, context: PluginContext) async throws {
        guard let directory = Bundle.module.url(forResource: "Client", withExtension: nil) else {
            throw WebSetupError("The web client's files are missing from the build (Plugins/Web/Client).")
        }
        assets = try WebAssets(directory: directory)
        appName = context.appName
        self.config = config
        leaflet = Self.leafletFiles(config.leafletDirectory)
        pagePolicy = Self.contentSecurityPolicy(tiles: Self.tileOrigin(config.mapTiles))
    }

    /// `map` when Leaflet is there; the tiles and their attribution either way (the client says
    /// what is missing rather than showing an empty box).
    public var features: [String] {
        ["client", "offline"] + (leaflet.isEmpty ? [] : ["map"]) + ["map-tiles:\(config.mapTiles)", "map-attribution:\(config.mapAttribution)"]
            + (config.readAloud ? ["read-aloud"] : []) + (config.shareTarget ? ["share-target"] : [])
    }

    /// The files a map needs, read once: the ES module, its CSS and its marker images.
    static func leafletFiles(_ directory: String) -> [String: WebAssets.Asset] {
        var files: [String: WebAssets.Asset] = [:]
        let wanted = [("leaflet.esm.js", "text/javascript; charset=utf-8"), ("leaflet.css", "text/css; charset=utf-8")]
            + ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png", "marker-shadow.png"].map { ("images/\($0)", "image/png") }
        for (name, type) in wanted {
            guard let bytes = FileManager.default.contents(atPath: "\(directory)/\(name)") else { continue }
            files[name] = WebAssets.asset(bytes, type: type)
        }
        return files["leaflet.esm.js"] == nil ? [:] : files
    }

    /// The origin a tile address names (`{s}` subdomains as a wildcard), for the CSP; nil when it is not http(s).
    static func tileOrigin(_ template: String) -> String? {
        guard let scheme = ["https://", "http://"].first(where: { template.hasPrefix($0) }) else { return nil }
        let rest = template.dropFirst(scheme.count)
        let host = rest.prefix { $0 != "/" }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:{}".contains($0) }) else { return nil }
        return scheme + host.replacingOccurrences(of: "{s}", with: "*")
    }

    /// The page's policy: our own origin, and images from the map's tile server too.
    static func contentSecurityPolicy(tiles: String?) -> String {
        guard let tiles else { return contentSecurityPolicy }
        return contentSecurityPolicy.replacingOccurrences(of: "img-src 'self' blob: data:;", with: "img-src 'self' blob: data: \(tiles);")
    }

    /// Our own origin only; no inline script. Images may be blobs and data URLs (photos picked on
    /// the phone before they upload); the live WebSocket is same-origin.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; "
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
        var manifestFields: [String: Any] = [
            "name": name, "short_name": config.shortName ?? name, "description": config.description,
            "start_url": "/", "scope": "/", "display": "standalone", "orientation": "portrait",
            "theme_color": config.themeColor, "background_color": config.backgroundColor,
            "icons": [["src": "/app/\(assets.version)/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"]]
                + AppIcon.sizes.filter { $0 != 180 }.map { ["src": "/icon-\($0).png", "sizes": "\($0)x\($0)", "type": "image/png", "purpose": "any maskable"] },
        ]
        if config.shareTarget { manifestFields["share_target"] = Self.shareTarget() }
        let manifest = try JSONSerialization.data(withJSONObject: manifestFields, options: [.sortedKeys])
        let manifestAsset = WebAssets.asset(manifest, type: "application/manifest+json")

        let policy = pagePolicy
        routes.addPublic(.get, "", summary: "The web client's shell (no-cache: it names the current assets)") { request, _ in
            Self.serve(index, request, cache: "no-cache", page: true, policy: policy)
        }
        let leaflet = self.leaflet
        for path in ["vendor/leaflet/{file}", "vendor/leaflet/images/{file}"] {
            routes.addPublic(.get, path, summary: "Leaflet, for maps (Debian's libjs-leaflet)") { request, context in
                guard !leaflet.isEmpty else { throw Problem.notFound(Self.leafletMissing) }
                let file = (path.contains("/images/") ? "images/" : "") + (context.parameters.get("file") ?? "")
                guard let asset = leaflet[file] else { throw Problem.notFound("Leaflet has no file \(file) here.") }
                return Self.serve(asset, request, cache: "public, max-age=86400", page: false)
            }
        }
        routes.addPublic(.get, "sw.js", summary: "The service worker: keeps the shell and assets for offline use") { request, _ in
            var response = Self.serve(worker, request, cache: "no-cache", page: false)
            response.headers[Self.serviceWorkerAllowed] = "/"
            return response
        }
        // The service worker takes a share (sw.js); this answers only when none runs yet (the app
        // never opened on this phone since it was installed, or its data cleared): nothing of the
        // share is read or kept, and the app opens saying to share again.
        let shareTarget = config.shareTarget
        routes.addPublic(.post, "share-target", summary: "Where a share lands when no service worker took it: 303 to the app, which asks to share again") { _, _ in
            guard shareTarget else { throw Problem.notFound("This app takes no shares from other apps; its YAML turns that on with web: { share_target: true }.") }
            return Response(status: .seeOther, headers: [.location: "/#/share?missed=1", .cacheControl: "no-store"])
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

    /// The manifest's share_target (Web Share Target level 2): a multipart POST of what is shared.
    static func shareTarget() -> [String: Any] { [
        "action": "/share-target", "method": "POST", "enctype": "multipart/form-data",
        "params": ["title": "title", "text": "text", "url": "url", "files": [["name": "photo", "accept": ["image/*"]]]] as [String: Any],
    ] }

    static func serve(_ asset: WebAssets.Asset, _ request: Request, cache: String, page: Bool, policy: String = contentSecurityPolicy) -> Response {
        var headers: HTTPFields = [.contentType: asset.type, .cacheControl: cache, .eTag: asset.etag, .xContentTypeOptions: "nosniff",
                                   .vary: "Accept-Encoding"]
        headers[Self.referrerPolicy] = "same-origin"
        if page {
            headers[.contentSecurityPolicy] = policy
            // The microphone: Napkin Notes' voice note (voice-note.js asks for it only on its button's tap).
            headers[Self.permissionsPolicy] = "camera=(self), geolocation=(self), microphone=(self)"
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
