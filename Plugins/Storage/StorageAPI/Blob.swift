import Bus
import Crypto
import Foundation

/// A stored blob: content-addressed by the SHA-256 of its bytes.
public struct BlobRef: Codable, Sendable, Hashable {
    /// Lowercase hex SHA-256 of the content.
    public var sha256: String
    public var size: Int

    public init(sha256: String, size: Int) {
        self.sha256 = sha256
        self.size = size
    }

    /// The reference the given bytes would be stored under.
    /// The reference of a file's bytes, read in 1 MB pieces (never whole).
    public static func of(fileAt path: URL) throws(StorageError) -> BlobRef {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: path) } catch {
            throw StorageError(.notFound, "No file to store at '\(path.path)'.")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        while true {
            let piece: Data?
            do { piece = try handle.read(upToCount: 1 << 20) } catch {
                throw StorageError.unavailable("Cannot read '\(path.path)': \(error.localizedDescription)")
            }
            guard let piece, !piece.isEmpty else { break }
            hasher.update(data: piece)
            size += piece.count
        }
        return BlobRef(sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined(), size: size)
    }

    public static func of(_ bytes: Data) -> BlobRef {
        BlobRef(sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(), size: bytes.count)
    }

    /// Whether `text` looks like a lowercase hex SHA-256.
    public static func isValidHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// Bytes a bus message carries: in the message when they are small, else as a reference to a blob
/// the sender put, so that no message outgrows a network bus (NATS takes 1 MB by default) and an
/// upload of any size can go to a worker on another machine. Both sides reach the same blobs:
/// every node, worker or not, has the same storage behind it.
///
/// On the wire: `{"data": "<base64>", "size": N}` or `{"blob": "<sha256>", "size": N}`.
public struct BlobPayload: Codable, Sendable, Equatable {
    /// Larger bytes travel by reference (a quarter of NATS' default limit, base64 included).
    public static let inlineLimit = 256 * 1024

    public var data: Data?
    public var blob: String?
    public var size: Int

    /// Bytes that go in the message whatever their size: for what is small by its nature.
    public static func inline(_ bytes: Data) -> BlobPayload {
        BlobPayload(data: bytes, blob: nil, size: bytes.count)
    }

    /// A blob already stored: nothing is put again.
    public static func stored(_ ref: BlobRef) -> BlobPayload {
        BlobPayload(data: nil, blob: ref.sha256, size: ref.size)
    }

    /// `bytes` inline when small, else put as a blob (idempotent: a blob is named by its content)
    /// and referred to. A blob put only to carry bytes and held by no record is collected after
    /// the storage's grace period.
    public static func wrap(_ bytes: Data, in blobs: any BlobStore) async throws(StorageError) -> BlobPayload {
        if bytes.count <= inlineLimit { return .inline(bytes) }
        return .stored(try await blobs.put(bytes))
    }

    /// Lets go of the blob the bytes came in, if they came by reference: storage deletes it unless a
    /// record holds it (see ``ReleaseBlobs``). For what was put only to be carried: a refused
    /// upload, a camera frame, a drawing's document before it is saved in its own form.
    public func release(on bus: any MessageBus) async {
        guard let blob else { return }
        _ = try? await bus.request(ReleaseBlobs([blob]))
    }

    /// The bytes, read from `blobs` when they came by reference.
    public func bytes(from blobs: any BlobStore) async throws(StorageError) -> Data {
        if let data { return data }
        guard let blob, BlobRef.isValidHash(blob) else {
            throw StorageError(.invalid, "A message's bytes name no blob; send them inline or as a stored blob's SHA-256.")
        }
        return try await blobs.get(blob)
    }
}

/// Bytes too many for one blob or one message (an import file, an export), stored as blobs in
/// order, each at most ``partSize``: under any sensible `max_blob_bytes`, and never held whole by
/// the sender. A part's `PutBlob` crosses even NATS (1 MB, the bytes in base64) when storage is
/// asked over the network (`local_first: false`). Whoever reads them is done with them when it says so (``release(on:)``); until
/// then the storage's grace period keeps them.
///
/// On the wire: `{"parts": [{"sha256": "…", "size": N}, …], "size": N}`.
public struct BlobParts: Codable, Sendable, Equatable {
    public static let partSize = 512 << 10

    public var parts: [BlobRef]
    public var size: Int

    public init(parts: [BlobRef]) {
        self.parts = parts
        size = parts.reduce(0) { $0 + $1.size }
    }

