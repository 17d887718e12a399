import Bus
import BusInProcess
import Foundation
import Logging
import Storage
import StorageSQLite
import StorageAPI
import StorageTestKit
import Testing

/// Runs `body` on a new SQLite store in a temporary directory, then closes it.
private func onSQLite(_ tuning: SQLiteSearchTuning = SQLiteSearchTuning(),
                      _ body: (SQLiteRecordStore) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteRecordStore(path: directory.path("records.sqlite"), searchTuning: tuning)
    try await body(store)
    try store.close()
}

/// The one contract suite, run against every backend. A new backend joins with one more test here.
@Suite("Record store contract")
struct RecordStoreContractTests {
    @Test("in-memory", arguments: RecordStoreContract.cases)
    func inMemory(_ contract: ContractCase<any RecordStore>) async throws {
        try await contract.run(InMemoryRecordStore())
    }

    @Test("SQLite file (WAL)", arguments: RecordStoreContract.cases)
    func sqlite(_ contract: ContractCase<any RecordStore>) async throws {
        try await onSQLite { try await contract.run($0) }
    }

    @Test("over the in-process bus", arguments: RecordStoreContract.cases)
    func overBus(_ contract: ContractCase<any RecordStore>) async throws {
        let bus = InProcessBus()
        try StoragePlugin.register(records: InMemoryRecordStore(), blobs: InMemoryBlobStore(), on: bus)
        try await contract.run(BusRecordStore(bus: bus))
    }
}

@Suite("Change log contract")
struct ChangeLogContractTests {
    @Test("in-memory", arguments: ChangeLogContract.cases)
    func inMemory(_ contract: ContractCase<any RecordStore>) async throws {
        try await contract.run(InMemoryRecordStore())
    }

    @Test("SQLite file (WAL)", arguments: ChangeLogContract.cases)
    func sqlite(_ contract: ContractCase<any RecordStore>) async throws {
        try await onSQLite { try await contract.run($0) }
    }

    @Test("over the in-process bus", arguments: ChangeLogContract.cases)
    func overBus(_ contract: ContractCase<any RecordStore>) async throws {
        let bus = InProcessBus()
        try StoragePlugin.register(records: InMemoryRecordStore(), blobs: InMemoryBlobStore(), on: bus)
        try await contract.run(BusRecordStore(bus: bus))
    }

    @Test("compaction, in-memory", arguments: ChangeLogContract.compaction)
    func compactInMemory(_ contract: ContractCase<ChangeLogContract.Store>) async throws {
        try await contract.run(InMemoryRecordStore())
    }

    @Test("compaction, SQLite file (WAL)", arguments: ChangeLogContract.compaction)
    func compactSQLite(_ contract: ContractCase<ChangeLogContract.Store>) async throws {
        try await onSQLite { try await contract.run($0) }
    }
}

@Suite("Search contract")
struct SearchContractTests {
    @Test("in-memory", arguments: SearchContract.cases)
    func inMemory(_ contract: ContractCase<SearchContract.Store>) async throws {
        try await contract.run(InMemoryRecordStore())
    }

    @Test("SQLite file (WAL)", arguments: SearchContract.cases)
    func sqlite(_ contract: ContractCase<SearchContract.Store>) async throws {
        try await onSQLite { try await contract.run($0) }
    }

    @Test("over the in-process bus", arguments: SearchContract.cases)
    func overBus(_ contract: ContractCase<SearchContract.Store>) async throws {
        try await onSQLite { store in
            let bus = InProcessBus()
            try StoragePlugin.register(records: store, blobs: InMemoryBlobStore(), on: bus)
            try await contract.run(BusRecordStore(bus: bus))
        }
    }

    /// The path a user who owns most of a big collection takes: matches without the owner's token,
    /// the owner checked on each row — and, when a scan of matches finds too few of theirs, the
    /// token again.
    @Test("SQLite, owners checked per candidate", arguments: SearchContract.cases)
    func sqliteCheckingOwners(_ contract: ContractCase<SearchContract.Store>) async throws {
        try await onSQLite(SQLiteSearchTuning(bigOwner: 0)) { try await contract.run($0) }
    }

    @Test("SQLite, per-candidate scans giving up", arguments: SearchContract.cases)
    func sqliteGivingUp(_ contract: ContractCase<SearchContract.Store>) async throws {
        try await onSQLite(SQLiteSearchTuning(bigOwner: 0, scanCap: 1)) { try await contract.run($0) }
    }

}

