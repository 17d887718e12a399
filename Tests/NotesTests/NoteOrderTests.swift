import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import StorageAPI
import Testing

/// Order keys through the notes plugin: creates and imports stay last with short keys, crowded
/// stretches and keys written before appends counted are respaced, order kept.
@Suite("Napkin Notes: order keys that never run out")
struct NoteOrderTests {
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// The whole list in order: (id, title, position).
    static func list(_ api: APIClient, _ token: String) async throws -> [(id: String, title: String, position: String)] {
        var all: [(id: String, title: String, position: String)] = []
        var cursor: String?
        repeat {
            let page = try await api.send(.get, "/api/v1/notes?limit=500" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
            guard page.status == 200 else { throw TestAppFailure("listing notes: \(page.status)") }
            for item in page.items {
                all.append((item["id"] as? String ?? "", item["title"] as? String ?? "", item["position"] as? String ?? ""))
            }
            cursor = page.json["nextCursor"] as? String
        } while cursor != nil
        return all
    }

    /// Waits, a bounded number of rounds, until the list's longest key is at most `length`.
    static func settled(_ api: APIClient, _ token: String, longest length: Int) async throws -> [(id: String, title: String, position: String)] {
        for _ in 0..<400 {
            let list = try await list(api, token)
            if list.allSatisfy({ $0.position.utf8.count <= length }) { return list }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestAppFailure("the list was not respaced")
    }

    @Test("300 notes created one after another through POST /notes: each is placed last, keys stay at most 4 characters")
    func sequentialCreates() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            var last = ""
            for number in 1...300 {
                let created = try await api.send(.post, "/api/v1/notes", json: ["title": "\(number)"], token: token)
                guard created.status == 201, let position: String = created["position"] else {
                    Issue.record("create \(number): \(created.status)")
                    return
                }
                if !Self.precedes(last, position) {
                    Issue.record("create \(number): \(position) does not sort after \(last)")
                    return
                }
                last = position
            }
            let list = try await Self.list(api, token)
            #expect(list.map(\.title) == (1...300).map { "\($0)" })
            #expect((list.map(\.position.utf8.count).max() ?? 99) <= 4)
        }
    }

