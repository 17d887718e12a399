import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import NotesAPI
import Testing

/// A geotag or a reminder is of a subject its owning plugin says the caller may write, and goes
/// when the subject is deleted: geo and reminders ask notes over the bus (``CheckSubject``) and
/// follow its ``SubjectDeleted`` event; notes calls neither.
@Suite("Subjects: geotags and reminders only of what is yours, forgotten with it")
struct SubjectRulesTests {
    static let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  geo: {}\n  reminders: {}\n")

    func note(_ api: APIClient, _ token: String, _ title: String) async throws -> String {
        let reply = try await api.send(.post, "/api/v1/notes", json: ["title": title], token: token)
        guard reply.status == 201, let id = reply["id"] else { throw TestAppFailure("POST note: \(reply.status) \(reply.text)") }
        return id
    }

    func geotag(_ api: APIClient, _ token: String, _ subject: String) async throws -> APIClient.Reply {
        try await api.send(.put, "/api/v1/geo/tags", json: ["subject": subject, "latitude": 48.8584, "longitude": 2.2945] as [String: any Sendable],
                           token: token)
    }

    func reminder(_ api: APIClient, _ token: String, _ subject: String) async throws -> APIClient.Reply {
        try await api.send(.put, "/api/v1/reminders", json: ["subject": subject, "at": "2030-01-01T09:00:00Z", "title": "Look"], token: token)
    }

