import AppHost
import AppHostTestKit
import Bus
import ShareLinkAPI
import Foundation
import HTTPTypes
import Testing

@Suite("Share links over HTTP")
struct ShareLinkAPITests {
    let photos: Photos
    init() throws { photos = try Photos() }

    /// A signed-in user with one photo (EXIF GPS and time) shared; answers the token, the link and the photo id.
    func shared(_ client: APIClient, body: [String: any Sendable] = [:]) async throws -> (token: String, path: String, linkID: String, photo: String) {
        let token = try await client.getStarted()
        let photo = try await client.addPhoto(try await photos.jpeg(seed: 1, latitude: 49.2827, longitude: -123.1207, taken: "2024:05:03 14:22:10"),
                                              token: token, query: "tags=garden&notes=Lucy%20in%20the%20garden")
        let id = try #require(photo[string: "id"])
        let created = try await client.send(.post, "/api/v1/album/photos/\(id)/share", json: body, token: token)
        #expect(created.status == 201, "\(created.text)")
        let path = try #require(created["path"])
        let link = try #require((created.json["link"] as? [String: any Sendable])?["id"] as? String)
        return (token, path, link, id)
    }

    @Test("the public page has Open Graph tags; its image is a rendition without EXIF or GPS; the JSON form says the same")
    func page() async throws {
        try await IRemember.run { client, _ in
            let (_, path, _, _) = try await shared(client)
            let token = try #require(path.split(separator: "/").last.map(String.init))
            #expect(token.count == 43, "a 256-bit token in base64url")
            // Whatever Host the request names, the page never writes it (no public_url here: og:url is
            // left out and pictures are linked by path).
            let page = try await client.send(.get, path, headers: [HTTPField.Name("Host")!: "evil.example"])
            #expect(page.status == 200)
            #expect(page.contentType == "text/html; charset=utf-8")
            // Its notes are private unless the sharer chose to show them: the title is its time.
            #expect(page.text.contains("<meta property=\"og:title\" content=\"A photo from May 3, 2024 at 14:22\">"), "\(page.text)")
            #expect(!page.text.contains("Lucy in the garden"))
            #expect(page.text.contains("<meta property=\"og:image\" content=\"\(path)/image/0\">"))
            #expect(!page.text.contains("og:url") && !page.text.contains("evil.example"), "\(page.text)")
            #expect(!page.text.contains("Vancouver"), "the public page never tells where a photo was taken")
            let image = try await client.send(.get, "\(path)/image/0")
            #expect(image.status == 200)
            #expect(image.contentType == "image/jpeg")
            #expect(image.body.range(of: Data("Exif".utf8)) == nil, "the shared image carries no EXIF block")
            let json = try await client.send(.get, path + "?format=json", headers: [HTTPField.Name("Host")!: "evil.example"])
            #expect(json.json["title"] as? String == "A photo from May 3, 2024 at 14:22")
            #expect(json.json["url"] as? String == path && !json.text.contains("evil.example"))
            #expect((json.json["contents"] as? [[String: any Sendable]])?.first?["tags"] as? [String] == ["garden"])
            #expect(try await client.send(.get, "\(path)/image/1").status == 404)
        }
    }

    @Test("a photo's notes are shown only when the sharer chose them; with public_url, og:url and og:image are absolute on it")
    func notesChosenAndPublicURL() async throws {
        try await IRemember.run(yaml: IRemember.yaml(shareLink: "{ resolves_per_minute: 1000, public_url: 'https://photos.example.org/' }")) { client, _ in
            let (token, _, _, photo) = try await shared(client)
            let withNotes = try await client.send(.post, "/api/v1/album/photos/\(photo)/share", json: ["notes": true], token: token)
            #expect(withNotes.status == 201, "\(withNotes.text)")
            let path = try #require(withNotes["path"])
            let page = try await client.send(.get, path, headers: [HTTPField.Name("Host")!: "evil.example"])
            #expect(page.text.contains("<meta property=\"og:title\" content=\"Lucy in the garden\">"), "\(page.text)")
            #expect(page.text.contains("<meta property=\"og:url\" content=\"https://photos.example.org\(path)\">"))
            #expect(page.text.contains("<meta property=\"og:image\" content=\"https://photos.example.org\(path)/image/0\">"))
            #expect(!page.text.contains("evil.example"))
            let search = try await client.send(.post, "/api/v1/album/searches/share", json: ["tags": "garden", "notes": true] as [String: any Sendable], token: token)
            #expect(search.status == 422 && search.json["field"] as? String == "notes", "a search shows no notes: \(search.text)")
        }
    }

