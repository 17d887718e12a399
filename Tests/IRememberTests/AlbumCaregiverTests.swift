import AppHost
import AppHostTestKit
import AudioAPI
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// iRemember's caregivers (`album: { caregivers: true }`): the access rules, as for every route.
@Suite("iRemember: a caregiver reaches that album and nothing else")
struct AlbumCaregiverTests {
    let photos: Photos
    init() throws { photos = try Photos() }

    static func yaml(caregivers: Bool = true) -> String {
        TestApp.yaml(app: "iremember-test", extraPlugins: IRemember.plugins()
            .replacingOccurrences(of: "album: { ", with: "album: { caregivers: \(caregivers), ")
            + "  notes: {}\n")
    }

    static func login(_ client: APIClient, _ username: String) async throws -> String {
        let reply = try await client.send(.post, "/api/v1/auth/login", json: ["username": username, "password": "a good password"])
        return try #require(reply["access_token"], "login \(username): \(reply.text)")
    }

    /// The owner invites, `anna` accepts: (owner's token, owner's id, anna's token, the invitation's token).
    static func helping(_ client: APIClient, owner: String, ownerName: String = "Mum") async throws
        -> (owner: String, ownerID: String, anna: String, invitation: String) {
        let ownerLogin = try await client.signUp(owner)
        let anna = try await client.signUp("anna-\(owner)").token
        let invited = try await client.send(.post, "/api/v1/album/caregivers/invitations", json: ["name": ownerName, "origin": "https://photos.example.org"],
                                            token: ownerLogin.token)
        #expect(invited.status == 201, "\(invited.text)")
        let token = try #require(invited["token"])
        #expect(invited["path"] == "/#/help/\(token)")
        #expect(invited["qrSVG"]?.hasPrefix("<svg") == true)
        let accepted = try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": token, "name": "Anna"], token: anna)
        #expect(accepted.status == 201, "\(accepted.text)")
        let ownerID = try #require(ownerLogin.login["accountId"])
        #expect(accepted["owner"] == ownerID)
        #expect(accepted["ownerName"] == ownerName)
        return (ownerLogin.token, ownerID, anna, token)
    }

