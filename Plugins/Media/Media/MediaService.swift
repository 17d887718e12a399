import Bus
import Crypto
import Foundation
import MediaAPI
import PluginKit
import StorageAPI

/// Intake and renditions. libvips work runs on a dispatch queue, never on Swift's cooperative
/// threads (a 24-megapixel decode takes tens of milliseconds of CPU), and at most
/// `config.concurrency` images are decoded at once, which bounds memory under a burst of uploads.
struct MediaService: Sendable {
    static let renditionsCollection = "media.renditions"
    /// A rendition's cache record holds its blob; it is found by its source when that goes.
    static let renditionsSchema = CollectionSchema(name: renditionsCollection, indexes: [IndexSpec(name: "source", fields: ["source"], scope: .global)],
                                                   blobFields: ["sha256"])

    let records: any RecordStore
    let blobs: any BlobStore
    let bus: any MessageBus
    let config: MediaPlugin.Config
    let gate: BlockingGate

    /// An upload, inline or by reference to the blob the caller put.
    func ingest(_ payload: BlobPayload, owner: String, geotagsItself: Bool = false) async throws(BusError) -> IngestedImage {
        do throws(BusError) {
            guard payload.size <= config.limits.maxBytes else {
                throw BusError(.tooLarge, "An image is at most \(config.limits.maxBytes) bytes; this one has \(payload.size).",
                               details: ["maxBytes": String(config.limits.maxBytes)])
            }
            // A stored upload is decoded by libvips from its file when storage has one here: the
            // bytes are never read into memory whole.
            if let sha256 = payload.blob, BlobRef.isValidHash(sha256), let file = try? await blobs.localPath(of: sha256) {
                let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? payload.size
                return try await ingest(file: file, stored: BlobRef(sha256: sha256, size: size), owner: owner, geotagsItself: geotagsItself)
            }
            let bytes = try await payload.bytes(from: blobs)
            return try await ingest(bytes, stored: payload.blob.map { BlobRef(sha256: $0, size: bytes.count) }, owner: owner, geotagsItself: geotagsItself)
        } catch {
            // Refused: the blob the upload came in goes (unless the same bytes are held elsewhere).
            if error.code != .deadlineExceeded, error.code != .cancelled { await payload.release(on: bus) }
            throw error
        }
    }

    /// `stored`: the blob the bytes already are, if they are one.
    func ingest(_ bytes: Data, stored: BlobRef? = nil, owner: String, geotagsItself: Bool = false) async throws(BusError) -> IngestedImage {
        let limits = config.limits
        // Two checks before anything is stored: every pixel decodes (a full, streaming decode), and
        // the rendition pipeline works on it — shrink-on-load reads the file its own way, and
        // either may trip where the other does not. The check's rendition is the app's first (the
        // list thumbnail), kept, so the first list view needs no decode.
        let first = config.renditions.first
        let (info, rendition) = try await gate.run { () throws(BusError) -> (ImageInfo, Data) in
            let info = try ImageInspector.verify(bytes, limits: limits)
            let rendition = try Thumbnailer.thumbnail(bytes, width: first?.width ?? 8, height: first?.height ?? 8, fit: first?.fit ?? .contain,
                                                      output: first?.format ?? .jpeg, quality: first?.quality ?? 82, limits: limits)
            return (info, rendition)
        }
        let blob = if let stored { stored } else { try await blobs.put(bytes) }
        if let first { try await cache(rendition, of: blob.sha256, as: first) }
        let image = IngestedImage(sha256: blob.sha256, size: blob.size, info: info)
        await bus.publish(ImageIngested(owner: owner, image: image, geotagsItself: geotagsItself))
        return image
    }

