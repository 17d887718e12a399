import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import RemindersAPI
import StorageAPI
import Synchronization
import SyncAPI
import Testing

/// The reminders plugin on a clock the test moves: a reminder fires once when its time comes,
/// however many nodes look for it at once, and its owner's devices are told.
@Suite("Reminders")
struct ReminderTests {
    static let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins() + "  reminders: {}\n  sync: {}\n")

    /// The alerts published on the bus, as sync would deliver them.
    final class Alerts: Sendable {
        let received = Mutex<[UserAlert]>([])
        func start(_ bus: any MessageBus) -> Task<Void, Never> {
            let subscription = bus.subscribe(to: UserAlert.self)
            return Task { for await alert in subscription { received.withLock { $0.append(alert) } } }
        }
        var all: [UserAlert] { received.withLock { $0 } }
    }

    func fired(_ host: AppHost, nodes: Int) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<nodes { group.addTask { try await host.bus.request(FireDueReminders()).fired } }
            return try await group.reduce(0, +)
        }
    }

    @Test("a reminder a minute ahead fires once at its time, and the owner's devices are told")
    func firesOnce() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, host in
            let alerts = Alerts()
            let listening = alerts.start(host.bus)
            defer { listening.cancel() }
            let (token, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            let note = try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "Call mum"], token: token)["id"])
            let at = ISO8601DateFormatter().string(from: clock.now.addingTimeInterval(60))
            let set = try await api.send(.put, "/api/v1/reminders", json: ["subject": "notes/\(note)", "at": at, "title": "Call mum"], token: token)
            #expect(set.status == 200 && set["state"] == "pending")

            #expect(try await fired(host, nodes: 2) == 0, "not yet")
            clock.advance(by: 61)
            #expect(try await fired(host, nodes: 3) == 1, "three nodes look at once; one fires it")
            #expect(try await fired(host, nodes: 3) == 0, "and never again")
            let listed = try await api.send(.get, "/api/v1/reminders", token: token).items
            #expect(listed.count == 1 && listed.first?["state"] as? String == "fired" && listed.first?["firedAt"] != nil)
            try await Task.sleep(for: .milliseconds(100))
            #expect(alerts.all.map(\.user) == [owner] && alerts.all.first?.kind == "reminders.due")
            let feed = try await api.send(.get, "/api/v1/sync/changes?limit=100", token: token).items
            let shown = feed.first { $0["kind"] as? String == "reminders.reminder" }?["record"] as? [String: any Sendable]
            #expect(shown?["state"] as? String == "fired", "a device offline at that moment hears of it from the feed")

            // Moved to later, it is pending again and fires again then.
            let later = ISO8601DateFormatter().string(from: clock.now.addingTimeInterval(3600))
            #expect(try await api.send(.put, "/api/v1/reminders", json: ["subject": "notes/\(note)", "at": later], token: token)["state"] == "pending")
            clock.advance(by: 3601)
            #expect(try await fired(host, nodes: 2) == 1)
        }
    }

    @Test("a deleted note's reminder goes with it: it is not listed and never fires")
    func deletedNote() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, host in
            let alerts = Alerts()
            let listening = alerts.start(host.bus)
            defer { listening.cancel() }
            let (token, _) = try await api.signUp("ada")
            let gone = try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "Old plan"], token: token)["id"])
            let kept = try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "Call mum"], token: token)["id"])
            let at = ISO8601DateFormatter().string(from: clock.now.addingTimeInterval(60))
            for note in [gone, kept] {
                let set = try await api.send(.put, "/api/v1/reminders", json: ["subject": "notes/\(note)", "at": at, "title": "r"], token: token)
                #expect(set.status == 200)
            }
            #expect(try await api.send(.delete, "/api/v1/notes/\(gone)", token: token).status == 204)
            // The reminder goes by the note's SubjectDeleted event, handled as it arrives: give it a moment.
            var listed: [String] = []
            for _ in 0..<50 {
                listed = try await api.send(.get, "/api/v1/reminders", token: token).items.compactMap { $0["subject"] as? String }
                if listed == ["notes/\(kept)"] { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(listed == ["notes/\(kept)"])
            clock.advance(by: 61)
            #expect(try await fired(host, nodes: 1) == 1, "only the kept note's reminder fires")
            try await Task.sleep(for: .milliseconds(100))
            #expect(alerts.all.count == 1)
            // Cancelling what is not there is harmless: a delete retried, an app without reminders.
            #expect(try await host.bus.request(CancelReminder(owner: "nobody", subject: "notes/\(gone)")) == false)
        }
    }

    @Test("200 reminders due at once, four nodes looking: each fires exactly once")
    func severalNodes() async throws {
        let clock = ManualClock()
        try await TestApp.run(yaml: Self.yaml, clock: clock.pluginClock) { api, host in
            let alerts = Alerts()
            let listening = alerts.start(host.bus)
            defer { listening.cancel() }
            let (_, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            for index in 0..<200 {
                _ = try await host.bus.request(SetReminder(owner: owner, subject: "notes/n_\(index)", title: "r\(index)",
                                                           at: clock.now.addingTimeInterval(Double(index % 7))))
            }
            clock.advance(by: 10)
            var total = 0
            for _ in 0..<3 { total += try await fired(host, nodes: 4) }  // a look takes at most 100
            #expect(total == 200)
            try await Task.sleep(for: .milliseconds(200))
            let subjects = alerts.all.compactMap { try? JSONSerialization.jsonObject(with: $0.data.bytes) as? [String: Any] }.compactMap { $0["subject"] as? String }
            #expect(subjects.count == 200 && Set(subjects).count == 200)
        }
    }

    @Test("bad input says what to fix; another user's reminder is not there")
    func input() async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            #expect(try await api.send(.put, "/api/v1/reminders", json: ["subject": "notes/n_1"], token: token).status == 400)
            let bad = try await api.send(.put, "/api/v1/reminders", json: ["subject": "no slash", "at": "2030-01-01T00:00:00Z"], token: token)
            #expect(bad.status == 422 && bad.json["detail"] as? String ?? "" != "" && bad.text.contains("without spaces"))
            let far = try await api.send(.put, "/api/v1/reminders", json: ["subject": "notes/n_1", "at": "2090-01-01T00:00:00Z"], token: token)
            #expect(far.status == 422)
            // A note that does not exist is refused, after the input's own checks; one of hers is not.
            #expect(try await api.send(.put, "/api/v1/reminders", json: ["subject": "notes/n_1", "at": "2030-01-01T00:00:00Z"], token: token).status == 404)
            let note = try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "x"], token: token)["id"])
            #expect(try await api.send(.put, "/api/v1/reminders", json: ["subject": "notes/\(note)", "at": "2030-01-01T00:00:00Z"], token: token).status == 200)
            let (bob, _) = try await api.signUp("bob")
            #expect(try await api.send(.get, "/api/v1/reminders", token: bob).items.isEmpty)
            #expect(try await api.send(.delete, "/api/v1/reminders?subject=notes/\(note)", token: bob).status == 404)
            #expect(try await api.send(.delete, "/api/v1/reminders?subject=notes/\(note)", token: token).status == 204)
        }
    }
}
