public import Bus
public import Foundation
public import HTTPKit
public import StorageAPI

/// An image upload under the server's memory budget: what it reserves, how its first bytes are
/// checked, and how the file it was written to becomes the blob intake reads (see
/// `Request.spoolUpload` and `MemoryBudget` in HTTPKit).
public enum ImageUpload {
    /// libvips' working memory for one image's intake: a sequential decode with one worker holds
    /// a few strips of the image (a 24 MP JPEG: a few MB), the first rendition decodes shrunk.
    public static let decodeAllowance = 16 << 20

    /// What an upload reserves: its body (as declared, else the largest allowed) plus its decode.
    public static func memoryCost(declaredBytes: Int?, limit: Int) -> Int {
        min(max(0, declaredBytes ?? limit), limit) + decodeAllowance
    }

    /// Refuses (415) a body whose first bytes are no image Quire reads, before the rest is read.
    public static func checkHead(_ head: Data, what: String) throws(BusError) {
        guard ImageFormat.sniff(head) != nil else {
            throw BusError(.unsupportedMedia, "\(what.prefix(1).uppercased() + what.dropFirst()) must be an image Quire reads (JPEG, PNG, WebP, GIF, HEIC or AVIF); "
                           + "this file is not one, whatever its name or Content-Type says. Choose a photo instead.")
        }
    }

    /// Where to write an upload: storage's spool directory when its blobs are files on this
    /// machine, else nil (the upload is then collected in memory, under the budget).
    public static func spoolDirectory(on bus: any MessageBus) async -> URL? {
        try? await BusBlobStore(bus: bus).spoolDirectory()
    }

    /// The written upload stored as a blob (moved into place, not read into memory), for
    /// ``IngestImage``. The file is gone afterwards.
    public static func payload(file: URL, on bus: any MessageBus) async throws(BusError) -> BlobPayload {
        .stored(try await BusBlobStore(bus: bus).put(fileAt: file))
    }

    /// An image upload as every route takes one in (``Request/withBudgetedUpload(_:limit:_:)``):
    /// its memory cost, written beside the blobs when storage keeps files here, its first bytes
    /// sniffed, and stored as a blob. `what` names it in answers ("a photo"), `reservation` in a
    /// refusal for want of memory ("this photo").
    public static func intake(what: String, reservation: String, on bus: any MessageBus) -> UploadIntake<BlobPayload> {
        UploadIntake(what: what, reservation: reservation, cost: memoryCost(declaredBytes:limit:),
                     spoolDirectory: { await spoolDirectory(on: bus) },
                     checkHead: { head in try checkHead(head, what: what) },
                     fromFile: { file in try await payload(file: file, on: bus) },
                     fromBytes: { bytes in try await BlobPayload.wrap(bytes, in: BusBlobStore(bus: bus)) })
    }
}