    /// ``ingest(_:stored:owner:geotagsItself:)`` of a stored blob's file, decoded by libvips from
    /// the file (sequential access, shrink-on-load for the first rendition).
    func ingest(file: URL, stored: BlobRef, owner: String, geotagsItself: Bool) async throws(BusError) -> IngestedImage {
        let limits = config.limits
        let first = config.renditions.first
        let (info, rendition) = try await gate.run { () throws(BusError) -> (ImageInfo, Data) in
            let info = try ImageInspector.verify(file: file, limits: limits)
            let rendition = try Thumbnailer.thumbnail(file: file, width: first?.width ?? 8, height: first?.height ?? 8, fit: first?.fit ?? .contain,
                                                      output: first?.format ?? .jpeg, quality: first?.quality ?? 82, limits: limits)
            return (info, rendition)
        }
        if let first { try await cache(rendition, of: stored.sha256, as: first) }
        let image = IngestedImage(sha256: stored.sha256, size: stored.size, info: info)
        await bus.publish(ImageIngested(owner: owner, image: image, geotagsItself: geotagsItself))
        return image
    }

    /// A new image made from an ingested one (crop, rotate, resize), in the original's format when
    /// Quire writes it (JPEG, WebP, PNG), else JPEG.
    func edit(_ sha256: String, _ edit: ImageEdit, owner: String, geotagsItself: Bool = false) async throws(BusError) -> IngestedImage {
        try edit.validate()
        let original = try await blobs.get(sha256)
        let limits = config.limits
        let edited = try await gate.run { () throws(BusError) -> Data in
            let format = try ImageInspector.inspect(original, limits: limits).format
            return try ImageEditor.edit(original, edit, output: Thumbnailer.Output(rawValue: format.rawValue) ?? .jpeg, limits: limits)
        }
        return try await ingest(edited, owner: owner, geotagsItself: geotagsItself)
    }

    /// The bytes of the original or of a rendition.
    private func image(_ sha256: String, rendition: String?) async throws(BusError) -> Data {
        if let rendition { return try await picture(sha256, rendition: rendition).bytes }
        return try await blobs.get(sha256)
    }

    func describe(_ sha256: String, rendition: String?) async throws(BusError) -> DescribeImage.Reply {
        let bytes = try await image(sha256, rendition: rendition)
        let limits = config.limits
        let size = try await gate.run { () throws(BusError) in try Compositor.orientedSize(of: bytes, limits: limits) }
        return DescribeImage.Reply(width: size.width, height: size.height)
    }

    func measureColour(_ frame: BlobPayload) async throws(BusError) -> MeanColour {
        let limits = config.limits
        guard frame.size <= limits.maxBytes else {
            throw BusError(.tooLarge, "A frame is at most \(limits.maxBytes) bytes.", details: ["maxBytes": String(limits.maxBytes)])
        }
        let bytes = try await frame.bytes(from: blobs)
        await frame.release(on: bus)  // a frame is measured, never kept
        guard bytes.count <= limits.maxBytes else {
            throw BusError(.tooLarge, "A frame is at most \(limits.maxBytes) bytes.", details: ["maxBytes": String(limits.maxBytes)])
        }
        return try await gate.run { () throws(BusError) in try Thumbnailer.meanColour(bytes, limits: limits) }
    }

    func composite(_ sha256: String, rendition: String?, overlay payload: BlobPayload) async throws(BusError) -> RenderedImage {
        let bytes = try await image(sha256, rendition: rendition)
        let overlay = try await payload.bytes(from: blobs)
        let limits = config.limits
        let png = try await gate.run { () throws(BusError) in try Compositor.composite(photo: bytes, overlayPNG: overlay, limits: limits) }
        return RenderedImage(sha256: BlobRef.of(png).sha256, format: .png, image: try await BlobPayload.wrap(png, in: blobs))
    }