    /// Puts bytes as they arrive, a part whenever ``BlobParts/partSize`` have gathered.
    public struct Writer: Sendable {
        private let blobs: any BlobStore
        private var pending = Data()
        /// What is stored so far: release it when the bytes are given up half-way.
        public private(set) var stored = BlobParts(parts: [])

        public init(blobs: any BlobStore) { self.blobs = blobs }

        public mutating func append(_ bytes: Data) async throws(StorageError) {
            pending.append(bytes)
            guard pending.count >= BlobParts.partSize else { return }
            var start = pending.startIndex
            while pending.endIndex - start >= BlobParts.partSize {
                try await put(pending[start..<start + BlobParts.partSize])
                start += BlobParts.partSize
            }
            pending = Data(pending[start...])
        }

        /// Puts what remains; the parts, in order.
        public mutating func finish() async throws(StorageError) -> BlobParts {
            if !pending.isEmpty { try await put(pending[...]) }
            pending = Data()
            return stored
        }

        private mutating func put(_ bytes: Data) async throws(StorageError) {
            let ref = try await blobs.put(Data(bytes))
            stored = BlobParts(parts: stored.parts + [ref])
        }
    }

    /// Stores `bytes` in parts.
    public static func put(_ bytes: Data, in blobs: any BlobStore) async throws(StorageError) -> BlobParts {
        var writer = Writer(blobs: blobs)
        try await writer.append(bytes)
        return try await writer.finish()
    }

    /// Stores a file in parts, reading a part at a time.
    public static func put(file: URL, in blobs: any BlobStore) async throws(StorageError) -> BlobParts {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch {
            throw StorageError(.invalid, "Cannot read '\(file.path)': \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        var writer = Writer(blobs: blobs)
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: partSize) } catch {
                throw StorageError(.invalid, "Cannot read '\(file.path)': \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            // Parts put before a failure are held by nothing: storage's sweep takes them.
            try await writer.append(chunk)
        }
        return try await writer.finish()
    }

    /// Hands each part's bytes to `consume`, in order, one part in memory at a time.
    /// - Throws: `not_found` when a part is no longer stored (past the grace period, or released).
    public func forEach(from blobs: any BlobStore, _ consume: (Data) async throws -> Void) async throws(StorageError) {
        for (index, part) in parts.enumerated() {
            let bytes: Data
            do { bytes = try await blobs.get(part.sha256) } catch where error.code == .notFound {
                throw StorageError(.notFound, "Part \(index + 1) of \(parts.count) of the bytes is no longer stored; send them again.")
            }
            guard bytes.count == part.size else {
                throw StorageError(.invalid, "Part \(index + 1) of \(parts.count) has \(bytes.count) bytes, not the \(part.size) it was sent as.")
            }
            do { try await consume(bytes) } catch let error as StorageError { throw error } catch {
                throw StorageError(.internal, "Cannot use part \(index + 1) of \(parts.count): \(error)")
            }
        }
    }

    /// Writes the parts, in order, to a new file at `file`.
    public func write(to file: URL, from blobs: any BlobStore) async throws(StorageError) {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw StorageError(.internal, "Cannot create '\(file.path)'.")
        }
        let handle: FileHandle
        do { handle = try FileHandle(forWritingTo: file) } catch {
            throw StorageError(.internal, "Cannot write '\(file.path)': \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        try await forEach(from: blobs) { bytes in try handle.write(contentsOf: bytes) }
    }

    /// Copies the parts into `file` inside a new directory `scratch`, and lets go of them whatever
    /// happens (the caller owns the copy now). The directory is removed again on failure.
    /// - Throws: `invalid` naming `field` when a part is no longer stored (the client sends again).
    public func copyOut(to file: URL, scratch: URL, from blobs: any BlobStore, on bus: any MessageBus, field: String = "file") async throws(BusError) {
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            await release(on: bus)
            throw BusError(.internal, "Cannot create a scratch directory: \(error)")
        }
        var failure: BusError?
        do { try await write(to: file, from: blobs) } catch { failure = error }
        await release(on: bus)
        guard let failure else { return }
        try? FileManager.default.removeItem(at: scratch)
        throw failure.code == .notFound ? BusError.invalid("The file is no longer stored: \(failure.message)", field: field) : failure
    }

    /// Lets go of the parts (``ReleaseBlobs``): deleted after the grace period unless a record holds one.
    public func release(on bus: any MessageBus) async {
        guard !parts.isEmpty else { return }
        _ = try? await bus.request(ReleaseBlobs(Array(Set(parts.map(\.sha256)))))
    }
}