@Suite("Spatial contract")
struct SpatialContractTests {
    @Test("in-memory", arguments: SpatialContract.cases)
    func inMemory(_ contract: ContractCase<SpatialContract.Store>) async throws {
        try await contract.run(InMemoryRecordStore())
    }

    @Test("SQLite file (WAL), R*Tree", arguments: SpatialContract.cases)
    func sqlite(_ contract: ContractCase<SpatialContract.Store>) async throws {
        try await onSQLite { try await contract.run($0) }
    }

    @Test("SQLite, every owner's points through the R*Tree", arguments: SpatialContract.cases)
    func sqliteTreeOnly(_ contract: ContractCase<SpatialContract.Store>) async throws {
        try await onSQLite(SQLiteSearchTuning(spatialSmallOwner: 0, spatialOwnerBandCap: 0)) { try await contract.run($0) }
    }

    @Test("SQLite, every owner's points by latitude band", arguments: SpatialContract.cases)
    func sqliteBands(_ contract: ContractCase<SpatialContract.Store>) async throws {
        try await onSQLite(SQLiteSearchTuning(spatialSmallOwner: 0)) { try await contract.run($0) }
    }

    @Test("over the in-process bus", arguments: SpatialContract.cases)
    func overBus(_ contract: ContractCase<SpatialContract.Store>) async throws {
        try await onSQLite { store in
            let bus = InProcessBus()
            try StoragePlugin.register(records: store, blobs: InMemoryBlobStore(), on: bus)
            try await contract.run(BusRecordStore(bus: bus))
        }
    }
}

@Suite("Blob field contract")
struct BlobFieldContractTests {
    @Test("in-memory", arguments: BlobFieldContract.cases)
    func inMemory(_ contract: ContractCase<any RecordStore>) async throws {
        try await contract.run(InMemoryRecordStore())
    }

    @Test("SQLite file (WAL)", arguments: BlobFieldContract.cases)
    func sqlite(_ contract: ContractCase<any RecordStore>) async throws {
        try await onSQLite { try await contract.run($0) }
    }

    @Test("over the in-process bus", arguments: BlobFieldContract.cases)
    func overBus(_ contract: ContractCase<any RecordStore>) async throws {
        let bus = InProcessBus()
        try StoragePlugin.register(records: InMemoryRecordStore(), blobs: InMemoryBlobStore(), on: bus)
        try await contract.run(BusRecordStore(bus: bus))
    }

    @Test("held blobs: in-memory", arguments: BlobFieldContract.holdsCases)
    func holdsInMemory(_ contract: ContractCase<any RecordStore & BlobHolds>) async throws {
        try await contract.run(InMemoryRecordStore())
    }

    @Test("held blobs: SQLite", arguments: BlobFieldContract.holdsCases)
    func holdsSQLite(_ contract: ContractCase<any RecordStore & BlobHolds>) async throws {
        try await onSQLite { try await contract.run($0) }
    }
}

@Suite("Blob collecting contract")
struct BlobCollectingContractTests {
    @Test("in-memory", arguments: BlobCollectingContract.cases)
    func inMemory(_ contract: ContractCase<any BlobCollecting>) async throws {
        try await contract.run(InMemoryBlobStore())
    }

    @Test("files", arguments: BlobCollectingContract.cases)
    func files(_ contract: ContractCase<any BlobCollecting>) async throws {
        let directory = try TemporaryDirectory()
        try await contract.run(try FileBlobStore(directory: directory.path("blobs")))
    }
}

@Suite("Blob store contract")
struct BlobStoreContractTests {
    @Test("in-memory", arguments: BlobStoreContract.cases)
    func inMemory(_ contract: ContractCase<any BlobStore>) async throws {
        try await contract.run(InMemoryBlobStore())
    }

    @Test("files", arguments: BlobStoreContract.cases)
    func files(_ contract: ContractCase<any BlobStore>) async throws {
        let directory = try TemporaryDirectory()
        try await contract.run(try FileBlobStore(directory: directory.path("blobs")))
    }

    @Test("over the in-process bus", arguments: BlobStoreContract.cases)
    func overBus(_ contract: ContractCase<any BlobStore>) async throws {
        let bus = InProcessBus()
        try StoragePlugin.register(records: InMemoryRecordStore(), blobs: InMemoryBlobStore(), on: bus)
        try await contract.run(BusBlobStore(bus: bus))
    }
}

extension ContractCase: CustomTestStringConvertible {
    public var testDescription: String { description }
}

/// A directory under the system temp dir, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