    /// The source of some renditions was deleted: drop their cache records, which lets go of their
    /// blobs (storage deletes those).
    func forget(source sha256: String) async {
        do {
            let page = try await records.query(RecordQuery(collection: Self.renditionsCollection, owner: nil,
                                                           filters: [Filter("source", .eq, .string(sha256))], limit: RecordQuery.maxLimit))
            guard !page.records.isEmpty else { return }
            _ = try await records.write(WriteBatch(page.records.map {
                .delete(collection: Self.renditionsCollection, id: $0.id, owner: $0.owner, expectedVersion: nil)
            }))
        } catch {
            // Left for later: a stale cache record is only a few bytes, and its rendition is never served for a missing source.
        }
    }

    /// A rendition for the bus: the bytes by reference when large (a rendition is a stored blob already).
    func render(_ sha256: String, rendition name: String) async throws(BusError) -> RenderedImage {
        let picture = try await picture(sha256, rendition: name)
        let image: BlobPayload = picture.bytes.count <= BlobPayload.inlineLimit
            ? .inline(picture.bytes) : .stored(BlobRef(sha256: picture.sha256, size: picture.bytes.count))
        return RenderedImage(sha256: picture.sha256, format: picture.format, image: image)
    }

    /// An original or a rendition, with its bytes.
    struct Picture {
        var sha256: String
        var format: ImageFormat
        var bytes: Data
    }

    func picture(_ sha256: String, rendition name: String) async throws(BusError) -> Picture {
        if name == RenderImage.original {
            let bytes = try await blobs.get(sha256)
            guard let format = ImageSniffer.format(of: bytes) else {
                throw BusError(.internal, "The stored original '\(sha256)' is not an image.")
            }
            return Picture(sha256: sha256, format: format, bytes: bytes)
        }
        guard let rendition = config.renditions.first(where: { $0.name == name }) else {
            let known = config.renditions.map(\.name).joined(separator: ", ")
            throw BusError(.notFound, "No rendition '\(name)'; this app declares: \(RenderImage.original)\(known.isEmpty ? "" : ", " + known).",
                           details: ["field": "rendition"])
        }
        let key = Self.cacheKey(sha256: sha256, rendition: rendition)
        let format = ImageFormat(rawValue: rendition.format.rawValue) ?? .jpeg
        if let cached = try await records.get(collection: Self.renditionsCollection, id: key, owner: nil),
           let entry = try? cached.decode(CacheEntry.self),
           let bytes = try? await blobs.get(entry.sha256) {
            return Picture(sha256: entry.sha256, format: format, bytes: bytes)
        }
        let limits = config.limits
        let bytes: Data
        if let file = try? await blobs.localPath(of: sha256) {
            // From the file: shrink-on-load, the original never read into memory whole.
            bytes = try await gate.run { () throws(BusError) in
                try Thumbnailer.thumbnail(file: file, width: rendition.width, height: rendition.height, fit: rendition.fit,
                                          output: rendition.format, quality: rendition.quality, limits: limits)
            }
        } else {
            let original = try await blobs.get(sha256)
            bytes = try await gate.run { () throws(BusError) in
                try Thumbnailer.thumbnail(original, width: rendition.width, height: rendition.height, fit: rendition.fit,
                                          output: rendition.format, quality: rendition.quality, limits: limits)
            }
        }
        return Picture(sha256: try await cache(bytes, of: sha256, as: rendition), format: format, bytes: bytes)
    }

    /// Stores a rendition's bytes and the cache record that holds them; returns their hash.
    @discardableResult
    private func cache(_ bytes: Data, of source: String, as rendition: MediaPlugin.Rendition) async throws(BusError) -> String {
        let blob = try await blobs.put(bytes)
        do {
            _ = try await records.insert(CacheEntry(sha256: blob.sha256, source: source, rendition: rendition.signature),
                                         into: Self.renditionsCollection, id: Self.cacheKey(sha256: source, rendition: rendition), owner: "media")
        } catch where error.code == .conflict {
            // Rendered concurrently by another request, or ingested again: same bytes, same blob.
        }
        return blob.sha256
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
