import Bus
public import Foundation
public import StorageAPI
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Blobs as files under one directory, named by their SHA-256 (`ab/abcdef…`).
///
/// A blob is written to `.tmp/`, fsynced, renamed into place and the directory fsynced: after a
/// crash a blob is either whole under its name or not there at all. Leftover temp files from a crash
/// are removed at start.
///
/// A blob's put time is its file's modification time: `put` of bytes already stored renews it, so
/// that garbage collection (``collect(_:unlessPutSince:)``) leaves a blob alone while an upload of
/// the same bytes is on its way to being held by a record. The check-and-delete and the
/// find-or-renew run under one lock.
public final class FileBlobStore: BlobCollecting {
    public let directory: URL
    private let maxBlobBytes: Int
    private let placing = Mutex(())

    public init(directory: String, maxBlobBytes: Int = 64 << 20) throws(StorageError) {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        self.maxBlobBytes = maxBlobBytes
        let temp = self.directory.appendingPathComponent(".tmp", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
            for leftover in try FileManager.default.contentsOfDirectory(atPath: temp.path) {
                try? FileManager.default.removeItem(at: temp.appendingPathComponent(leftover))
            }
        } catch {
            throw StorageError.unavailable("Cannot use the blob directory '\(directory)': \(error.localizedDescription)")
        }
    }

    private func url(_ sha256: String) -> URL {
        directory.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true).appendingPathComponent(sha256)
    }

    public func put(_ bytes: Data) async throws(StorageError) -> BlobRef {
        guard bytes.count <= maxBlobBytes else {
            throw StorageError(.tooLarge, "A blob is limited to \(maxBlobBytes) bytes; this one has \(bytes.count).")
        }
        let reference = BlobRef.of(bytes)
        let target = url(reference.sha256)
        // Present: renew its put time (utimes to now) and done.
        if placing.withLock({ _ in utimes(target.path, nil) == 0 }) { return reference }
        let temp = directory.appendingPathComponent(".tmp", isDirectory: true)
            .appendingPathComponent(UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.writeDurably(bytes, to: temp.path)
            let renamed = placing.withLock { _ in rename(temp.path, target.path) == 0 ? 0 : errno }
            guard renamed == 0 else { throw POSIXFailure(call: "rename", code: renamed) }
            Self.syncDirectory(target.deletingLastPathComponent().path)
        } catch {
            try? FileManager.default.removeItem(at: temp)
            throw StorageError.unavailable("Cannot write a blob: \(error). Check free disk space.")
        }
        return reference
    }

    private var spool: URL { directory.appendingPathComponent(".tmp", isDirectory: true) }

    /// Uploads are written in `.tmp/` beside the blobs (the same disk, so a put is a rename);
    /// leftovers from a crash go at the next start.
    public func spoolDirectory() async throws(StorageError) -> URL? { spool }

    /// Moves a file written in ``spoolDirectory()`` into place as a blob: hashed piece by piece,
    /// fsynced, renamed (or dropped when the same bytes are stored already).
    public func put(fileAt path: URL) async throws(StorageError) -> BlobRef {
        let file = path.standardizedFileURL
        defer { try? FileManager.default.removeItem(at: file) }
        guard file.deletingLastPathComponent().standardizedFileURL.path == spool.standardizedFileURL.path,
              !file.lastPathComponent.hasPrefix(".") else {
            throw StorageError(.invalid, "Only a file written in the blob store's spool directory (\(spool.path)) can be stored; '\(path.path)' is elsewhere.")
        }
        let reference = try BlobRef.of(fileAt: file)
        guard reference.size <= maxBlobBytes else {
            throw StorageError(.tooLarge, "A blob is limited to \(maxBlobBytes) bytes; this one has \(reference.size).")
        }
        let target = url(reference.sha256)
        if placing.withLock({ _ in utimes(target.path, nil) == 0 }) { return reference }
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            let descriptor = open(file.path, O_RDONLY)
            guard descriptor >= 0 else { throw POSIXFailure(call: "open", code: errno) }
            let synced = fsync(descriptor) == 0 ? 0 : errno
            close(descriptor)
            guard synced == 0 else { throw POSIXFailure(call: "fsync", code: synced) }
            let renamed = placing.withLock { _ in rename(file.path, target.path) == 0 ? 0 : errno }
            guard renamed == 0 else { throw POSIXFailure(call: "rename", code: renamed) }
            Self.syncDirectory(target.deletingLastPathComponent().path)
        } catch {
            throw StorageError.unavailable("Cannot write a blob: \(error). Check free disk space.")
        }
        return reference
    }

    public func localPath(of sha256: String) async throws(StorageError) -> URL? {
        guard BlobRef.isValidHash(sha256) else { return nil }
        let path = url(sha256)
        return FileManager.default.fileExists(atPath: path.path) ? path : nil
    }

    public func get(_ sha256: String) async throws(StorageError) -> Data {
        guard BlobRef.isValidHash(sha256), let data = FileManager.default.contents(atPath: url(sha256).path) else {
            throw StorageError(.notFound, "No blob '\(sha256)'.", details: ["sha256": sha256])
        }
        return data
    }

    public func stat(_ sha256: String) async throws(StorageError) -> BlobRef? {
        guard BlobRef.isValidHash(sha256),
              let attributes = try? FileManager.default.attributesOfItem(atPath: url(sha256).path),
              let size = attributes[.size] as? Int else { return nil }
        return BlobRef(sha256: sha256, size: size)
    }

    @discardableResult
    public func delete(_ sha256: String) async throws(StorageError) -> Bool {
        guard BlobRef.isValidHash(sha256) else { return false }
        let path = url(sha256).path
        guard FileManager.default.fileExists(atPath: path) else { return false }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw StorageError.unavailable("Cannot delete blob '\(sha256)': \(error.localizedDescription)")
        }
        return true
    }

    public func collect(_ sha256: String, unlessPutSince cutoff: Date) async throws(StorageError) -> Bool {
        guard BlobRef.isValidHash(sha256) else { return false }
        let path = url(sha256).path
        let failure: Int32? = placing.withLock { _ in
            var status = Glibc.stat()
            guard lstat(path, &status) == 0 else { return nil }
            let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            guard modified < cutoff.timeIntervalSince1970 else { return nil }
            return unlink(path) == 0 ? 0 : errno
        }
        switch failure {
        case nil: return false
        case 0: return true
        case let code?:
            throw StorageError.unavailable("Cannot delete blob '\(sha256)': \(String(cString: strerror(code))).")
        }
    }

    public func blobs(putBefore cutoff: Date) async throws(StorageError) -> [String] {
        let keys: [URLResourceKey] = [.contentModificationDateKey, .isRegularFileKey]
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys,
                                                          options: [.skipsHiddenFiles]) else { return [] }
        var found: [String] = []
        for case let file as URL in walker {
            let name = file.lastPathComponent
            guard BlobRef.isValidHash(name),
                  let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true,
                  let modified = values.contentModificationDate, modified < cutoff else { continue }
            found.append(name)
        }
        return found.sorted()
    }

    struct POSIXFailure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    private static func writeDurably(_ bytes: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(call: "open", code: errno) }
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXFailure(call: "write", code: errno)
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw POSIXFailure(call: "fsync", code: errno) }
    }

    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}