    @Test("revoked: 410 at once, page and image; unknown or malformed: 404")
    func revoke() async throws {
        try await IRemember.run { client, _ in
            let (token, path, link, _) = try await shared(client)
            #expect(try await client.send(.get, path).status == 200)
            let revoked = try await client.send(.delete, "/api/v1/share-link/links/\(link)", token: token)
            #expect(revoked.status == 200)
            #expect(revoked.json["revokedAt"] != nil)
            #expect(try await client.send(.get, path).status == 410)
            #expect(try await client.send(.get, path + "?format=json").problemCode == "gone")
            #expect(try await client.send(.get, "\(path)/image/0").status == 410)
            #expect(try await client.send(.get, "/api/v1/share-link/s/" + String(repeating: "A", count: 43)).status == 404)
            #expect(try await client.send(.get, "/api/v1/share-link/s/short").status == 404)
        }
    }

    @Test("a link never writes: POST, PUT, PATCH and DELETE are refused and change nothing")
    func readOnly() async throws {
        try await IRemember.run { client, _ in
            let (token, path, _, photo) = try await shared(client)
            for method in [HTTPRequest.Method.post, .put, .patch, .delete] {
                for target in [path, "\(path)/image/0"] {
                    let reply = try await client.send(method, target, json: ["notes": "changed", "tags": "hacked"])
                    #expect(reply.status == 405, "\(method) \(target): \(reply.status)")
                    #expect(reply.headers[.allow] == "GET, HEAD")
                }
            }
            let after = try await client.send(.get, "/api/v1/album/photos/\(photo)", token: token)
            #expect(after.json["notes"] as? String == "Lucy in the garden")
            #expect(after.json["version"] as? Int == 1)
            #expect(try await client.send(.get, path).status == 200)
        }
    }

    @Test("expiry: 410 once past")
    func expiry() async throws {
        let clock = ManualClock()
        try await IRemember.run(clock: clock) { client, _ in
            let (_, path, _, _) = try await shared(client, body: ["expiresInSeconds": 1])
            #expect(try await client.send(.get, path).status == 200, "open within its second")
            clock.advance(by: 1.1)
            #expect(try await client.send(.get, path).status == 410)
        }
    }

    @Test("password: asked for, wrong refused, right accepted (header or query); never stored or listed")
    func password() async throws {
        try await IRemember.run { client, _ in
            let (token, path, _, _) = try await shared(client, body: ["password": "blue garden gate"])
            let asked = try await client.send(.get, path)
            #expect(asked.status == 401)
            #expect(asked.text.contains("type=\"password\""))
            #expect(try await client.send(.get, path + "?format=json", headers: [HTTPField.Name("Share-Password")!: "wrong one!"]).status == 401)
            #expect(try await client.send(.get, path, headers: [HTTPField.Name("Share-Password")!: "blue garden gate"]).status == 200)
            let opened = try await client.send(.get, path + "?password=blue%20garden%20gate&format=json")
            #expect(opened.status == 200)
            // Its pictures load with the grant the page names, not with the password, and not without either.
            let image = try #require(opened.json["image"] as? String)
            let picture = try #require(URLComponents(string: image))
            #expect(picture.query?.hasPrefix("grant=") == true)
            #expect(picture.string?.contains("blue") == false)
            #expect(try await client.send(.get, picture.path + "?" + (picture.query ?? "")).status == 200)
            #expect(try await client.send(.get, path + "/image/0").status == 401)
            #expect(try await client.send(.get, path + "/image/0?grant=" + String(repeating: "0", count: 64)).status == 401)
            let list = try await client.send(.get, "/api/v1/share-link/links", token: token)
            #expect(!list.text.contains("blue garden gate"))
            #expect(!list.text.contains(String(path.split(separator: "/").last ?? "")))
            #expect((list.json["items"] as? [[String: any Sendable]])?.first?["hasPassword"] as? Bool == true)
        }
    }

