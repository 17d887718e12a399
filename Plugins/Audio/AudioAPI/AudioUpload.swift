public import Bus
public import Foundation
public import HTTPKit
import HTTPTypes
public import Hummingbird
import NIOCore
public import StorageAPI

/// A WAV upload as a route takes one in (``Request/withBudgetedUpload(_:limit:_:)``): its memory
/// cost (the body, and the samples and Opus packets encoding holds), written beside the blobs when
/// storage keeps files here, its header checked (``WAVFormat/checkHead(_:limits:)``) before the rest
/// is read, and stored as a blob for ``IngestAudio``.
public enum AudioUpload {
    public static func intake(what: String, reservation: String, limits: AudioLimits, on bus: any MessageBus) -> UploadIntake<BlobPayload> {
        UploadIntake(what: what, reservation: reservation,
                     // Reading and encoding hold three to four times the body at once (the upload's bytes, a
                     // copy as WAVFormat parses it, the Int16 samples for libopus, then the Ogg pages;
                     // measured 2.9× by tools/bench.d/audio.py), so four times it is reserved.
                     cost: { declared, limit in 4 * min(max(0, declared ?? limit), limit) + (1 << 20) },
                     spoolDirectory: { try? await BusBlobStore(bus: bus).spoolDirectory() },
                     checkHead: { head in try WAVFormat.checkHead(head, limits: limits) },
                     fromFile: { file in .stored(try await BusBlobStore(bus: bus).put(fileAt: file)) },
                     fromBytes: { bytes in try await BlobPayload.wrap(bytes, in: BusBlobStore(bus: bus)) })
    }
}

/// Serving a recording: an `<audio>` element asks for byte ranges (to find an Ogg file's length it
/// reads its last page), so ranges are answered (RFC 9110 §14: one range, 206 with Content-Range,
/// 416 when it starts past the end); the ETag is the file's SHA-256.
public enum AudioResponse {
    public static func ogg(_ data: Data, tag: String, request: Request) -> Response {
        var headers: HTTPFields = [.contentType: IngestedAudio.mimeType, .cacheControl: "private, no-cache", .acceptRanges: "bytes",
                                   .xContentTypeOptions: "nosniff", .eTag: "\"\(tag)\""]
        if request.headers[.ifNoneMatch] == "\"\(tag)\"" { return Response(status: .notModified, headers: headers) }
        guard let range = request.headers[.range], let (start, end) = byteRange(range, size: data.count) else {
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        guard start < data.count, start <= end else {
            headers[.contentRange] = "bytes */\(data.count)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentRange] = "bytes \(start)-\(end)/\(data.count)"
        let slice = data[data.startIndex + start...data.startIndex + end]
        return Response(status: .partialContent, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: slice)))
    }

    /// `bytes=A-B`, `bytes=A-` or `bytes=-N` as first and last offsets (the last clamped to the
    /// end); nil for anything else (several ranges, other units), which is answered whole.
    static func byteRange(_ header: String, size: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return (max(0, size - suffix), size - 1)
        }
        guard let start = Int(parts[0]), start >= 0 else { return nil }
        if parts[1].isEmpty { return (start, size - 1) }
        guard let end = Int(parts[1]), end >= start else { return nil }
        return (start, min(end, size - 1))
    }
}