/// Blobs in memory, for tests.
public final class InMemoryBlobStore: BlobCollecting {
    private let blobs = Mutex<[String: (bytes: Data, putAt: Date)]>([:])
    private let maxBlobBytes: Int

    public init(maxBlobBytes: Int = 64 << 20) {
        self.maxBlobBytes = maxBlobBytes
    }

    public func put(_ bytes: Data) async throws(StorageError) -> BlobRef {
        guard bytes.count <= maxBlobBytes else {
            throw StorageError(.tooLarge, "A blob is limited to \(maxBlobBytes) bytes; this one has \(bytes.count).")
        }
        let reference = BlobRef.of(bytes)
        blobs.withLock { $0[reference.sha256] = (bytes, StoreTime.now()) }
        return reference
    }

    public func get(_ sha256: String) async throws(StorageError) -> Data {
        guard let data = blobs.withLock({ $0[sha256]?.bytes }) else {
            throw StorageError(.notFound, "No blob '\(sha256)'.", details: ["sha256": sha256])
        }
        return data
    }

    public func stat(_ sha256: String) async throws(StorageError) -> BlobRef? {
        blobs.withLock { $0[sha256] }.map { BlobRef(sha256: sha256, size: $0.bytes.count) }
    }

    public func collect(_ sha256: String, unlessPutSince cutoff: Date) async throws(StorageError) -> Bool {
        blobs.withLock { blobs in
            guard let blob = blobs[sha256], blob.putAt < cutoff else { return false }
            blobs[sha256] = nil
            return true
        }
    }

    public func blobs(putBefore cutoff: Date) async throws(StorageError) -> [String] {
        blobs.withLock { $0.filter { $0.value.putAt < cutoff }.keys.sorted() }
    }

    @discardableResult
    public func delete(_ sha256: String) async throws(StorageError) -> Bool {
        blobs.withLock { $0.removeValue(forKey: sha256) != nil }
    }
}