    @Test("opening links is rate-limited per address, with Retry-After")
    func rateLimited() async throws {
        try await IRemember.run(yaml: IRemember.yaml(shareLink: "{ resolves_per_minute: 3 }")) { client, _ in
            let (_, path, _, _) = try await shared(client)
            for _ in 0..<3 { #expect(try await client.send(.get, path).status == 200) }
            let limited = try await client.send(.get, path + "?format=json")
            #expect(limited.status == 429)
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test("wrong passwords are limited, and past the limit even the right one waits")
    func passwordGuessing() async throws {
        try await IRemember.run(yaml: IRemember.yaml(shareLink: "{ resolves_per_minute: 1000, password_failures_per_hour: 3 }")) { client, _ in
            let (_, path, _, _) = try await shared(client, body: ["password": "blue garden gate"])
            for guess in ["guess one!", "guess two!", "guess three"] {
                #expect(try await client.send(.get, path + "?password=\(guess.replacingOccurrences(of: " ", with: "%20"))").status == 401)
            }
            #expect(try await client.send(.get, path + "?password=blue%20garden%20gate").status == 429)
        }
    }

    @Test("only the owner shares, lists and revokes; a search can be shared too")
    func ownership() async throws {
        try await IRemember.run { client, _ in
            let (alice, _, link, photo) = try await shared(client)
            let bob = try await client.getStarted()
            #expect(try await client.send(.post, "/api/v1/share-link/links", json: ["kind": "album.photo", "resource": ["photo": photo]] as [String: any Sendable],
                                          token: bob).status == 404)
            #expect(try await client.send(.delete, "/api/v1/share-link/links/\(link)", token: bob).status == 404)
            #expect((try await client.send(.get, "/api/v1/share-link/links", token: bob).json["items"] as? [Any])?.isEmpty == true)
            let unknownKind = try await client.send(.post, "/api/v1/share-link/links", json: ["kind": "bank.account", "resource": ["id": "1"]] as [String: any Sendable],
                                                    token: alice)
            #expect(unknownKind.status == 422)
            let search = try await client.send(.post, "/api/v1/album/searches/share", json: ["tags": "garden -work", "from": "2024-01-01"], token: alice)
            #expect(search.status == 201)
            let page = try await client.send(.get, (search["path"] ?? "") + "?format=json")
            #expect((page.json["contents"] as? [[String: any Sendable]])?.count == 1)
            #expect(page.json["title"] as? String == "Photos: #garden, not #work, from 2024-01-01")
        }
    }
}

@Suite("Share links over the bus")
struct ShareLinkBusTests {
    @Test("a token resolves to what it grants, read-only; revoked or wrong, it does not")
    func resolve() async throws {
        let jpeg = try await Photos().jpeg(seed: 2)
        try await IRemember.run { client, host in
            let token = try await client.getStarted()
            let photo = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let created = try await client.send(.post, "/api/v1/album/photos/\(photo)/share", json: ["password": "blue garden gate"], token: token)
            let secret = try #require(created["token"])
            let link = try #require((created.json["link"] as? [String: any Sendable])?["id"] as? String)
            let granted = try await host.bus.request(ResolveShareLink(token: secret, password: "blue garden gate"))
            #expect(granted.kind == "album.photo" && granted.resource == ["photo": photo] && granted.linkID == link)
            await #expect(throws: BusError.self) { try await host.bus.request(ResolveShareLink(token: secret)) }
            await #expect(throws: BusError.self) { try await host.bus.request(ResolveShareLink(token: secret, password: "not the one!")) }
            _ = try await client.send(.delete, "/api/v1/share-link/links/\(link)", token: token)
            do {
                _ = try await host.bus.request(ResolveShareLink(token: secret, password: "blue garden gate"))
                Issue.record("a revoked link resolved")
            } catch let error as BusError {
                #expect(error.code == .gone)
            }
        }
    }
}
