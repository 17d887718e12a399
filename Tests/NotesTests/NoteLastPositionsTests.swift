import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
@testable import Notes
import StorageAPI
import Testing

/// The owner's last key kept in memory for creates (issue 42): taken in order, forgotten by any
/// write but the creates' own, never kept from a read a write raced.
@Suite("Napkin Notes: the last position kept for creates")
struct NoteLastPositionsTests {
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    @Test("a key read once is kept: creates side by side take increasing keys without reading again")
    func reserveInOrder() throws {
        let positions = NoteLastPositions()
        #expect(positions.reserve(owner: "ada", token: "n_1") == nil, "unknown until read")
        let first = try #require(positions.fill(owner: "ada", last: "U", generation: positions.generation("ada"), token: "n_1"))
        let second = try #require(positions.reserve(owner: "ada", token: "n_2"))
        let third = try #require(positions.reserve(owner: "ada", token: "n_3"))
        #expect(Self.precedes("U", first) && Self.precedes(first, second) && Self.precedes(second, third))
        #expect(positions.reserve(owner: "bob", token: "n_4") == nil, "per owner")
    }

    @Test("a create's own event keeps the key; any other write's event, or one after the create answered, forgets it")
    func ownEventsOnly() throws {
        let positions = NoteLastPositions()
        _ = try #require(positions.fill(owner: "ada", last: nil, generation: positions.generation("ada"), token: "n_1"))
        positions.changed(owner: "ada", origin: "n_1")
        #expect(positions.isKnown("ada"), "its own create's event")
        positions.changed(owner: "ada", origin: nil)
        #expect(!positions.isKnown("ada"), "a write without origin: sync, a tool, another node's other writes")
        _ = try #require(positions.fill(owner: "ada", last: "V", generation: positions.generation("ada"), token: "n_2"))
        positions.changed(owner: "ada", origin: "n_9")
        #expect(!positions.isKnown("ada"), "another create's (another node's)")
        _ = try #require(positions.fill(owner: "ada", last: "W", generation: positions.generation("ada"), token: "n_3"))
        positions.finished(owner: "ada", token: "n_3")
        positions.changed(owner: "ada", origin: "n_3")
        #expect(!positions.isKnown("ada"), "an event after its create answered is not taken as its own")
        _ = try #require(positions.fill(owner: "ada", last: "W", generation: positions.generation("ada"), token: "n_4"))
        positions.invalidate("ada")
        #expect(!positions.isKnown("ada"), "a write here (move, delete, import)")
    }

    @Test("a key read while the owner changed is not kept; nor while the bus is away")
    func compareAndSet() throws {
        let positions = NoteLastPositions()
        let before = positions.generation("ada")
        positions.changed(owner: "ada", origin: nil)
        #expect(positions.fill(owner: "ada", last: "U", generation: before, token: "n_1") == nil)
        #expect(!positions.isKnown("ada"))
        let cleared = positions.generation("bob")
        positions.invalidateAll()
        #expect(positions.fill(owner: "bob", last: "U", generation: cleared, token: "n_2") == nil)
        positions.invalidateAll(suspended: true)
        #expect(positions.fill(owner: "bob", last: "U", generation: positions.generation("bob"), token: "n_3") == nil)
        positions.invalidateAll(suspended: false)
        #expect(positions.fill(owner: "bob", last: "U", generation: positions.generation("bob"), token: "n_4") != nil)
    }

    @Test("a fill after another create kept a later key goes on from that key")
    func fillAfterFill() throws {
        let positions = NoteLastPositions()
        let generation = positions.generation("ada")
        let first = try #require(positions.fill(owner: "ada", last: "U", generation: generation, token: "n_1"))
        let second = try #require(positions.fill(owner: "ada", last: "U", generation: generation, token: "n_2"))
        #expect(Self.precedes(first, second))
    }

    @Test("a note written past the kept key by another writer (storage directly, as sync or another node does): the next create still goes after it")
    func otherWritersSeen() async throws {
        try await TestApp.run { api, host in
            let (token, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            let first = try #require(try await api.createNote(["title": "one"], token: token)["id"])
            _ = try await api.createNote(["title": "two"], token: token)  // the key is known now
            // Another writer puts a note far after ("zzz" sorts after the creates' "z11", "z12"):
            // not through this process's notes service.
            let store = BusRecordStore(bus: host.bus)
            let far = #"{"date":"2026-11-26","position":"zzz","text":"","title":"far"}"#
            _ = try await store.write(WriteBatch([.insert(collection: "notes.notes", id: "n_far", owner: owner,
                                                          data: try JSONDocument(json: Data(far.utf8)))]))
            let three = try #require(try await api.createNote(["title": "three"], token: token)["id"])
            let titles30 = try await api.titles(token: token)
            #expect(titles30 == ["one", "two", "far", "three"], "\(titles30)")
            // A move to the end here, then a create: after the moved note.
            let moved = try await api.send(.post, "/api/v1/notes/\(first)/move", json: ["after": three], token: token)
            #expect(moved.status == 200)
            _ = try await api.createNote(["title": "four"], token: token)
            let titles38 = try await api.titles(token: token)
            #expect(titles38 == ["two", "far", "three", "one", "four"], "\(titles38)")
        }
    }

    @Test("notes created one after another have ids in the same order (their rows go at the end of storage's indexes by id)")
    func idsInOrder() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            var ids: [String] = []
            for index in 0..<5 {
                ids.append(try #require(try await api.createNote(["title": "o\(index)"], token: token)["id"]))
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(ids == ids.sorted(by: Self.precedes), "\(ids)")
            #expect(ids.allSatisfy { $0.hasPrefix("n_") && StorageNames.isValidID($0) && $0.utf8.count <= 23 })
        }
    }

    @Test("40 creates at once all land in order of their keys, each key distinct")
    func concurrentCreates() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            _ = try await api.createNote(["title": "first"], token: token)
            let positions = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<40 {
                    group.addTask { try await api.createNote(["title": "c\(index)"], token: token)["position"] }
                }
                var all: [String] = []
                for try await position in group { if let position { all.append(position) } }
                return all
            }
            #expect(positions.count == 40)
            #expect(Set(positions).count == 40, "no two creates took the same key")
            #expect(try await api.titles(token: token).first == "first")
        }
    }
}
