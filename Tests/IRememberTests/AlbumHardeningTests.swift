import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import StorageAPI
import Testing

@Suite("iRemember: hostile numbers and several users at once")
struct AlbumHardeningTests {
    let photos: Photos
    init() throws { photos = try Photos() }

    @Test("?days= that is huge, negative, fractional or not a number is a 400, and the server goes on")
    func recentDaysNeverTraps() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            for value in ["1e19", "-1e19", "99999999999999999999", "-1", "0", "367", "2.5", "abc", "NaN", "inf", "0x10", "1e308", "7%00"] {
                let reply = try await client.send(.get, "/api/v1/album/recent?days=\(value)", token: token)
                #expect(reply.status == 400, "days=\(value): \(reply.status) \(reply.text)")
                #expect(reply["field"] == "days")
            }
            #expect(try await client.send(.get, "/api/v1/album/recent?days=7.0", token: token).status == 200)
            #expect(try await client.send(.get, "/api/v1/album/recent?days=366", token: token).status == 200)
        }
    }

    @Test("two users upload into the same month with the same tags at once: every upload lands, each counts only their own")
    func countersArePerOwner() async throws {
        let jpeg = try await photos.jpeg(seed: 11)
        try await IRemember.run { client, _ in
            let alice = try await client.signUp("alice").token
            let bob = try await client.signUp("bob").token
            let perUser = 12
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<(perUser * 2) {
                    let token = index % 2 == 0 ? alice : bob
                    group.addTask {
                        try await client.addPhotoReply(jpeg, token: token, query: "takenAt=2024-05-0\(index % 9 + 1)T10:00&tags=beach,sunset").status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 201, count: perUser * 2))
            for token in [alice, bob] {
                let tags = try await client.send(.get, "/api/v1/album/tags", token: token)
                #expect(Set(tags.items.compactMap { $0["count"] as? Int }) == [perUser], "\(tags.text)")
                let months = try await client.send(.get, "/api/v1/album/folders/months", token: token)
                #expect(months.items.map { $0["count"] as? Int } == [perUser], "\(months.text)")
            }
        }
    }

    @Test("counters stored under the old shared ids move to per-owner ids at start, and another user can then use the same month and tag")
    func countersMigrate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = "{ backend: sqlite, path: \(directory.path)/album.sqlite, blobs: \(directory.path)/blobs }"
        let yaml = TestApp.yaml(app: "iremember-test", extraPlugins: IRemember.plugins(), storage: storage)
        let jpeg = try await photos.jpeg(seed: 12)

        // A database as the old version left it: alice's counters under ids shared by everyone.
        try await TestApp.run(yaml: yaml) { client, host in
            let alice = try await client.signUp("alice").token
            #expect(try await client.addPhotoReply(jpeg, token: alice, query: "takenAt=2024-05-03T10:00&tags=beach").status == 201)
            let store = BusRecordStore(bus: host.bus)
            let counters = try await store.query(RecordQuery(collection: "album.counts", owner: nil, limit: 100))
            #expect(counters.records.count == 3)  // tag, month and day (no place: no location)
            var operations: [WriteOperation] = []
            for record in counters.records {
                guard case .object(let fields) = try record.data.parsed(), case .string(let kind)? = fields["kind"],
                      case .string(let key)? = fields["key"] else { throw TestAppFailure("a counter without kind and key") }
                operations.append(.delete(collection: "album.counts", id: record.id, owner: record.owner, expectedVersion: nil))
                operations.append(.insert(collection: "album.counts", id: "\(kind):\(Self.oldHash(key))", owner: record.owner, data: record.data))
            }
            _ = try await store.write(WriteBatch(operations))
        }
        try await TestApp.run(yaml: yaml) { client, _ in
            let alice = try await client.login("alice")
            let bob = try await client.signUp("bob").token
            #expect(try await client.addPhotoReply(jpeg, token: bob, query: "takenAt=2024-05-03T11:00&tags=beach").status == 201)
            #expect(try await client.addPhotoReply(jpeg, token: alice, query: "takenAt=2024-05-04T11:00&tags=beach").status == 201)
            let aliceTags = try await client.send(.get, "/api/v1/album/tags", token: alice)
            #expect(aliceTags.items.map { $0["count"] as? Int } == [2], "\(aliceTags.text)")
            let bobMonths = try await client.send(.get, "/api/v1/album/folders/months", token: bob)
            #expect(bobMonths.items.map { $0["count"] as? Int } == [1], "\(bobMonths.text)")
        }
    }

    @Test("a misspelt member of a photo edit or its mark-up is refused with 400 naming it; nothing changes, not even the version")
    func misspeltMembersChangeNothing() async throws {
        let jpeg = try await photos.jpeg(seed: 13)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let photo = try await client.addPhoto(jpeg, token: token, query: "tags=beach")
            let id = try #require(photo[string: "id"])
            let markup: [String: any Sendable] = ["strokes": [["points": [["x": 0.2, "y": 0.2], ["x": 0.6, "y": 0.6]]]]]
            #expect(try await client.send(.put, "/api/v1/album/photos/\(id)/markup", json: markup, token: token).status == 200)
            let before = try await client.send(.get, "/api/v1/album/photos/\(id)", token: token)

            let edit = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["tagz": ["sunset"]], token: token)
            #expect(edit.status == 400)
            #expect(edit["field"] == "tagz")
            let crop = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["notes": "x", "crop": ["x": 0]] as [String: any Sendable], token: token)
            #expect(crop.status == 400)
            #expect(crop["field"] == "crop")
            let erase = try await client.send(.put, "/api/v1/album/photos/\(id)/markup", json: ["strokez": [] as [String]], token: token)
            #expect(erase.status == 400)
            #expect(erase["field"] == "strokez")

            let after = try await client.send(.get, "/api/v1/album/photos/\(id)", token: token)
            #expect(after.json["version"] as? Int == before.json["version"] as? Int)
            #expect(after.json["tags"] as? [String] == ["beach"])
            let kept = try await client.send(.get, "/api/v1/album/photos/\(id)/markup", token: token)
            #expect((kept.json["strokes"] as? [Any])?.count == 1)
        }
    }

    /// The id hash of the counters' old, shared ids (FNV-1a 64 of the key alone).
    static func oldHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension APIClient {
    /// An upload's whole reply, whatever its status.
    func addPhotoReply(_ jpeg: Data, token: String, query: String = "") async throws -> Reply {
        try await upload(.post, "/api/v1/album/photos" + (query.isEmpty ? "" : "?\(query)"), bytes: jpeg, contentType: "image/jpeg", token: token)
    }

    /// Signs in an existing user; the access token.
    func login(_ username: String, password: String = "a good password") async throws -> String {
        let login = try await send(.post, "/api/v1/auth/login", json: ["username": username, "password": password])
        guard login.status == 200, let token = login["access_token"] else { throw TestAppFailure("login \(username): \(login.status)") }
        return token
    }
}
