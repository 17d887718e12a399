public import Bus
public import Foundation

// The storage plugin's requests. Domain plugins send them through `BusRecordStore` and
// `BusBlobStore`; the storage plugin answers them from its configured backend.

public struct DeclareCollection: BusRequest {
    public static let name: MessageName = "storage.collection.declare.v1"
    public typealias Reply = Empty
    public var schema: CollectionSchema
    public init(schema: CollectionSchema) { self.schema = schema }
}

public struct GetRecord: BusRequest {
    public static let name: MessageName = "storage.record.get.v1"
    public struct Reply: Codable, Sendable { public var record: Record?; public init(record: Record?) { self.record = record } }
    public var collection: String
    public var id: String
    public var owner: String?
    public init(collection: String, id: String, owner: String?) {
        self.collection = collection
        self.id = id
        self.owner = owner
    }
}

public struct QueryRecords: BusRequest {
    public static let name: MessageName = "storage.record.query.v1"
    public typealias Reply = RecordPage
    public var query: RecordQuery
    public init(query: RecordQuery) { self.query = query }
}

public struct WriteRecords: BusRequest {
    public static let name: MessageName = "storage.record.write.v1"
    public typealias Reply = WriteResult
    public var batch: WriteBatch
    public init(batch: WriteBatch) { self.batch = batch }
}

public struct ReadChanges: BusRequest {
    public static let name: MessageName = "storage.changes.read.v1"
    public typealias Reply = ChangePage
    public var query: ChangeQuery
    public init(query: ChangeQuery) { self.query = query }
}

public struct ReadHistory: BusRequest {
    public static let name: MessageName = "storage.record.history.v1"
    public struct Reply: Codable, Sendable { public var versions: [Record]; public init(versions: [Record]) { self.versions = versions } }
    public var collection: String
    public var id: String
    public var owner: String
    public init(collection: String, id: String, owner: String) {
        self.collection = collection
        self.id = id
        self.owner = owner
    }
}

/// Published after every batch that wrote something: whose logs moved and to where. Carries no
/// record data; the sync plugin turns it into pokes.
public struct RecordsChanged: BusEvent {
    public static let name: MessageName = "storage.changes.moved.v1"
    public var moved: [LogMove]
    /// The ``WriteBatch/origin`` of the batch that moved the logs, if its writer gave one.
    public var origin: String?
    public init(moved: [LogMove], origin: String? = nil) {
        self.moved = moved
        self.origin = origin
    }
}

public struct SearchRecords: BusRequest {
    public static let name: MessageName = "storage.record.search.v1"
    public typealias Reply = SearchResult
    public var query: SearchQuery
    public init(query: SearchQuery) { self.query = query }
}

/// How much one owner stores: the bytes of their records' data and the blobs those records hold
/// (each distinct blob once). What a per-user storage quota is checked against.
public struct GetStorageUsage: BusRequest {
    public static let name: MessageName = "storage.usage.get.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var recordBytes: Int
        public var blobBytes: Int
        public var total: Int { recordBytes + blobBytes }
        public init(recordBytes: Int, blobBytes: Int) {
            self.recordBytes = recordBytes
            self.blobBytes = blobBytes
        }
    }
    public var owner: String
    public init(owner: String) { self.owner = owner }
}

/// A backend that can tell one owner's record bytes and the blobs their records hold.
public protocol RecordUsage: Sendable {
    func usage(owner: String) async throws(StorageError) -> (recordBytes: Int, blobs: Set<String>)
}

public struct QuerySpatial: BusRequest {
    public static let name: MessageName = "storage.record.spatial.v1"
    public typealias Reply = SpatialResult
    public var query: SpatialQuery
    public init(query: SpatialQuery) { self.query = query }
}

public struct PutBlob: BusRequest {
    public static let name: MessageName = "storage.blob.put.v1"
    public typealias Reply = BlobRef
    public var bytes: Data
    public init(bytes: Data) { self.bytes = bytes }
}

