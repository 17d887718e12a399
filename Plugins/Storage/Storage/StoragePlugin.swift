public import AppConfig
public import Bus
public import PluginKit
public import ServiceLifecycle
public import StorageAPI
import Logging

/// The `storage` plugin: answers the storage requests from the configured backend.
///
/// ```yaml
/// storage: { backend: sqlite, path: ./data/napkin-notes.sqlite, blobs: ./data/blobs }
/// ```
public struct StoragePlugin: Plugin {
    public struct Config: Sendable {
        public enum Backend: String, Sendable { case sqlite, memory }
        public var backend: Backend
        public var path: String
        public var blobs: String
        public var durability: SQLiteRecordStore.Durability
        public var maxBlobBytes: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "storage",
        summary: "Records (collections, indexes, queries, atomic batches, change log) and content-addressed blobs",
        settings: [
            SettingDescription("backend", "sqlite | memory", default: "sqlite", "Where records live: an embedded SQLite file, or memory (lost at exit)"),
            SettingDescription("path", "path", default: "./data/<app>.sqlite", "The SQLite database file"),
            SettingDescription("blobs", "path", default: "./data/blobs", "Directory of content-addressed blobs"),
            SettingDescription("durability", "normal | full", default: "normal", "normal survives a process crash; full also a power cut, at an fsync per commit"),
            SettingDescription("max_blob_bytes", "int 1...1073741824", default: "67108864", "Largest blob accepted"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        Config(
            backend: Config.Backend(rawValue: section.choice("backend", ["sqlite", "memory"], default: "sqlite")) ?? .sqlite,
            path: section.string("path", default: "") ?? "",
            blobs: section.string("blobs", default: "./data/blobs") ?? "./data/blobs",
            durability: SQLiteRecordStore.Durability(rawValue: section.choice("durability", ["normal", "full"], default: "normal")) ?? .normal,
            maxBlobBytes: section.int("max_blob_bytes", default: 64 << 20, in: 1...(1 << 30)))
    }

    public let records: any RecordStore
    public let blobs: any BlobStore
    private let closer: StorageService

    public init(config: Config, context: PluginContext) async throws {
        switch config.backend {
        case .sqlite:
            let path = config.path.isEmpty ? "./data/\(context.appName).sqlite" : config.path
            let store = try SQLiteRecordStore(path: path, durability: config.durability)
            records = store
            blobs = try FileBlobStore(directory: config.blobs, maxBlobBytes: config.maxBlobBytes)
            closer = StorageService(logger: context.logger) { try store.close() }
            context.logger.info("Storage: SQLite at \(path), blobs in \(config.blobs)")
        case .memory:
            records = InMemoryRecordStore()
            blobs = InMemoryBlobStore(maxBlobBytes: config.maxBlobBytes)
            closer = StorageService(logger: context.logger) {}
            context.logger.info("Storage: in memory; nothing is kept after the server stops")
        }
    }

    /// A plugin over given stores (tests, tools).
    public init(records: any RecordStore, blobs: any BlobStore, logger: Logger) {
        self.records = records
        self.blobs = blobs
        self.closer = StorageService(logger: logger) {}
    }

    public var services: [any Service] { [closer] }

    public var features: [String] { ["records", "blobs", "changes"] }

    public func register(on bus: any MessageBus) async throws {
        try Self.register(records: records, blobs: blobs, on: bus)
    }

    /// Answers every storage request on `bus` from the given stores.
    public static func register(records: any RecordStore, blobs: any BlobStore, on bus: any MessageBus) throws(BusError) {
        try bus.handle(DeclareCollection.self) { request, _ in
            try await records.declare(request.schema)
            return Empty()
        }
        try bus.handle(GetRecord.self) { request, _ in
            .init(record: try await records.get(collection: request.collection, id: request.id, owner: request.owner))
        }
        try bus.handle(QueryRecords.self) { request, _ in try await records.query(request.query) }
        try bus.handle(WriteRecords.self) { request, _ in try await records.write(request.batch) }
        try bus.handle(ReadChanges.self) { request, _ in
            try await records.changes(owner: request.owner, after: request.after, limit: request.limit)
        }
        try bus.handle(PutBlob.self) { request, _ in try await blobs.put(request.bytes) }
        try bus.handle(GetBlob.self) { request, _ in .init(bytes: try await blobs.get(request.sha256)) }
        try bus.handle(StatBlob.self) { request, _ in .init(blob: try await blobs.stat(request.sha256)) }
        try bus.handle(DeleteBlob.self) { request, _ in .init(existed: try await blobs.delete(request.sha256)) }
    }
}

/// Keeps the database open while the app runs and closes it cleanly at shutdown (after the HTTP
/// server and every plugin that depends on storage have stopped).
struct StorageService: Service {
    let logger: Logger
    let close: @Sendable () throws -> Void

    func run() async throws {
        try? await gracefulShutdown()
        do {
            try close()
            logger.info("Storage closed cleanly")
        } catch {
            logger.error("Storage did not close cleanly: \(error)")
        }
    }
}
