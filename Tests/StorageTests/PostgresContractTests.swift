import Bus
import Foundation
import Logging
import StorageAPI
import StoragePostgres
import StorageTestKit
import Testing

/// The PostgreSQL server of this test run: `tools/test` starts a throwaway cluster
/// (`tools/postgres`) and passes its URL. Without one (a bare `swift test`) these suites are
/// skipped, saying why; `tools/test` sets `QUIRE_REQUIRE_POSTGRES`, so there a missing server fails.
enum TestPostgres {
    static let url = ProcessInfo.processInfo.environment["QUIRE_TEST_POSTGRES_URL"]
    static let required = ProcessInfo.processInfo.environment["QUIRE_REQUIRE_POSTGRES"] != nil
    static let available = url != nil || required

    /// Runs `body` on a new store in a schema of its own (the cluster is thrown away after the run).
    static func withStore(_ body: (PostgresRecordStore) async throws -> Void) async throws {
        try await withStores(1) { try await body($0[0]) }
    }

    /// Runs `body` on `count` stores of one new schema: nodes of a cluster sharing one database.
    static func withStores(_ count: Int, _ body: ([PostgresRecordStore]) async throws -> Void) async throws {
        guard let url else {
            Issue.record("QUIRE_TEST_POSTGRES_URL is not set: start a server with eval \"$(tools/postgres start)\"")
            return
        }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        let settings = try PostgresRecordStore.Settings(url: url + (url.contains("?") ? "&" : "?") + "sslmode=disable&search_path=\(schema)",
                                                        maxConnections: 2)
        let stores = (0..<count).map { _ in PostgresRecordStore(settings: settings, logger: Logger(label: "quire.test.postgres")) }
        let running = stores.map { store in Task { await store.run() } }
        defer { running.forEach { $0.cancel() } }
        for store in stores { try await store.prepare() }
        try await body(stores)
    }
}

@Suite("Record store contract on PostgreSQL", .enabled(if: TestPostgres.available, "no PostgreSQL server: run tools/test, or tools/postgres start"))
struct PostgresRecordStoreContractTests {
    @Test("records", arguments: RecordStoreContract.cases)
    func records(_ contract: ContractCase<any RecordStore>) async throws {
        try await TestPostgres.withStore { try await contract.run($0) }
    }

    @Test("change log", arguments: ChangeLogContract.cases)
    func changeLog(_ contract: ContractCase<any RecordStore>) async throws {
        try await TestPostgres.withStore { try await contract.run($0) }
    }

    @Test("compaction", arguments: ChangeLogContract.compaction)
    func compaction(_ contract: ContractCase<ChangeLogContract.Store>) async throws {
        try await TestPostgres.withStore { try await contract.run($0) }
    }

    @Test("search", arguments: SearchContract.cases)
    func search(_ contract: ContractCase<SearchContract.Store>) async throws {
        try await TestPostgres.withStore { try await contract.run($0) }
    }

    @Test("spatial", arguments: SpatialContract.cases)
    func spatial(_ contract: ContractCase<SpatialContract.Store>) async throws {
        try await TestPostgres.withStore { try await contract.run($0) }
    }

    @Test("blob fields", arguments: BlobFieldContract.cases)
    func blobFields(_ contract: ContractCase<any RecordStore>) async throws {
        try await TestPostgres.withStore { try await contract.run($0) }
    }

    @Test("held blobs", arguments: BlobFieldContract.holdsCases)
    func heldBlobs(_ contract: ContractCase<any RecordStore & BlobHolds>) async throws {
        try await TestPostgres.withStore { try await contract.run($0) }
    }
}

@Suite("PostgreSQL settings")
struct PostgresSettingsTests {
    @Test("a URL gives host, port, user, password, database, TLS and schema")
    func parses() throws {
        let settings = try PostgresRecordStore.Settings(url: "postgres://ann:p%40ss@db.example:6543/notes?sslmode=require&search_path=quire")
        #expect(settings.host == "db.example" && settings.port == 6543 && settings.username == "ann" && settings.password == "p@ss")
        #expect(settings.database == "notes" && settings.tls == .require && settings.schema == "quire")
        let plain = try PostgresRecordStore.Settings(url: "postgresql://ann@localhost/notes")
        #expect(plain.port == 5432 && plain.password == nil && plain.tls == .prefer && plain.schema == "public")
    }

    @Test("a malformed URL is refused with what to write instead, and never shows the password", arguments: [
        ("mysql://ann:secret@db/notes", "not a PostgreSQL URL"),
        ("postgres://ann:secret@/notes", "no host"),
        ("postgres://db.example/notes", "no user"),
        ("postgres://ann:secret@db.example/", "no database"),
        ("postgres://ann:secret@db.example/notes?sslmode=maybe", "sslmode is disable, prefer or require"),
        ("postgres://ann:secret@db.example/notes?search_path=a;drop", "search_path is one schema name"),
        ("postgres://ann:secret@db.example/notes?pool=9", "not one Quire reads"),
    ])
    func refuses(_ url: String, _ said: String) {
        do {
            _ = try PostgresRecordStore.Settings(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.message.contains(said), "\(error.message)")
            #expect(!error.message.contains("secret"), "\(error.message)")
        }
    }
}

@Suite("PostgreSQL: nodes declaring at once", .enabled(if: TestPostgres.available, "no PostgreSQL server: run tools/test, or tools/postgres start"))
struct PostgresConcurrentDeclareTests {
    struct Place: Codable {
        var name: String
        var lat: Double
        var lon: Double
    }

    @Test("text with U+0000, which PostgreSQL cannot store, is refused as bad input (invalid, reason nul_character), never a 500")
    func nulCharacter() async throws {
        try await TestPostgres.withStore { store in
            try await store.declare(CollectionSchema(name: "nul.places"))
            do {
                _ = try await store.insert(Place(name: "a\u{0}b", lat: 1, lon: 2), into: "nul.places", id: "p1", owner: "alice")
                Issue.record("a record with U+0000 was stored")
            } catch let error as StorageError {
                #expect(error.code == .invalid, "\(error)")
                #expect(error.details["reason"] == "nul_character")
                #expect(error.message.contains("U+0000"))
            }
            _ = try await store.insert(Place(name: "ab", lat: 1, lon: 2), into: "nul.places", id: "p1", owner: "alice")
        }
    }

    @Test("four nodes declaring one new collection (indexes, search, spatial) while writing to it all succeed, and every point is found")
    func concurrentDeclares() async throws {
        try await TestPostgres.withStores(4) { stores in
            let schema = CollectionSchema(name: "race.places", indexes: [IndexSpec(name: "by_name", fields: ["name"])],
                                          search: SearchIndexSpec(key: "name"), spatial: SpatialIndexSpec(latitude: "lat", longitude: "lon"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (node, store) in stores.enumerated() {
                    group.addTask {
                        try await store.declare(schema)
                        _ = try await store.insert(Place(name: "p\(node)", lat: 48.8584, lon: 2.2945), into: "race.places", id: "p\(node)", owner: "alice")
                        try await store.declare(schema)
                    }
                }
                try await group.waitForAll()
            }
            let hits = try await stores[0].spatialQuery(.within(1000, of: GeoPoint(latitude: 48.858, longitude: 2.294), collection: "race.places",
                                                                 owner: "alice", limit: 10)).hits
            #expect(Set(hits.map(\.record.id)) == ["p0", "p1", "p2", "p3"])
        }
    }
}
