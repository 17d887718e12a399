public import Bus
public import Foundation

/// The record store as domain plugins see it: every call is a request to the storage plugin over
/// the bus, so a plugin never links a backend and tests can stub storage away.
public struct BusRecordStore: RecordStore, RecordSearching, RecordSpatialIndexing, RecordJSONQuerying {
    private let bus: any MessageBus
    private let timeout: Duration

    public init(bus: any MessageBus, timeout: Duration = .seconds(10)) {
        self.bus = bus
        self.timeout = timeout
    }

    public func declare(_ schema: CollectionSchema) async throws(StorageError) {
        _ = try await bus.request(DeclareCollection(schema: schema), timeout: timeout)
    }

    public func get(collection: String, id: String, owner: String?) async throws(StorageError) -> Record? {
        try await bus.request(GetRecord(collection: collection, id: id, owner: owner), timeout: timeout).record
    }

    public func query(_ query: RecordQuery) async throws(StorageError) -> RecordPage {
        try await bus.request(QueryRecords(query: query), timeout: timeout)
    }

    /// The page written as JSON by storage (``RecordJSON``), for a list answered as it is stored.
    public func queryJSON(_ query: RecordQuery) async throws(StorageError) -> RecordPageJSON {
        try await bus.request(QueryRecordsJSON(query: query), timeout: timeout)
    }

    public func write(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        try await bus.request(WriteRecords(batch: batch), timeout: timeout)
    }

    public func changes(_ query: ChangeQuery) async throws(StorageError) -> ChangePage {
        try await bus.request(ReadChanges(query: query), timeout: timeout)
    }

    public func history(collection: String, id: String, owner: String) async throws(StorageError) -> [Record] {
        try await bus.request(ReadHistory(collection: collection, id: id, owner: owner), timeout: timeout).versions
    }

    public func search(_ query: SearchQuery) async throws(StorageError) -> SearchResult {
        try await bus.request(SearchRecords(query: query), timeout: timeout)
    }

    public func spatialQuery(_ query: SpatialQuery) async throws(StorageError) -> SpatialResult {
        try await bus.request(QuerySpatial(query: query), timeout: timeout)
    }
}

/// Blobs over the bus.
public struct BusBlobStore: BlobStore {
    private let bus: any MessageBus
    private let timeout: Duration

    public init(bus: any MessageBus, timeout: Duration = .seconds(30)) {
        self.bus = bus
        self.timeout = timeout
    }

    public func put(_ bytes: Data) async throws(StorageError) -> BlobRef {
        try await bus.request(PutBlob(bytes: bytes), timeout: timeout)
    }

    public func get(_ sha256: String) async throws(StorageError) -> Data {
        try await bus.request(GetBlob(sha256: sha256), timeout: timeout).bytes
    }

    public func spoolDirectory() async throws(StorageError) -> URL? {
        try await bus.request(OpenBlobSpool(), timeout: timeout).directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    public func put(fileAt path: URL) async throws(StorageError) -> BlobRef {
        try await bus.request(PutBlobFile(path: path.path), timeout: timeout)
    }

    public func localPath(of sha256: String) async throws(StorageError) -> URL? {
        try await bus.request(LocateBlob(sha256: sha256), timeout: timeout).path.map { URL(fileURLWithPath: $0) }
    }

    public func stat(_ sha256: String) async throws(StorageError) -> BlobRef? {
        try await bus.request(StatBlob(sha256: sha256), timeout: timeout).blob
    }

    @discardableResult
    public func delete(_ sha256: String) async throws(StorageError) -> Bool {
        try await bus.request(DeleteBlob(sha256: sha256), timeout: timeout).existed
    }
}
