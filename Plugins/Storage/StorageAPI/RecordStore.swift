import Bus
public import Foundation

/// Records: typed collections, declared indexes, queries with cursors, atomic batches and a per-owner
/// change log. Implemented by each backend and by ``BusRecordStore`` (the client domain plugins use).
///
/// Every backend passes the one contract suite in `StorageTestKit`.
public protocol RecordStore: Sendable {
    /// Declares a collection and its indexes; idempotent. Existing indexes are kept, new ones added.
    func declare(_ schema: CollectionSchema) async throws(StorageError)

    /// A record by id, or `nil` when it does not exist or belongs to another owner.
    func get(collection: String, id: String, owner: String?) async throws(StorageError) -> Record?

    func query(_ query: RecordQuery) async throws(StorageError) -> RecordPage

    /// Applies a batch atomically.
    func write(_ batch: WriteBatch) async throws(StorageError) -> WriteResult

    /// The owner's changes with a sequence number greater than `after`, oldest first.
    func changes(owner: String, after: Int64, limit: Int) async throws(StorageError) -> ChangePage
}

/// A backend's answer to "does any record still hold this blob?" (see ``CollectionSchema/blobFields``).
public protocol BlobHolds: Sendable {
    /// Those of `blobs` that some record's blob field names.
    func heldBlobs(among blobs: Set<String>) async throws(StorageError) -> Set<String>
}

/// A blob backend the storage plugin can collect garbage from.
///
/// Deleting a blob that no record holds races with a new upload of the same bytes (same hash): the
/// upload finds the blob present, then loses it before its record is written. So every `put` stamps
/// the blob's time, and `collect` deletes only a blob not put since a cut-off, checking and
/// deleting in one step against `put`.
public protocol BlobCollecting: BlobStore {
    /// Deletes the blob unless it was put at or after `cutoff`; returns whether it was deleted.
    func collect(_ sha256: String, unlessPutSince cutoff: Date) async throws(StorageError) -> Bool
    /// Every blob last put before `cutoff`.
    func blobs(putBefore cutoff: Date) async throws(StorageError) -> [String]
}

/// Content-addressed blobs, written atomically: a blob is either whole or absent.
public protocol BlobStore: Sendable {
    /// Stores bytes; storing the same bytes again returns the same reference, writes nothing and
    /// renews the blob's put time.
    func put(_ bytes: Data) async throws(StorageError) -> BlobRef
    /// - Throws: `not_found` when no blob has that hash.
    func get(_ sha256: String) async throws(StorageError) -> Data
    func stat(_ sha256: String) async throws(StorageError) -> BlobRef?
    /// Removes a blob; returns whether it existed.
    @discardableResult
    func delete(_ sha256: String) async throws(StorageError) -> Bool
}

extension RecordStore {
    /// Inserts one record.
    public func insert<T: Encodable>(_ value: T, into collection: String, id: String? = nil,
                                     owner: String) async throws(StorageError) -> Record {
        let result = try await write(WriteBatch([
            .insert(collection: collection, id: id, owner: owner, data: try JSONDocument(encoding: value)),
        ]))
        guard let record = result.records.first ?? nil else {
            throw StorageError(.internal, "The store did not return the inserted record.")
        }
        return record
    }

    /// Replaces one record's payload.
    public func replace<T: Encodable>(_ value: T, in collection: String, id: String, owner: String,
                                      expectedVersion: Int64? = nil) async throws(StorageError) -> Record {
        let result = try await write(WriteBatch([
            .replace(collection: collection, id: id, owner: owner, data: try JSONDocument(encoding: value),
                     expectedVersion: expectedVersion),
        ]))
        guard let record = result.records.first ?? nil else {
            throw StorageError(.internal, "The store did not return the replaced record.")
        }
        return record
    }

    /// Deletes one record.
    public func delete(from collection: String, id: String, owner: String,
                       expectedVersion: Int64? = nil) async throws(StorageError) {
        _ = try await write(WriteBatch([
            .delete(collection: collection, id: id, owner: owner, expectedVersion: expectedVersion),
        ]))
    }
}