    @Test("the caregiver adds a captioned photo the owner sees as added by them; every other route of the owner's is out of reach")
    func caregiverReachesThatAlbumOnly() async throws {
        let jpeg = try await photos.jpeg(seed: 41)
        try await TestApp.run(yaml: Self.yaml()) { client, _ in
            let (owner, ownerID, anna, _) = try await Self.helping(client, owner: "rose")
            let ownPhoto = try await client.addPhoto(jpeg, token: owner, query: "notes=private")
            let ownID = try #require(ownPhoto[string: "id"])
            let note = try await client.send(.post, "/api/v1/notes", json: ["title": "Rose's note"], token: owner)
            #expect(note.status == 201, "\(note.text)")

            // Anna helps: she lists the album, adds a photo, captions it.
            let album = "/api/v1/album/helping/\(ownerID)"
            #expect(try await client.send(.get, "/api/v1/album/helping", token: anna).items.first?["owner"] as? String == ownerID)
            #expect(try await client.photoIDs("\(album)/photos", token: anna) == [ownID])
            let added = try await client.upload(.post, "\(album)/photos?takenAt=2024-06-01T10:00", bytes: jpeg, contentType: "image/jpeg", token: anna)
            #expect(added.status == 201, "\(added.text)")
            #expect(added["addedBy"] == "Anna")
            let addedID = try #require(added["id"])
            let captioned = try await client.send(.patch, "\(album)/photos/\(addedID)", json: ["notes": "Tom's birthday at the lake"], token: anna)
            #expect(captioned.status == 200, "\(captioned.text)")
            #expect(try await client.send(.get, "\(album)/photos/\(addedID)/image/thumb", token: anna).status == 200)

            // The owner sees it in their own album, added by Anna; it is not in Anna's own album.
            let seen = try await client.send(.get, "/api/v1/album/photos/\(addedID)", token: owner)
            #expect(seen["addedBy"] == "Anna")
            #expect(seen["notes"] == "Tom's birthday at the lake")
            #expect(try await client.send(.get, "/api/v1/album/photos/\(ownID)", token: owner)["addedBy"] == nil)
            #expect(try await client.photoIDs("/api/v1/album/photos", token: anna).isEmpty)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(addedID)", token: anna).status == 404)

            // Nothing else of the owner's: their routes act on Anna's own (empty) data, notes included.
            for (method, path) in [(HTTPRequest.Method.get, "/api/v1/album/photos/\(ownID)"), (.delete, "/api/v1/album/photos/\(ownID)"),
                                   (.post, "/api/v1/album/photos/\(ownID)/share"), (.get, "/api/v1/album/photos/\(ownID)/markup"),
                                   (.get, "/api/v1/notes/\(try #require(note["id"]))"), (.get, "/api/v1/album/caregivers")] {
                let reply = try await client.send(method, path, token: anna)
                if path.hasSuffix("/caregivers") {
                    #expect(reply.status == 200 && reply.items.isEmpty, "\(path): \(reply.text)")  // her own (no helpers), not Rose's
                } else {
                    #expect(reply.status == 404, "\(method) \(path): \(reply.status) \(reply.text)")
                }
            }
            #expect(try await client.send(.get, "/api/v1/notes", token: anna).items.isEmpty)
            // The caregiver routes reach only the album's photos: no delete, share, mark-up or caregivers under them.
            for (method, path) in [(HTTPRequest.Method.delete, "\(album)/photos/\(ownID)"), (.post, "\(album)/photos/\(ownID)/share"),
                                   (.get, "\(album)/photos/\(ownID)/markup"), (.get, "\(album)/caregivers"), (.get, "\(album)/notes")] {
                let status = try await client.send(method, path, token: anna).status
                #expect(status == 404 || status == 405, "\(method) \(path): \(status)")
            }
            // The place stays the owner's.
            #expect(try await client.send(.patch, "\(album)/photos/\(ownID)", json: ["location": ["latitude": 1.0, "longitude": 2.0]], token: anna).status == 422)
            // Someone who is not a caregiver of this album: 403 not_caregiver on every caregiver route.
            let stranger = try await client.signUp("stranger").token
            for (method, path) in [(HTTPRequest.Method.get, "\(album)/photos"), (.get, "\(album)/photos/\(ownID)"),
                                   (.get, "\(album)/photos/\(ownID)/image/thumb"), (.patch, "\(album)/photos/\(ownID)"), (.post, "\(album)/restore")] {
                let reply = try await client.send(method, path, json: method == .patch ? ["notes": "x"] : nil, token: stranger)
                #expect(reply.status == 403 && reply["reason"] == "not_caregiver", "\(method) \(path): \(reply.status) \(reply.text)")
            }
            #expect(try await client.send(.get, "\(album)/photos", token: nil).status == 401)
        }
    }