    @Test("another user's note or one that does not exist: 404 for both, the same sentence; a kind nobody offers: 422 naming the kinds")
    func refused() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let bobs = try await note(api, bob, "Bob's")
            for subject in ["notes/\(bobs)", "notes/n_nothere", "notes/..%2F"] {
                for reply in [try await geotag(api, ada, subject), try await reminder(api, ada, subject)] {
                    #expect(reply.status == 404, "\(subject): \(reply.status) \(reply.text)")
                    #expect((reply["detail"] ?? "").hasPrefix("There is no '\(subject)' of yours"), "\(reply.text)")
                    #expect(reply["field"] == "subject")
                    #expect(reply.problemCode == "not_found")
                }
            }
            for reply in [try await geotag(api, ada, "pins/x"), try await reminder(api, ada, "pins/x")] {
                #expect(reply.status == 422, "\(reply.text)")
                #expect(reply.json["field"] as? String == "subject")
                #expect((reply["detail"] ?? "").hasSuffix("the kinds here are: notes."), "\(reply.text)")
            }
            // Nothing was stored for ada, and bob's note has no geotag or reminder of anyone's.
            #expect(try await api.send(.get, "/api/v1/reminders", token: ada).items.isEmpty)
            #expect(try await api.send(.get, "/api/v1/geo/near?lat=48.86&lon=2.29&radiusKm=5", token: ada).items.isEmpty)
            #expect(try await api.send(.get, "/api/v1/geo/tags?subject=notes/\(bobs)", token: bob).status == 404)
            // Her own note: both are set.
            let mine = try await note(api, ada, "Ada's")
            #expect(try await geotag(api, ada, "notes/\(mine)").status == 200)
            #expect(try await reminder(api, ada, "notes/\(mine)").status == 200)
        }
    }

    @Test("deleting a note takes its geotag and reminder with it (by the event), and no one else's")
    func forgotten() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let gone = try await note(api, ada, "Going")
            let kept = try await note(api, ada, "Staying")
            let bobs = try await note(api, bob, "Bob's")
            for (token, id) in [(ada, gone), (ada, kept), (bob, bobs)] {
                #expect(try await geotag(api, token, "notes/\(id)").status == 200)
                #expect(try await reminder(api, token, "notes/\(id)").status == 200)
            }
            #expect(try await api.send(.delete, "/api/v1/notes/\(gone)", token: ada).status == 204)
            // The event is handled as it arrives: give it a moment.
            var geotagStatus = 200
            var reminders: [String] = []
            for _ in 0..<50 {
                geotagStatus = try await api.send(.get, "/api/v1/geo/tags?subject=notes/\(gone)", token: ada).status
                reminders = try await api.send(.get, "/api/v1/reminders", token: ada).items.compactMap { $0["subject"] as? String }
                if geotagStatus == 404 && reminders == ["notes/\(kept)"] { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(geotagStatus == 404, "the deleted note's geotag is gone")
            #expect(reminders == ["notes/\(kept)"], "the deleted note's reminder is gone, the other stays")
            #expect(try await api.send(.get, "/api/v1/geo/tags?subject=notes/\(kept)", token: ada).status == 200)
            #expect(try await api.send(.get, "/api/v1/geo/tags?subject=notes/\(bobs)", token: bob).status == 200)
            #expect(try await api.send(.get, "/api/v1/reminders", token: bob).items.count == 1)
        }
    }

    /// The NATS server `tools/test` starts (`tools/nats start`), if any.
    static let natsURL = ProcessInfo.processInfo.environment["QUIRE_TEST_NATS_URL"]

    @Test("over NATS: the check crosses the bus and the deleted note's geotag and reminder go with it",
          .enabled(if: natsURL != nil, "no NATS server: run tools/test, or tools/nats start"))
    func overNATS() async throws {
        let url = try #require(Self.natsURL)
        let prefix = "s" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let yaml = Self.yaml.replacingOccurrences(of: "plugins:\n", with: "bus: { transport: nats, url: '\(url)', subject_prefix: \(prefix) }\nplugins:\n")
        #expect(yaml.contains("transport: nats"))
        try await TestApp.run(yaml: yaml) { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let (bob, _) = try await api.signUp("bob")
            let bobs = try await note(api, bob, "Bob's")
            #expect(try await geotag(api, ada, "notes/\(bobs)").status == 404)
            #expect(try await reminder(api, ada, "notes/\(bobs)").status == 404)
            let mine = try await note(api, ada, "Mine")
            #expect(try await geotag(api, ada, "notes/\(mine)").status == 200)
            #expect(try await reminder(api, ada, "notes/\(mine)").status == 200)
            #expect(try await api.send(.delete, "/api/v1/notes/\(mine)", token: ada).status == 204)
            var (tag, reminders) = (200, 1)
            for _ in 0..<50 {
                tag = try await api.send(.get, "/api/v1/geo/tags?subject=notes/\(mine)", token: ada).status
                reminders = try await api.send(.get, "/api/v1/reminders", token: ada).items.count
                if tag == 404 && reminders == 0 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(tag == 404 && reminders == 0)
        }
    }

    @Test("notes answers CheckSubject over the bus: write for the owner's note, none for anyone else or no such note")
    func overTheBus() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, host in
            let (ada, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            let id = try await note(api, ada, "Mine")
            #expect(try await host.bus.request(CheckSubject<NoteSubject>(caller: owner, id: id)) == .write)
            #expect(try await host.bus.request(CheckSubject<NoteSubject>(caller: "someone-else", id: id)) == SubjectAccess.none)
            #expect(try await host.bus.request(CheckSubject<NoteSubject>(caller: owner, id: "n_nothere")) == SubjectAccess.none)
            #expect(try await host.bus.request(CheckSubject<NoteSubject>(caller: owner, id: "../x")) == SubjectAccess.none)
        }
    }

    @Test("an app without geo or reminders deletes notes all the same (notes asks neither)")
    func withoutFollowers() async throws {
        try await TestApp.run { api, _ in
            let (ada, _) = try await api.signUp("ada")
            let id = try await note(api, ada, "Alone")
            #expect(try await api.send(.delete, "/api/v1/notes/\(id)", token: ada).status == 204)
        }
    }

    @Test("the notes service names neither geo nor reminders: it publishes, they follow")
    func notesKnowsNeither() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Plugins/Notes/Notes")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("RemoveGeotag(") && !text.contains("CancelReminder("), "\(file) calls geo or reminders directly")
        }
    }
}
