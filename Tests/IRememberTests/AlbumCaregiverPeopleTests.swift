import AppHost
import AppHostTestKit
import AudioAPI
import Foundation
import HTTPTypes
import Testing

/// iRemember's caregivers name people and record captions in the album they help with, and page
/// through it: the access rules, as AlbumCaregiverTests checks them for photos.
@Suite("iRemember: a caregiver names people in that album only, records captions and pages the album")
struct AlbumCaregiverPeopleTests {
    let photos: Photos
    init() throws { photos = try Photos() }

    static func yaml(people: Bool = true) -> String {
        AlbumCaregiverTests.yaml().replacingOccurrences(of: "album: { caregivers: true, ", with: "album: { caregivers: true, people: \(people), ")
    }

    static let box: [String: any Sendable] = ["x": 0.1, "y": 0.2, "w": 0.25, "h": 0.3]

    /// A name's body: the person and the box (and the photo, as a phone sends it).
    static func tag(_ person: String, photo: String? = nil) -> [String: any Sendable] {
        var body: [String: any Sendable] = ["person": person, "box": box]
        if let photo { body["photo"] = photo }
        return body
    }

    @Test("a caregiver names a person on the album's photo: the owner sees the name, relationship and who added it; nothing else of anyone's is reached")
    func caregiverNamesPeople() async throws {
        let jpeg = try await photos.jpeg(seed: 51)
        let other = try await photos.jpeg(seed: 52)
        try await TestApp.run(yaml: Self.yaml()) { client, _ in
            let (owner, ownerID, anna, _) = try await AlbumCaregiverTests.helping(client, owner: "fern")
            let photo = try #require(try await client.addPhoto(jpeg, token: owner)[string: "id"])
            let album = "/api/v1/album/helping/\(ownerID)"

            let emma = try await client.send(.post, "\(album)/people", json: ["name": "Emma", "relationship": "your granddaughter"], token: anna)
            #expect(emma.status == 201, "\(emma.text)")
            #expect(emma["addedBy"] == "Anna")
            let emmaID = try #require(emma["id"])
            let tagged = try await client.send(.post, "\(album)/photos/\(photo)/people", json: Self.tag(emmaID, photo: photo), token: anna)
            #expect(tagged.status == 201, "\(tagged.text)")
            #expect(tagged["addedBy"] == "Anna")
            #expect(try await client.send(.get, "\(album)/people", token: anna).items.compactMap { $0["name"] as? String } == ["Emma"])
            #expect(try await client.send(.get, "\(album)/photos/\(photo)/people", token: anna).items.count == 1)

            // The owner sees her, with her relationship and who named her; Anna's own album has no people.
            let theirs = try await client.send(.get, "/api/v1/album/people", token: owner)
            #expect(theirs.items.first?["name"] as? String == "Emma" && theirs.items.first?["relationship"] as? String == "your granddaughter")
            #expect(theirs.items.first?["addedBy"] as? String == "Anna")
            let faces = try await client.send(.get, "/api/v1/album/photos/\(photo)/people", token: owner)
            #expect(faces.items.first?["person"] as? String == emmaID && faces.items.first?["addedBy"] as? String == "Anna", "\(faces.text)")
            #expect(try await client.send(.get, "/api/v1/album/people", token: anna).items.isEmpty)

            // Another album's photo or person is not found through this album; the owner's person is not Anna's.
            let stranger = try await client.signUp("stranger-fern").token
            let strangerPhoto = try #require(try await client.addPhoto(other, token: stranger)[string: "id"])
            let strangerPerson = try #require(try await client.send(.post, "/api/v1/album/people", json: ["name": "Zed"], token: stranger)["id"])
            let elsewhere = try await client.send(.post, "\(album)/photos/\(strangerPhoto)/people", json: Self.tag(emmaID), token: anna)
            #expect(elsewhere.status == 404, "\(elsewhere.text)")
            let notTheirs = try await client.send(.post, "\(album)/photos/\(photo)/people", json: Self.tag(strangerPerson), token: anna)
            #expect(notTheirs.status == 404, "\(notTheirs.text)")
            #expect(try await client.send(.post, "/api/v1/album/photos/\(photo)/people", json: Self.tag(emmaID), token: anna).status == 404)
            // Renaming and removing people stay the owner's: no such routes under helping.
            for method in [HTTPRequest.Method.patch, .delete] {
                let status = try await client.send(method, "\(album)/people/\(emmaID)", json: method == .patch ? ["name": "X"] : nil, token: anna).status
                #expect(status == 404 || status == 405, "\(method): \(status)")
            }

            // A stranger: 403 not_caregiver on every people route of the album.
            let face = try #require(tagged["id"])
            for (method, path, body) in [(HTTPRequest.Method.get, "\(album)/people", nil), (.post, "\(album)/people", ["name": "Eve"] as [String: any Sendable]),
                                         (.get, "\(album)/photos/\(photo)/people", nil),
                                         (.post, "\(album)/photos/\(photo)/people", Self.tag(emmaID)),
                                         (.delete, "\(album)/photos/\(photo)/people/\(face)", nil)] {
                let reply = try await client.send(method, path, json: body, token: stranger)
                #expect(reply.status == 403 && reply["reason"] == "not_caregiver", "\(method) \(path): \(reply.status) \(reply.text)")
            }
            #expect(try await client.send(.get, "\(album)/people", token: nil).status == 401)

            // Anna takes the name off again; the person stays.
            #expect(try await client.send(.delete, "\(album)/photos/\(photo)/people/\(face)", token: anna).status == 204)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(photo)/people", token: owner).items.isEmpty)
            #expect(try await client.send(.get, "/api/v1/album/people", token: owner).items.count == 1)
        }
    }