    @Test("a list stored with the earlier keys (one character more every 61 notes, the last at the 512 cap): a new note still goes last, and the list is respaced short, in its order")
    func earlierKeys() async throws {
        try await TestApp.run { api, host in
            let (token, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            let store = BusRecordStore(bus: host.bus)
            // The earlier scheme's appends: "V", "W", …, "z", "z1", …, "zz", …; then a key at the cap.
            var keys = ["V"]
            for _ in 1..<1_500 { keys.append(Self.legacyIncrement(keys[keys.count - 1])) }
            keys.append(String(repeating: "z", count: 511) + "1")
            var operations: [WriteOperation] = []
            for (index, key) in keys.enumerated() {
                let data = try JSONDocument(encoding: ["title": "old \(index)", "text": "", "date": "2024-01-01", "position": key])
                operations.append(.insert(collection: "notes.notes", id: "n_old\(index)", owner: owner, data: data))
                if operations.count == WriteBatch.maxOperations || index == keys.count - 1 {
                    _ = try await store.write(WriteBatch(operations))
                    operations.removeAll()
                }
            }
            let created = try await api.send(.post, "/api/v1/notes", json: ["title": "new"], token: token)
            #expect(created.status == 201)
            let list = try await Self.settled(api, token, longest: 12)
            #expect(list.map(\.title) == keys.indices.map { "old \($0)" } + ["new"])
            #expect(zip(list, list.dropFirst()).allSatisfy { Self.precedes($0.position, $1.position) })
            // And appends go on after it, short.
            let next = try await api.send(.post, "/api/v1/notes", json: ["title": "newer"], token: token)
            let position: String = try #require(next["position"])
            #expect(Self.precedes(list[list.count - 1].position, position) && position.utf8.count <= 12)
        }
    }

    @Test("notes created 4 at a time while the list's earlier keys are respaced in the background all land after the earlier notes, and the list ends sorted and short")
    func createsDuringRespacing() async throws {
        try await TestApp.run { api, host in
            let (token, login) = try await api.signUp("ada")
            let owner = try #require(login["accountId"])
            let store = BusRecordStore(bus: host.bus)
            var keys = ["V"]
            for _ in 1..<1_600 { keys.append(Self.legacyIncrement(keys[keys.count - 1])) }
            #expect((keys.last?.utf8.count ?? 0) > 24)
            var operations: [WriteOperation] = []
            for (index, key) in keys.enumerated() {
                let data = try JSONDocument(encoding: ["title": "old \(index)", "text": "", "date": "2024-01-01", "position": key])
                operations.append(.insert(collection: "notes.notes", id: "n_old\(index)", owner: owner, data: data))
                if operations.count == WriteBatch.maxOperations || index == keys.count - 1 {
                    _ = try await store.write(WriteBatch(operations))
                    operations.removeAll()
                }
            }
            // The first create's key is long (after the earlier ones): it starts the respacing.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for number in 0..<20 {
                            let created = try await api.send(.post, "/api/v1/notes", json: ["title": "new \(worker) \(number)"], token: token)
                            guard created.status == 201 else { return created.status }
                        }
                        return 201
                    }
                }
                for try await status in group { #expect(status == 201) }
            }
            let list = try await Self.settled(api, token, longest: 24)
            #expect(list.count == keys.count + 80)
            #expect(list.prefix(keys.count).map(\.title) == keys.indices.map { "old \($0)" })
            #expect(list.dropFirst(keys.count).allSatisfy { $0.title.hasPrefix("new ") })
            // Two creates at once may share a key (they sort by id); never out of order.
            #expect(zip(list, list.dropFirst()).allSatisfy { !Self.precedes($1.position, $0.position) })
            // Each worker's notes in the order it created them.
            for worker in 0..<4 {
                #expect(list.filter { $0.title.hasPrefix("new \(worker) ") }.map(\.title) == (0..<20).map { "new \(worker) \($0)" })
            }
        }
    }

    @Test("250 moves into one gap crowd its keys; the stretch is respaced in the background while moves go on, and the order is the one the moves made")
    func crowdedGap() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            var ids: [String] = []
            for number in 0..<200 {
                ids.append(try #require(try await api.send(.post, "/api/v1/notes", json: ["title": "\(number)"], token: token)["id"]))
            }
            var model = ids
            var longest = 0
            for step in 0..<250 {
                // The last note moves to just after the first, again and again: each key halves the gap.
                let moving = model[model.count - 1]
                let moved = try await api.send(.post, "/api/v1/notes/\(moving)/move", json: ["after": model[0]], token: token)
                guard moved.status == 200, let position: String = moved["position"] else {
                    Issue.record("move \(step): \(moved.status)")
                    return
                }
                longest = max(longest, position.utf8.count)
                model.removeLast()
                model.insert(moving, at: 1)
            }
            #expect(longest > 24, "the moves crowd the gap past the respacing length")
            let list = try await Self.settled(api, token, longest: 24)
            #expect(list.map(\.id) == model)
            #expect(zip(list, list.dropFirst()).allSatisfy { Self.precedes($0.position, $1.position) })
        }
    }

    @Test("a large Evernote import lands after the user's notes in the file's order, with short keys")
    func largeImport() async throws {
        let count = 2_000
        let notes = (1...count).map {
            "<note><title>\($0)</title><content><![CDATA[<en-note><div>n</div></en-note>]]></content><created>20240101T000000Z</created></note>"
        }
        let enex = #"<?xml version="1.0" encoding="UTF-8"?><en-export>"# + notes.joined() + "</en-export>"
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: TestApp.napkinPlugins(notes: "{ max_import_bytes: 104857600 }"))) { api, _ in
            let (token, _) = try await api.signUp("ada")
            #expect(try await api.send(.post, "/api/v1/notes", json: ["title": "mine"], token: token).status == 201)
            let started = try await api.upload(.post, "/api/v1/notes/imports?format=enex", bytes: Data(enex.utf8),
                                               contentType: "application/enex+xml", token: token)
            #expect(started.status == 202)
            let location = try #require(started.headers[.location])
            var job: [String: any Sendable] = [:]
            for _ in 0..<2_400 {
                job = try await api.send(.get, location, token: token).json
                if job["state"] as? String != "running" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(job["state"] as? String == "succeeded" && job["imported"] as? Int == count)
            let list = try await Self.list(api, token)
            #expect(list.map(\.title) == ["mine"] + (1...count).map { "\($0)" })
            #expect(zip(list, list.dropFirst()).allSatisfy { Self.precedes($0.position, $1.position) })
            #expect((list.map(\.position.utf8.count).max() ?? 99) <= 5)
        }
    }

    /// The earlier scheme's append: bump the first digit that can be bumped, else add a digit.
    static func legacyIncrement(_ key: String) -> String {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var bytes = Array(key.utf8)
        for position in bytes.indices where bytes[position] != digits[61] {
            let value = digits.firstIndex(of: bytes[position]) ?? 0
            bytes = Array(bytes[..<position]) + [digits[value + 1]]
            return String(decoding: bytes, as: UTF8.self)
        }
        return key + "1"
    }
}