public struct GetBlob: BusRequest {
    public static let name: MessageName = "storage.blob.get.v1"
    public struct Reply: Codable, Sendable { public var bytes: Data; public init(bytes: Data) { self.bytes = bytes } }
    public var sha256: String
    public init(sha256: String) { self.sha256 = sha256 }
}

/// Where to write an upload too large to hold before ``PutBlobFile``: storage's own temp
/// directory, beside its blobs. `directory` is nil when blobs are not files on this machine (the
/// caller then sends the bytes).
public struct OpenBlobSpool: BusRequest {
    public static let name: MessageName = "storage.blob.spool.v1"
    public struct Reply: Codable, Sendable { public var directory: String?; public init(directory: String?) { self.directory = directory } }
    public init() {}
}

/// Stores a file written in the ``OpenBlobSpool`` directory as a blob (moved into place, not
/// copied). The file is gone afterwards, stored or not; a path elsewhere is refused.
public struct PutBlobFile: BusRequest {
    public static let name: MessageName = "storage.blob.put_file.v1"
    public typealias Reply = BlobRef
    public var path: String
    public init(path: String) { self.path = path }
}

/// The file a blob is on this machine, for a reader that decodes from a file; nil when blobs are
/// not files here.
public struct LocateBlob: BusRequest {
    public static let name: MessageName = "storage.blob.locate.v1"
    public struct Reply: Codable, Sendable { public var path: String?; public init(path: String?) { self.path = path } }
    public var sha256: String
    public init(sha256: String) { self.sha256 = sha256 }
}

public struct StatBlob: BusRequest {
    public static let name: MessageName = "storage.blob.stat.v1"
    public struct Reply: Codable, Sendable { public var blob: BlobRef?; public init(blob: BlobRef?) { self.blob = blob } }
    public var sha256: String
    public init(sha256: String) { self.sha256 = sha256 }
}

public struct DeleteBlob: BusRequest {
    public static let name: MessageName = "storage.blob.delete.v1"
    public struct Reply: Codable, Sendable { public var existed: Bool; public init(existed: Bool) { self.existed = existed } }
    public var sha256: String
    public init(sha256: String) { self.sha256 = sha256 }
}

/// Blobs the sender put only to carry bytes (``BlobPayload``) and is done with: each is deleted
/// unless a record holds it or it was put within storage's grace period (then once that has
/// passed), the rule every let-go blob follows. A refused upload leaves nothing behind.
public struct ReleaseBlobs: BusRequest {
    public static let name: MessageName = "storage.blob.release.v1"
    public typealias Reply = Empty
    public static var repeatable: Bool { true }
    public var sha256s: [String]
    public init(_ sha256s: [String]) { self.sha256s = sha256s }
}

/// Published when the storage plugin deleted a blob no record held any more, so that whoever
/// keeps something derived from it (media's renditions) can let go too.
public struct BlobDeleted: BusEvent {
    public static let name: MessageName = "storage.blob.deleted.v1"
    public var sha256: String
    public init(sha256: String) { self.sha256 = sha256 }
}

/// "Make every acknowledged write durable on disk now": a device about to die (its battery low)
/// asks this so that nothing it was told is saved rests in a log the database has not folded in.
/// SQLite checkpoints its write-ahead log; PostgreSQL and memory have nothing to do.
public struct FlushStorage: BusRequest {
    public static let name: MessageName = "storage.flush.v1"
    public typealias Reply = Empty
    public init() {}
}

/// Every storage message, for name checks.
public enum StorageMessages {
    public static let all: [any BusMessage.Type] = [
        DeclareCollection.self, GetRecord.self, QueryRecords.self, QueryRecordsJSON.self, WriteRecords.self, ReadChanges.self, ReadHistory.self, RecordsChanged.self, SearchRecords.self, QuerySpatial.self, GetStorageUsage.self,
        PutBlob.self, OpenBlobSpool.self, PutBlobFile.self, LocateBlob.self, GetBlob.self, StatBlob.self, DeleteBlob.self, ReleaseBlobs.self, BlobDeleted.self, FlushStorage.self, GetBackupDetail.self,
        StartBackup.self, ListRestorePoints.self,
    ]
}
