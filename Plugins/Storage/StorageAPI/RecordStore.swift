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

    /// The changes a query takes in (the owner's, and shared scopes') with a sequence number
    /// greater than `after`, oldest first.
    ///
    /// An insert that reuses the id of a deleted record continues its versions (the tombstone's
    /// version + 1), so that a version never goes back for anyone who saw the delete.
    func changes(_ query: ChangeQuery) async throws(StorageError) -> ChangePage

    /// The record's earlier versions that the store still keeps (collections declared with
    /// ``CollectionSchema/history``), newest first; `[]` for another owner's record.
    func history(collection: String, id: String, owner: String) async throws(StorageError) -> [Record]
}

/// A backend whose change log the storage plugin compacts (its own periodic work, never a request).
public protocol ChangeLogCompacting: Sendable {
    /// Drops every change a later change of the same record supersedes, and tombstones and earlier
    /// versions older than `cutoff`; moves the log's horizon past the dropped tombstones.
    func compact(before cutoff: Date) async throws(StorageError) -> Compaction
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
    /// Where an upload too large to hold is written before it is put (``put(fileAt:)``): a
    /// directory beside the blobs, on the same disk. Nil when blobs are not files on this machine.
    func spoolDirectory() async throws(StorageError) -> URL?
    /// Stores the file at `path` (in ``spoolDirectory()``) as a blob, read piece by piece, never
    /// whole; the file is gone afterwards, stored or not.
    func put(fileAt path: URL) async throws(StorageError) -> BlobRef
    /// The file a blob is, for a reader that decodes from a file (libvips); nil when blobs are
    /// not files on this machine.
    func localPath(of sha256: String) async throws(StorageError) -> URL?
}

extension BlobStore {
    public func spoolDirectory() async throws(StorageError) -> URL? { nil }

    public func put(fileAt path: URL) async throws(StorageError) -> BlobRef {
        defer { try? FileManager.default.removeItem(at: path) }
        guard let bytes = FileManager.default.contents(atPath: path.path) else {
            throw StorageError(.invalid, "No file to store at '\(path.path)'.")
        }
        return try await put(bytes)
    }

    public func localPath(of sha256: String) async throws(StorageError) -> URL? { nil }
}

extension RecordStore {
    /// One owner's changes, without shared scopes.
    public func changes(owner: String, after: Int64, limit: Int) async throws(StorageError) -> ChangePage {
        try await changes(ChangeQuery(owner: owner, after: after, limit: limit))
    }

    /// One earlier version of a record, if the store still keeps it.
    public func version(_ version: Int64, collection: String, id: String, owner: String) async throws(StorageError) -> Record? {
        try await history(collection: collection, id: id, owner: owner).first { $0.version == version }
    }

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

    /// Replaces one record's payload once per `idempotency` claim: the same claim sent again (a
    /// phone's outbox after a reload cut the first answer off) is answered with the record as it is
    /// now (`replayed`) and not written again. Made again on its old If-Match, an edit merged over
    /// what another device had written since.
    public func replaceOnce<T: Encodable>(_ value: T, in collection: String, id: String, owner: String, expectedVersion: Int64?,
                                          idempotency: IdempotencyClaim?) async throws(StorageError) -> (record: Record, replayed: Bool) {
        try await replaceOnce(document: try JSONDocument(encoding: value), in: collection, id: id, owner: owner,
                              expectedVersion: expectedVersion, idempotency: idempotency)
    }

    /// ``replaceOnce(_:in:id:owner:expectedVersion:idempotency:)`` with the payload already written
    /// (a plugin's own writer, as notes' `NoteFastJSON`).
    public func replaceOnce(document: JSONDocument, in collection: String, id: String, owner: String, expectedVersion: Int64?,
                            idempotency: IdempotencyClaim?) async throws(StorageError) -> (record: Record, replayed: Bool) {
        let result = try await write(WriteBatch([
            .replace(collection: collection, id: id, owner: owner, data: document, expectedVersion: expectedVersion),
        ], idempotency: idempotency))
        guard let record = result.records.first ?? nil else {
            throw StorageError(.notFound, "This was changed with this Idempotency-Key and has since been deleted.", details: ["id": id])
        }
        return (record, result.replayed)
    }

    /// Deletes one record.
    public func delete(from collection: String, id: String, owner: String,
                       expectedVersion: Int64? = nil) async throws(StorageError) {
        _ = try await write(WriteBatch([
            .delete(collection: collection, id: id, owner: owner, expectedVersion: expectedVersion),
        ]))
    }
}
