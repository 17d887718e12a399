import Bus
import Crypto
import Foundation
import MediaAPI
import StorageAPI

/// Intake and renditions. libvips work runs on a dispatch queue, never on Swift's cooperative
/// threads (a 24-megapixel decode takes tens of milliseconds of CPU), and at most
/// `config.concurrency` images are decoded at once, which bounds memory under a burst of uploads.
struct MediaService: Sendable {
    static let renditionsCollection = "media.renditions"

    let records: any RecordStore
    let blobs: any BlobStore
    let bus: any MessageBus
    let config: MediaPlugin.Config
    let gate: ConcurrencyGate

    func ingest(_ bytes: Data, owner: String) async throws(BusError) -> IngestedImage {
        let limits = config.limits
        let info = try await gate.run { () throws(BusError) in try ImageInspector.inspect(bytes, limits: limits) }
        // Decode fully once (through the smallest rendition size) so that a file whose header
        // reads but whose pixels are damaged is refused now, not when someone views it.
        _ = try await gate.run { () throws(BusError) in
            try Thumbnailer.thumbnail(bytes, width: 8, height: 8, fit: .contain, limits: limits)
        }
        let blob = try await blobs.put(bytes)
        let image = IngestedImage(sha256: blob.sha256, size: blob.size, info: info)
        await bus.publish(ImageIngested(owner: owner, image: image))
        return image
    }

    func render(_ sha256: String, rendition name: String) async throws(BusError) -> RenderedImage {
        guard let rendition = config.renditions.first(where: { $0.name == name }) else {
            let known = config.renditions.map(\.name).joined(separator: ", ")
            throw BusError.invalid("No rendition '\(name)'; this app declares: \(known.isEmpty ? "none" : known).", field: "rendition")
        }
        let key = Self.cacheKey(sha256: sha256, rendition: rendition)
        let format = ImageFormat(rawValue: rendition.format.rawValue) ?? .jpeg
        if let cached = try await records.get(collection: Self.renditionsCollection, id: key, owner: nil),
           let entry = try? cached.decode(CacheEntry.self),
           let bytes = try? await blobs.get(entry.sha256) {
            return RenderedImage(sha256: entry.sha256, format: format, bytes: bytes)
        }
        let original = try await blobs.get(sha256)
        let limits = config.limits
        let bytes = try await gate.run { () throws(BusError) in
            try Thumbnailer.thumbnail(original, width: rendition.width, height: rendition.height, fit: rendition.fit,
                                      output: rendition.format, quality: rendition.quality, limits: limits)
        }
        let blob = try await blobs.put(bytes)
        do {
            _ = try await records.insert(CacheEntry(sha256: blob.sha256, source: sha256, rendition: rendition.signature),
                                         into: Self.renditionsCollection, id: key, owner: "media")
        } catch where error.code == .conflict {
            // Rendered concurrently by another request: same bytes, same blob.
        }
        return RenderedImage(sha256: blob.sha256, format: format, bytes: bytes)
    }

    struct CacheEntry: Codable {
        var sha256: String
        var source: String
        var rendition: String
    }

    /// The cache id: a hash of the source's hash and everything that shapes the rendition, so that
    /// changing a rendition's size in the YAML makes new renditions instead of serving stale ones.
    static func cacheKey(sha256: String, rendition: MediaPlugin.Rendition) -> String {
        SHA256.hash(data: Data("\(sha256)|\(rendition.signature)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Runs blocking work on a dispatch queue, at most `limit` at a time; waiters queue in order.
final class ConcurrencyGate: Sendable {
    private let semaphore: DispatchSemaphore
    private let queue = DispatchQueue(label: "quire.media", attributes: .concurrent)

    init(limit: Int) {
        semaphore = DispatchSemaphore(value: max(1, limit))
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> T) async throws(BusError) -> T {
        let result: Result<T, BusError> = await withCheckedContinuation { continuation in
            queue.async { [semaphore] in
                semaphore.wait()
                defer { semaphore.signal() }
                continuation.resume(returning: Result { () throws(BusError) in try work() })
            }
        }
        return try result.get()
    }
}