    @Test("ended caregiving refuses the people routes at once; people off answers people_off")
    func endedOrOff() async throws {
        let jpeg = try await photos.jpeg(seed: 53)
        try await TestApp.run(yaml: Self.yaml()) { client, _ in
            let (owner, ownerID, anna, _) = try await AlbumCaregiverTests.helping(client, owner: "moss")
            let photo = try #require(try await client.addPhoto(jpeg, token: owner)[string: "id"])
            let album = "/api/v1/album/helping/\(ownerID)"
            let tom = try #require(try await client.send(.post, "\(album)/people", json: ["name": "Tom"], token: anna)["id"])
            let annaID = try #require(try await client.send(.get, "/api/v1/album/caregivers", token: owner).items.first?["id"] as? String)
            #expect(try await client.send(.delete, "/api/v1/album/caregivers/\(annaID)", token: owner).status == 204)
            for (method, path, body) in [(HTTPRequest.Method.get, "\(album)/people", nil), (.post, "\(album)/people", ["name": "Eve"] as [String: any Sendable]),
                                         (.post, "\(album)/photos/\(photo)/people", Self.tag(tom))] {
                let reply = try await client.send(method, path, json: body, token: anna)
                #expect(reply.status == 403 && reply["reason"] == "not_caregiver", "\(method) \(path): \(reply.status) \(reply.text)")
            }
            #expect(try await client.send(.get, "/api/v1/album/photos/\(photo)/people", token: owner).items.isEmpty)
        }
        try await TestApp.run(yaml: Self.yaml(people: false)) { client, _ in
            let (_, ownerID, anna, _) = try await AlbumCaregiverTests.helping(client, owner: "reed")
            let off = try await client.send(.get, "/api/v1/album/helping/\(ownerID)/people", token: anna)
            #expect(off.status == 404 && off["reason"] == "people_off", "\(off.text)")
        }
    }

