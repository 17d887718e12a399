import AppHost
import AppHostTestKit
import Bus
import HTTPTypes
import ShareLinkAPI
import Testing

/// Share-link's kinds come from what the app's plugins offer, not from a list inside share-link.
@Suite("What plugins offer one another")
struct PluginOfferTests {
    func yaml(_ extra: String) -> String {
        TestApp.yaml(extraPlugins: """
              media: { renditions: [{ name: share }, { name: display }] }
              share-link: { rendition: share }
            \(extra)
            """)
    }

    func shareFeatures(_ client: APIClient) async throws -> [String] {
        let manifest = try await client.send(.get, "/api/v1/manifest")
        let plugins = manifest.json["plugins"] as? [[String: any Sendable]] ?? []
        return plugins.first { $0["id"] as? String == "share-link" }?["features"] as? [String] ?? []
    }

    @Test("with the album, share-link shares its photos and searches, and nothing the app does not have")
    func albumOffersItsKinds() async throws {
        try await TestApp.run(yaml: yaml("  drawing: {}\n  geo: {}\n  album: {}\n")) { client, host in
            #expect(try await shareFeatures(client) == ["share-links", "share:album.photo", "share:album.search"])
            do {
                _ = try await host.bus.request(CreateShareLink(owner: "acc_x", kind: "notebooks.notebook", resource: ["notebook": "n"]))
                Issue.record("a kind no plugin of this app offers was accepted")
            } catch let error as BusError {
                #expect(error.code == .invalid && error.message.contains("kinds: album.photo, album.search"), "\(error.message)")
            }
        }
    }

    @Test("without a plugin that offers a kind, share-link shares nothing and says so")
    func nothingOffered() async throws {
        try await TestApp.run(yaml: yaml("")) { client, host in
            #expect(try await shareFeatures(client) == ["share-links"])
            do {
                _ = try await host.bus.request(CreateShareLink(owner: "acc_x", kind: "album.photo", resource: ["photo": "p"]))
                Issue.record("a kind no plugin of this app offers was accepted")
            } catch let error as BusError {
                #expect(error.code == .invalid && error.message.contains("'album.photo' cannot be shared"), "\(error.message)")
            }
        }
    }
}
