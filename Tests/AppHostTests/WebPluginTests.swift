import AppHostTestKit
import Foundation
import HTTPTypes
import Testing
@testable import Web

@Suite("The web client's plugin")
struct WebPluginTests {
    static let yaml = TestApp.yaml(extraPlugins: "  web: { name: \"Napkin <Notes>\", theme_color: \"#8a5a00\" }\n")

    @Test("the shell: no-cache, a strict CSP, the app's name escaped, assets under the build's version")
    func shell() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let page = try await api.send(.get, "/")
            #expect(page.status == 200)
            #expect(page.headers[.cacheControl] == "no-cache")
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
            #expect(page.text.contains("<title>Napkin &lt;Notes&gt;</title>"))
            let version = try #require(page.text.split(separator: "/app/").dropFirst().first?.split(separator: "/").first.map(String.init))
            let script = try await api.send(.get, "/app/\(version)/app.js")
            #expect(script.status == 200)
            #expect(script.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(script.contentType == "text/javascript; charset=utf-8")
            #expect(try await api.send(.get, "/app/0000/app.js").status == 404)
            #expect(try await api.send(.get, "/app/\(version)/package.json").status == 404)
            let manifest = try await api.send(.get, "/manifest.webmanifest")
            #expect(manifest.json["theme_color"] as? String == "#8a5a00")
            #expect(manifest.json["start_url"] as? String == "/")
            let worker = try await api.send(.get, "/sw.js")
            #expect(worker.text.contains("\"\(version)\"") && worker.text.contains("app.js"))
        }
    }

    @Test("home-screen icons: PNGs of their sizes in the app's colour, named by the manifest")
    func icons() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let manifest = try await api.send(.get, "/manifest.webmanifest")
            let icons = try #require(manifest.json["icons"] as? [[String: Any]])
            let pngs = icons.compactMap { $0["src"] as? String }.filter { $0.hasSuffix(".png") }
            #expect(pngs == ["/icon-192.png", "/icon-512.png"])
            for (path, size) in [("/icon-192.png", 192), ("/icon-512.png", 512), ("/apple-touch-icon.png", 180)] {
                let icon = try await api.send(.get, path)
                #expect(icon.status == 200)
                #expect(icon.contentType == "image/png")
                let bytes = [UInt8](icon.body)
                #expect(bytes.prefix(8) == [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
                // IHDR: width and height, big-endian, right after the chunk's length and type.
                let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
                #expect(width == size && height == size)
            }
        }
    }

    @Test("the icon's picture: the app's colour around a page in the same place as icon.svg")
    func iconPicture() throws {
        let accent = try #require(AppIcon.RGB(hex: "#8a5a00"))
        #expect(AppIcon.colour(x: 10, y: 10, accent: accent) == accent)
        #expect(AppIcon.colour(x: 200, y: 200, accent: accent) == AppIcon.paper)
        #expect(AppIcon.colour(x: 350, y: 170, accent: accent) == AppIcon.fold)
        #expect(AppIcon.colour(x: 370, y: 130, accent: accent) == accent)
        #expect(AppIcon.colour(x: 260, y: 250, accent: accent) == accent)
        #expect(AppIcon.RGB(hex: "red") == nil)
    }

    @Test("the page preloads the first screen's modules, not another app's screens")
    func preload() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let page = try await api.send(.get, "/").text
            #expect(page.contains("rel=\"modulepreload\"") && page.contains("/app.js\"") && page.contains("/screen-signin.js\""))
            #expect(!page.contains("screen-album.js") && !page.contains("screen-notes.js"))
        }
        let source = """
            import { a } from "./a.js";
            import "./b.js";
            import {
              e,
            } from "./e.js";
            const screen = await import("./c.js");
            /** @type {import("./d.js").D} */
            """
        #expect(Set(WebAssets.staticImports(in: source)) == ["a.js", "b.js", "e.js"])
    }

    @Test("a colour that is not #rrggbb is refused by the config check")
    func badColour() async throws {
        await #expect(throws: (any Error).self) {
            try await TestApp.run(yaml: TestApp.yaml(extraPlugins: "  web: { theme_color: red }\n")) { _, _ in }
        }
    }
}