    @Test("the caption a caregiver records keeps whose voice it is; the owner's own recording clears it")
    func voiceKeepsWhose() async throws {
        let jpeg = try await photos.jpeg(seed: 54)
        try await TestApp.run(yaml: Self.yaml() + "  audio: { max_seconds: 120, max_upload_bytes: 5242880 }\n") { client, _ in
            let (owner, ownerID, anna, _) = try await AlbumCaregiverTests.helping(client, owner: "ash")
            let id = try #require(try await client.addPhoto(jpeg, token: owner)[string: "id"])
            let tone = WAVFormat.encode((0..<16000).map { Int16(9000 * sin(2 * .pi * 440 * Double($0) / 16000)) }, sampleRate: 16000)
            let recorded = try await client.upload(.put, "/api/v1/album/helping/\(ownerID)/photos/\(id)/voice", bytes: tone, contentType: "audio/wav", token: anna)
            #expect(recorded.status == 200 && recorded["voiceBy"] == "Anna", "\(recorded.text)")
            #expect(try await client.send(.get, "/api/v1/album/photos/\(id)", token: owner)["voiceBy"] == "Anna")
            let own = try await client.upload(.put, "/api/v1/album/photos/\(id)/voice", bytes: tone, contentType: "audio/wav", token: owner)
            #expect(own.status == 200 && own["voiceBy"] == nil, "\(own.text)")
            // Said as null, not left out: a phone merges the answer over the copy it holds.
            #expect(own.json.keys.contains("voiceBy") && own.json["voiceBy"] is NSNull, "\(own.text)")
        }
    }

    @Test("the caption a caregiver writes keeps who wrote it; the owner's own words clear it (said as null); tags alone keep it")
    func captionKeepsWhose() async throws {
        let jpeg = try await photos.jpeg(seed: 55)
        try await TestApp.run(yaml: Self.yaml()) { client, _ in
            let (owner, ownerID, anna, _) = try await AlbumCaregiverTests.helping(client, owner: "elm")
            let id = try #require(try await client.addPhoto(jpeg, token: owner)[string: "id"])
            let mine = try await client.send(.get, "/api/v1/album/photos/\(id)", token: owner)
            #expect(mine.json.keys.contains("captionBy") && mine.json["captionBy"] is NSNull, "\(mine.text)")
            let written = try await client.send(.patch, "/api/v1/album/helping/\(ownerID)/photos/\(id)", json: ["notes": "Tom at the lake"], token: anna)
            #expect(written.status == 200 && written["captionBy"] == "Anna", "\(written.text)")
            #expect(try await client.send(.get, "/api/v1/album/photos/\(id)", token: owner)["captionBy"] == "Anna")
            let tagged = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["tags": ["lake"]], token: owner)
            #expect(tagged.status == 200 && tagged["captionBy"] == "Anna", "\(tagged.text)")
            let same = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["notes": "Tom at the lake"], token: owner)
            #expect(same.status == 200 && same["captionBy"] == "Anna", "\(same.text)")
            let own = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["notes": "Tom at the lake, 1998"], token: owner)
            #expect(own.status == 200 && own.json["captionBy"] is NSNull, "\(own.text)")
        }
    }

    @Test("the album's photos page past the first page with the cursor, each once")
    func helpingPages() async throws {
        try await TestApp.run(yaml: Self.yaml()) { client, _ in
            let (owner, ownerID, anna, _) = try await AlbumCaregiverTests.helping(client, owner: "pine")
            var added: Set<String> = []
            for seed in 0..<5 {
                let jpeg = try await photos.jpeg(seed: 60 + seed)
                added.insert(try #require(try await client.addPhoto(jpeg, token: owner, query: "takenAt=2024-01-0\(seed + 1)T10:00")[string: "id"]))
            }
            var seen: [String] = []
            var path: String? = "/api/v1/album/helping/\(ownerID)/photos?limit=2"
            var pages = 0
            while let next = path {
                let page = try await client.send(.get, next, token: anna)
                #expect(page.status == 200, "\(page.text)")
                seen += page.items.compactMap { $0["id"] as? String }
                pages += 1
                path = (page.json["nextCursor"] as? String).map { "/api/v1/album/helping/\(ownerID)/photos?limit=2&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" }
                if pages > 5 { break }
            }
            #expect(pages == 3 && seen.count == 5 && Set(seen) == added, "\(pages) pages: \(seen)")
        }
    }
}
