import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

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

    @Test("a colour that is not #rrggbb is refused by the config check")
    func badColour() async throws {
        await #expect(throws: (any Error).self) {
            try await TestApp.run(yaml: TestApp.yaml(extraPlugins: "  web: { theme_color: red }\n")) { _, _ in }
        }
    }
}
