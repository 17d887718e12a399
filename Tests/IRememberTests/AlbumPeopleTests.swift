import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// iRemember's people (`album: { people: true }`): named with their relationship, boxed on photos,
/// a page of their photos, synced, and only ever the album owner's.
@Suite("iRemember: people in photos over HTTP")
struct AlbumPeopleTests {
    let photos: Photos
    init() throws { photos = try Photos() }

    static let yaml = TestApp.yaml(app: "iremember-test", extraPlugins: IRemember.plugins().replacingOccurrences(
        of: "album: { import_allow_networks", with: "album: { people: true, import_allow_networks") + "  sync: {}\n")
    static let box: [String: any Sendable] = ["x": 0.1, "y": 0.2, "w": 0.25, "h": 0.3]
    static let idempotency = HTTPField.Name("Idempotency-Key")!

    /// A tag's body: the person and the box (and the photo, as a phone's offline copy sends it).
    static func tag(_ person: String, _ box: [String: any Sendable] = box, photo: String? = nil) -> [String: any Sendable] {
        var body: [String: any Sendable] = ["person": person, "box": box]
        if let photo { body["photo"] = photo }
        return body
    }

    @Test("a person is named with their relationship, boxed on a photo, listed with their photos, renamed, and deleting them takes their boxes")
    func lifecycle() async throws {
        let first = try await photos.jpeg(seed: 1)
        let second = try await photos.jpeg(seed: 2)
        try await IRemember.run(yaml: Self.yaml) { client, _ in
            let manifest = try await client.send(.get, "/api/v1/manifest")
            let features = (manifest.json["plugins"] as? [[String: any Sendable]] ?? []).flatMap { $0["features"] as? [String] ?? [] }
            #expect(features.contains("people"), "switched on, the manifest says so: \(features)")
            let token = try await client.getStarted()
            let photoA = try #require(try await client.addPhoto(first, token: token, query: "takenAt=2024-05-03T10:00")[string: "id"])
            let photoB = try #require(try await client.addPhoto(second, token: token, query: "takenAt=2023-01-02T10:00")[string: "id"])
            let emma = try await client.send(.post, "/api/v1/album/people", json: ["name": "  Emma ", "relationship": "your granddaughter"], token: token,
                                             headers: [Self.idempotency: "emma-1"])
            #expect(emma.status == 201, "\(emma.text)")
            #expect(emma["name"] == "Emma" && emma["relationship"] == "your granddaughter")
            let emmaID = try #require(emma["id"])
            let again = try await client.send(.post, "/api/v1/album/people", json: ["name": "  Emma ", "relationship": "your granddaughter"], token: token,
                                              headers: [Self.idempotency: "emma-1"])
            #expect(again["id"] == emmaID, "the same Idempotency-Key (an offline create sent again) is the same person")
            let tom = try #require(try await client.send(.post, "/api/v1/album/people", json: ["name": "Tom", "relationship": "your son"], token: token)["id"])

            let tagged = try await client.send(.post, "/api/v1/album/photos/\(photoA)/people", json: Self.tag(emmaID, photo: photoA), token: token)
            #expect(tagged.status == 201, "\(tagged.text)")
            let face = try #require(tagged["id"])
            #expect((tagged.json["box"] as? [String: any Sendable])?["w"] as? Double == 0.25)
            #expect(try await client.send(.post, "/api/v1/album/photos/\(photoB)/people", json: Self.tag(emmaID), token: token).status == 201)
            #expect(try await client.send(.post, "/api/v1/album/photos/\(photoA)/people",
                                          json: Self.tag(tom, ["x": 0.6, "y": 0.1, "w": 0.2, "h": 0.2]), token: token).status == 201)
            // Named again on the same photo: the box moves, still one face.
            let moved = try await client.send(.post, "/api/v1/album/photos/\(photoA)/people",
                                              json: Self.tag(emmaID, ["x": 0.0, "y": 0.0, "w": 0.5, "h": 0.5]), token: token)
            #expect(moved.status == 200 && moved["id"] == face)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(photoA)/people", token: token).items.count == 2)