    @Test("an edit merged over a caregiver's caption says who wrote it (replacedBy); over the owner's own, nobody")
    func replacedByNamesTheCaregiver() async throws {
        let jpeg = try await photos.jpeg(seed: 43)
        try await TestApp.run(yaml: Self.yaml()) { client, _ in
            let (owner, ownerID, anna, _) = try await Self.helping(client, owner: "iris")
            let id = try #require(try await client.addPhoto(jpeg, token: owner)[string: "id"])
            let base = try #require(try await client.send(.get, "/api/v1/album/photos/\(id)", token: owner).json["version"] as? Int)
            let album = "/api/v1/album/helping/\(ownerID)"
            let captioned = try await client.send(.patch, "\(album)/photos/\(id)", json: ["notes": "Tom's birthday"], token: anna)
            #expect(captioned.status == 200, "\(captioned.text)")
            // Mum's phone wrote offline on the version before Anna's caption: merged over it, and told it was Anna's.
            let merged = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["notes": "With Grandpa"], token: owner,
                                               headers: [.ifMatch: "\"\(base)\""])
            #expect(merged.status == 200, "\(merged.text)")
            #expect((merged.json["replaced"] as? [String: any Sendable])?["notes"] as? String == "Tom's birthday")
            #expect(merged["replacedBy"] == "Anna")
            // Anna's caption written on an older version, over Mum's own words: replaced, by nobody named.
            let before = try #require(captioned.json["version"] as? Int)
            let over = try await client.send(.patch, "\(album)/photos/\(id)", json: ["notes": "At the lake"], token: anna,
                                             headers: [.ifMatch: "\"\(before)\""])
            #expect(over.status == 200, "\(over.text)")
            #expect((over.json["replaced"] as? [String: any Sendable])?["notes"] as? String == "With Grandpa")
            #expect(over.json["replacedBy"] == nil)
            // A plain edit (on the version it is now): nothing replaced, nobody named.
            let now = try #require(over.json["version"] as? Int)
            let plain = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["notes": "Mine"], token: owner, headers: [.ifMatch: "\"\(now)\""])
            #expect(plain.json["replaced"] == nil && plain.json["replacedBy"] == nil, "\(plain.text)")
        }
    }

    @Test("a caregiver records a photo's caption in their voice; the owner plays it; a stranger is 403")
    func caregiverRecordsACaption() async throws {
        let jpeg = try await photos.jpeg(seed: 43)
        let yaml = Self.yaml() + "  audio: { max_seconds: 120, max_upload_bytes: 5242880 }\n"
        try await TestApp.run(yaml: yaml) { client, _ in
            let (owner, ownerID, anna, _) = try await Self.helping(client, owner: "elm")
            let id = try #require(try await client.addPhoto(jpeg, token: owner)[string: "id"])
            let tone = WAVFormat.encode((0..<32000).map { Int16(12000 * sin(2 * .pi * 330 * Double($0) / 16000)) }, sampleRate: 16000)
            let path = "/api/v1/album/helping/\(ownerID)/photos/\(id)/voice"
            let stranger = try await client.signUp("stranger-elm").token
            let refused = try await client.upload(.put, path, bytes: tone, contentType: "audio/wav", token: stranger)
            #expect(refused.status == 403 && refused["reason"] == "not_caregiver", "\(refused.text)")
            let recorded = try await client.upload(.put, path, bytes: tone, contentType: "audio/wav", token: anna)
            #expect(recorded.status == 200, "\(recorded.text)")
            #expect(recorded.json["voiceMs"] as? Int == 2000)
            let played = try await client.send(.get, "/api/v1/album/photos/\(id)/voice", token: owner)
            #expect(played.status == 200 && played.body.prefix(4) == Data("OggS".utf8))
            #expect(try await client.send(.get, path, token: anna).status == 200)
            #expect(try await client.send(.delete, path, token: anna).status == 405)  // deleting stays the owner's
        }
    }

    @Test("ending caregiving refuses the caregiver at once, restore links too")
    func endedCaregiverIsRefused() async throws {
        let jpeg = try await photos.jpeg(seed: 42)
        try await TestApp.run(yaml: Self.yaml()) { client, _ in
            let (owner, ownerID, anna, _) = try await Self.helping(client, owner: "lily")
            let album = "/api/v1/album/helping/\(ownerID)"
            let restore = try await client.send(.post, "\(album)/restore", json: [String: String](), token: anna)
            #expect(restore.status == 201, "\(restore.text)")
            let listed = try await client.send(.get, "/api/v1/album/caregivers", token: owner)
            let annaID = try #require(listed.items.first?["id"] as? String)
            #expect(listed.items.first?["name"] as? String == "Anna")
            #expect(try await client.send(.delete, "/api/v1/album/caregivers/\(annaID)", token: owner).status == 204)

            #expect(try await client.send(.get, "/api/v1/album/caregivers", token: owner).items.isEmpty)
            #expect(try await client.send(.get, "/api/v1/album/helping", token: anna).items.isEmpty)
            for reply in [try await client.send(.get, "\(album)/photos", token: anna),
                          try await client.upload(.post, "\(album)/photos", bytes: jpeg, contentType: "image/jpeg", token: anna),
                          try await client.send(.post, "\(album)/restore", json: [String: String](), token: anna),
                          try await client.send(.post, "/api/v1/album/restore", json: ["token": try #require(restore["token"])])] {
                #expect(reply.status == 403 && reply["reason"] == "not_caregiver", "\(reply.status) \(reply.text)")
            }
            #expect(try await client.send(.delete, "/api/v1/album/caregivers/\(annaID)", token: owner).status == 404)
        }
    }

    @Test("an invitation works once and for a week; used, expired, unknown and one's own are refused with a stable reason")
    func invitationRefusals() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml(), clock: clock.pluginClock) { client, _ in
            let (owner, _, _, used) = try await Self.helping(client, owner: "ivy")
            let ben = try await client.signUp("ben").token
            let again = try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": used, "name": "Ben"], token: ben)
            #expect(again.status == 410 && again["reason"] == "invitation_used", "\(again.text)")
            #expect(again["detail"]?.contains("Ask for a new one") == true)
            let look = try await client.send(.post, "/api/v1/album/caregivers/invitations/look", json: ["token": used], token: ben)
            #expect(look.status == 410 && look["reason"] == "invitation_used")
            for token in ["x", String(repeating: "A", count: 43)] {
                let unknown = try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": token, "name": "Ben"], token: ben)
                #expect(unknown.status == 404 && unknown["reason"] == "invitation_unknown", "\(unknown.text)")
            }
            let fresh = try #require(try await client.send(.post, "/api/v1/album/caregivers/invitations", token: owner)["token"])
            let own = try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": fresh, "name": "Me"], token: owner)
            #expect(own.status == 422 && own["reason"] == "invitation_own", "\(own.text)")
            let nameless = try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": fresh], token: ben)
            #expect(nameless.status == 422 && nameless["field"] == "name", "\(nameless.text)")
            clock.advance(by: 7 * 24 * 3600 + 1)
            let benAgain = try await Self.login(client, "ben")
            let expired = try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": fresh, "name": "Ben"], token: benAgain)
            #expect(expired.status == 410 && expired["reason"] == "invitation_expired", "\(expired.text)")
            #expect(try await client.send(.get, "/api/v1/album/helping", token: benAgain).items.isEmpty)
        }
    }

    @Test("a restore link signs a new phone in as the user (a device account gets its secret; old sessions go on); once, 15 minutes, 3 an hour")
    func restoreAccess() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml(), clock: clock.pluginClock) { client, _ in
            // The user is a device account ("Get Started"), as iRemember makes them.
            let started = try await client.send(.post, "/api/v1/auth/device")
            let owner = try #require(started["access_token"]), ownerID = try #require(started["accountId"])
            let anna = try await client.signUp("anna").token
            let invitation = try #require(try await client.send(.post, "/api/v1/album/caregivers/invitations", json: ["name": "Dad"], token: owner)["token"])
            #expect(try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": invitation, "name": "Anna"], token: anna).status == 201)

            let made = try await client.send(.post, "/api/v1/album/helping/\(ownerID)/restore", json: ["origin": "http://127.0.0.1:8080"], token: anna)
            #expect(made.status == 201, "\(made.text)")
            let token = try #require(made["token"])
            #expect(made["path"] == "/#/restore/\(token)")
            let restored = try await client.send(.post, "/api/v1/album/restore", json: ["token": token])
            #expect(restored.status == 200, "\(restored.text)")
            #expect(restored["accountId"] == ownerID)
            let newPhone = try #require(restored["access_token"])
            #expect(try await client.send(.get, "/api/v1/auth/me", token: newPhone)["accountId"] == ownerID)
            // The device secret signs the new phone in again, as on the old one; the old session goes on.
            let secret = try #require(restored["deviceSecret"])
            #expect(secret == started["deviceSecret"])
            #expect(try await client.send(.post, "/api/v1/auth/device", json: ["accountId": ownerID, "deviceSecret": secret]).status == 200)
            #expect(try await client.send(.get, "/api/v1/album/photos", token: owner).status == 200)
            #expect(try await client.send(.post, "/api/v1/auth/refresh", json: ["refresh_token": try #require(started["refresh_token"])]).status == 200)

            let twice = try await client.send(.post, "/api/v1/album/restore", json: ["token": token])
            #expect(twice.status == 410 && twice["reason"] == "restore_used", "\(twice.text)")
            let unknown = try await client.send(.post, "/api/v1/album/restore", json: ["token": String(repeating: "B", count: 43)])
            #expect(unknown.status == 404 && unknown["reason"] == "restore_unknown", "\(unknown.text)")

            let late = try #require(try await client.send(.post, "/api/v1/album/helping/\(ownerID)/restore", token: anna)["token"])
            clock.advance(by: 15 * 60 + 1)
            let expired = try await client.send(.post, "/api/v1/album/restore", json: ["token": late])
            #expect(expired.status == 410 && expired["reason"] == "restore_expired", "\(expired.text)")

            // 3 an hour for one album: the fourth waits.
            let annaAgain = try await Self.login(client, "anna")
            let third = try await client.send(.post, "/api/v1/album/helping/\(ownerID)/restore", token: annaAgain)
            #expect(third.status == 201, "\(third.text)")
            let fourth = try await client.send(.post, "/api/v1/album/helping/\(ownerID)/restore", token: annaAgain)
            #expect(fourth.status == 429 && fourth["reason"] == "rate_limited", "\(fourth.text)")
            #expect(fourth.headers[.retryAfter] != nil)
        }
    }

    @Test("no invitation or restore token, nor the device secret a restore hands over, is ever logged")
    func tokensAreNeverLogged() async throws {
        let logs = LogCapture()
        let secrets = Mutex<[String]>([])
        try await TestApp.run(yaml: Self.yaml(), logs: logs) { client, _ in
            let (_, ownerID, anna, invitation) = try await Self.helping(client, owner: "oak")
            let restore = try #require(try await client.send(.post, "/api/v1/album/helping/\(ownerID)/restore", token: anna)["token"])
            let restored = try await client.send(.post, "/api/v1/album/restore", json: ["token": restore])
            _ = try await client.send(.post, "/api/v1/album/restore", json: ["token": restore])  // refused: used
            _ = try await client.send(.post, "/api/v1/album/caregivers/invitations/accept", json: ["token": invitation, "name": "A"], token: anna)
            let refresh = try #require(restored["refresh_token"])
            secrets.withLock { $0 = [invitation, restore, refresh] }
        }
        let text = logs.text
        #expect(!text.isEmpty, "the capture saw the app's log lines")
        let logged = secrets.withLock { $0 }
        #expect(logged.count == 3)
        for secret in logged { #expect(!text.contains(secret), "a token was logged") }
    }

    @Test("without caregivers: true the routes do not exist and the manifest does not say caregivers")
    func switchedOff() async throws {
        try await TestApp.run(yaml: Self.yaml(caregivers: false)) { client, _ in
            let owner = try await client.signUp("off").token
            #expect(try await client.send(.post, "/api/v1/album/caregivers/invitations", token: owner).status == 404)
            #expect(try await client.send(.post, "/api/v1/album/restore", json: ["token": "x"]).status == 404)
            let manifest = try await client.send(.get, "/api/v1/manifest")
            #expect(!manifest.text.contains("caregivers"))
        }
    }
}