            let hers = try await client.send(.get, "/api/v1/album/people/\(emmaID)/photos", token: token)
            #expect(hers.items.compactMap { $0["id"] as? String } == [photoB, photoA], "every photo of her, oldest first")

            // The share page names who is in the photo, with their relationship.
            let link = try await client.send(.post, "/api/v1/album/photos/\(photoA)/share", json: [String: String](), token: token)
            let path = try #require(link["path"])
            let shared = try await client.send(.get, path + "?format=json")
            #expect(shared.text.contains("Emma — your granddaughter · Tom — your son"), "\(shared.text)")
            // The sharer may leave the names out of a link (that link only); a search share takes no such choice.
            let nameless = try await client.send(.post, "/api/v1/album/photos/\(photoA)/share", json: ["people": false], token: token)
            let namelessPage = try await client.send(.get, try #require(nameless["path"]) + "?format=json")
            #expect(namelessPage.status == 200 && !namelessPage.text.contains("Emma") && !namelessPage.text.contains("Tom —"), "\(namelessPage.text)")
            #expect(try await client.send(.get, path + "?format=json").text.contains("Emma — your granddaughter"), "the first link still names them")
            let search = try await client.send(.post, "/api/v1/album/searches/share", json: ["tags": "x", "people": false] as [String: any Sendable], token: token)
            #expect(search.status == 422 && search["field"] == "people", "\(search.text)")

            let renamed = try await client.send(.patch, "/api/v1/album/people/\(emmaID)", json: ["name": "Emma Rose"], token: token)
            #expect(renamed["name"] == "Emma Rose" && renamed["relationship"] == "your granddaughter")
            #expect(try await client.send(.get, "/api/v1/album/people", token: token).items.compactMap { $0["name"] as? String } == ["Emma Rose", "Tom"])

            // The feed carries both kinds, so the phone has them offline.
            let feed = try await client.send(.get, "/api/v1/sync/changes", token: token)
            let kinds = Set(feed.items.compactMap { $0["kind"] as? String })
            #expect(kinds.isSuperset(of: ["album.person", "album.face"]), "\(kinds)")

            #expect(try await client.send(.delete, "/api/v1/album/photos/\(photoA)/people/\(face)", token: token).status == 204)
            #expect(try await client.send(.get, "/api/v1/album/people/\(emmaID)/photos", token: token).items.count == 1)
            #expect(try await client.send(.delete, "/api/v1/album/people/\(emmaID)", token: token).status == 204)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(photoB)/people", token: token).items.isEmpty, "her boxes went with her")
            #expect(try await client.send(.get, "/api/v1/album/people/\(emmaID)", token: token).status == 404)
            // A deleted photo takes its boxes (Tom stays).
            #expect(try await client.send(.delete, "/api/v1/album/photos/\(photoA)", token: token).status == 204)
            #expect(try await client.send(.get, "/api/v1/album/people/\(tom)/photos", token: token).items.isEmpty)
            #expect(try await client.send(.get, "/api/v1/album/people/\(tom)", token: token).status == 200)
        }
    }

    @Test("refusals carry stable reasons: empty or long names, boxes outside the photo, unknown people")
    func refusals() async throws {
        let jpeg = try await photos.jpeg(seed: 1)
        try await IRemember.run(yaml: Self.yaml) { client, _ in
            let token = try await client.getStarted()
            let photo = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let empty = try await client.send(.post, "/api/v1/album/people", json: ["name": "   "], token: token)
            #expect(empty.status == 422 && empty["reason"] == "name_empty", "\(empty.text)")
            let long = try await client.send(.post, "/api/v1/album/people", json: ["name": String(repeating: "a", count: 81)], token: token)
            #expect(long.status == 422 && long["reason"] == "name_too_long")
            let person = try #require(try await client.send(.post, "/api/v1/album/people", json: ["name": "Emma"], token: token)["id"])
            for box: [String: any Sendable] in [["x": 0.9, "y": 0.1, "w": 0.2, "h": 0.2], ["x": -0.1, "y": 0.1, "w": 0.2, "h": 0.2], ["x": 0.1, "y": 0.1, "w": 0, "h": 0.2]] {
                let outside = try await client.send(.post, "/api/v1/album/photos/\(photo)/people", json: Self.tag(person, box), token: token)
                #expect(outside.status == 422 && outside["reason"] == "box_outside_photo", "\(box): \(outside.text)")
            }
            let unknown = try await client.send(.post, "/api/v1/album/photos/\(photo)/people", json: Self.tag("hnobody"), token: token)
            #expect(unknown.status == 404 && unknown["reason"] == "unknown_person", "\(unknown.text)")
            let misspelt = try await client.send(.post, "/api/v1/album/photos/\(photo)/people", json: ["persn": person, "box": Self.box] as [String: any Sendable], token: token)
            #expect(misspelt.status == 400)
        }
    }

    @Test("another user cannot see, tag, rename or delete the owner's people, nor tag the owner's photos")
    func access() async throws {
        let jpeg = try await photos.jpeg(seed: 1)
        try await IRemember.run(yaml: Self.yaml) { client, _ in
            let owner = try await client.getStarted()
            let other = try await client.getStarted()
            let photo = try #require(try await client.addPhoto(jpeg, token: owner)[string: "id"])
            let person = try #require(try await client.send(.post, "/api/v1/album/people", json: ["name": "Emma"], token: owner)["id"])
            let face = try #require(try await client.send(.post, "/api/v1/album/photos/\(photo)/people", json: Self.tag(person), token: owner)["id"])
            let theirs = try #require(try await client.send(.post, "/api/v1/album/people", json: ["name": "Mallory"], token: other)["id"])

            #expect(try await client.send(.get, "/api/v1/album/people", token: other).items.compactMap { $0["name"] as? String } == ["Mallory"])
            #expect(try await client.send(.get, "/api/v1/album/people/\(person)", token: other).status == 404)
            #expect(try await client.send(.get, "/api/v1/album/people/\(person)/photos", token: other).status == 404)
            #expect(try await client.send(.patch, "/api/v1/album/people/\(person)", json: ["name": "X"], token: other).status == 404)
            #expect(try await client.send(.delete, "/api/v1/album/people/\(person)", token: other).status == 404)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(photo)/people", token: other).status == 404)
            // Their own person on the owner's photo, or the owner's person on a photo of theirs: not found.
            #expect(try await client.send(.post, "/api/v1/album/photos/\(photo)/people", json: Self.tag(theirs), token: other).status == 404)
            #expect(try await client.send(.delete, "/api/v1/album/photos/\(photo)/people/\(face)", token: other).status == 404)
            #expect(try await client.send(.get, "/api/v1/album/people", token: nil).status == 401)
            let feed = try await client.send(.get, "/api/v1/sync/changes", token: other)
            #expect(!feed.text.contains(person) && !feed.text.contains("Emma"), "the other user's phone never receives the owner's people")
            #expect(try await client.send(.get, "/api/v1/album/people/\(person)", token: owner)["name"] == "Emma")
        }
    }

    @Test("switched off (the default), the routes answer 404 people_off and the manifest has no people feature")
    func off() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let off = try await client.send(.get, "/api/v1/album/people", token: token)
            #expect(off.status == 404 && off["reason"] == "people_off", "\(off.text)")
            let manifest = try await client.send(.get, "/api/v1/manifest")
            let features = (manifest.json["plugins"] as? [[String: any Sendable]] ?? []).flatMap { $0["features"] as? [String] ?? [] }
            #expect(features.contains("photos") && !features.contains("people"), "\(features)")
        }
    }
}
