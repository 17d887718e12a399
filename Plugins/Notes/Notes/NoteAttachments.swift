import Bus
import DrawingAPI
import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import MailAPI
import MediaAPI
import NIOCore
import NotesAPI
import StorageAPI

/// A note's photo and the drawing on its back. Both are blobs the note's record holds (the
/// collection declares them as blob fields), so replacing, clearing or deleting lets go of the old
/// one and storage deletes it once nothing else holds it.
extension NotesService {
    /// Checks the note is the caller's, ingests the image through media, then points the note at it.
    func attachPhoto(owner: String, id: String, bytes: Data, expectedVersion: Int64?) async throws(BusError) -> Record {
        _ = try await note(owner: owner, id: id)  // 404 before any decoding
        return try await attachPhoto(owner: owner, id: id, upload: try await BlobPayload.wrap(bytes, in: BusBlobStore(bus: bus)),
                                     expectedVersion: expectedVersion)
    }

    /// `upload`: the image inline, or the blob the upload was streamed into (released when refused).
    /// `photoText`: with photo text on, the photo's text is then read in the background (the note
    /// returned says `photoTextState: reading`).
    func attachPhoto(owner: String, id: String, upload: BlobPayload, expectedVersion: Int64?,
                     photoText: NotePhotoText? = nil) async throws(BusError) -> Record {
        let image = try await bus.request(IngestImage(owner: owner, image: upload), timeout: IngestImage.timeout)
        // Where the photo was taken (its EXIF GPS, as media read it), kept beside where the note was written.
        let place = image.info.gps.map { PhotoPlace(latitude: $0.latitude, longitude: $0.longitude) }
        let record = try await update(owner: owner, id: id, expectedVersion: expectedVersion) {
            $0.photo = image.sha256
            $0.photoPlace = place
            $0.forgetPhotoText()
        }
        guard let photoText else { return record }
        return await photoText.start(owner: owner, noteID: id, photo: image.sha256, orientation: image.info.orientation) ?? record
    }

    func removePhoto(owner: String, id: String, expectedVersion: Int64?) async throws(BusError) -> Record {
        try await update(owner: owner, id: id, expectedVersion: expectedVersion) {
            $0.photo = nil
            $0.photoPlace = nil
            $0.forgetPhotoText()
        }
    }

    /// The note's photo: `original` or one of the app's renditions.
    func photo(owner: String, id: String, rendition: String) async throws(BusError) -> RenderedImage {
        let data = try await note(owner: owner, id: id).decode(NoteData.self)
        guard let sha256 = data.photo else {
            throw BusError(.notFound, "Note '\(id)' has no photo; upload one with PUT /api/v1/notes/\(id)/photo.")
        }
        return try await bus.request(RenderImage(sha256: sha256, rendition: rendition), timeout: .seconds(30))
    }

    func saveDrawing(owner: String, id: String, drawing: Drawing, expectedVersion: Int64?) async throws(BusError) -> Record {
        _ = try await note(owner: owner, id: id)
        let saved = try await bus.request(try await SaveDrawing.of(drawing, on: bus))
        // An empty drawing is "clear": nothing to keep.
        let sha256 = drawing == .empty ? nil : saved.sha256
        return try await update(owner: owner, id: id, expectedVersion: expectedVersion) { $0.drawing = sha256 }
    }

    func clearDrawing(owner: String, id: String, expectedVersion: Int64?) async throws(BusError) -> Record {
        try await update(owner: owner, id: id, expectedVersion: expectedVersion) { $0.drawing = nil }
    }

    /// The drawing on the back; the empty drawing when there is none.
    func drawing(owner: String, id: String) async throws(BusError) -> Drawing {
        let data = try await note(owner: owner, id: id).decode(NoteData.self)
        guard let sha256 = data.drawing else { return .empty }
        return try await LoadDrawing.drawing(sha256, on: bus)
    }

    func renderDrawing(owner: String, id: String, format: RenderDrawing.Format, width: Int?, height: Int?)
        async throws(BusError) -> RenderedDrawing {
        let data = try await note(owner: owner, id: id).decode(NoteData.self)
        return try await bus.request(RenderDrawing(sha256: data.drawing, format: format, width: width, height: height), timeout: .seconds(30))
    }

    /// Reads the note afresh (an edit made while an image was being ingested is kept, not
    /// overwritten or refused), applies `change`, and writes it guarded by that version.
    private func update(owner: String, id: String, expectedVersion: Int64?,
                        _ change: (inout NoteData) -> Void) async throws(BusError) -> Record {
        let updated = try await modify(owner: owner, id: id, expectedVersion: expectedVersion, change).record
        await bus.publish(NoteChanged(owner: owner, noteID: id, kind: .edited, version: updated.version))
        return updated
    }
}

/// The HTTP side of photos and drawings.
enum NoteAttachmentRoutes {
    static func add(to routes: PluginRoutes, service: NotesService, limits: (photo: Int, drawing: Int), photoText: NotePhotoText? = nil) throws {
        try routes.add(.put, "{id}/photo", summary: "Attach a photo (the image's bytes as the body; replaces the old one)") {
            request, context, identity in
            var request = request
            let id = try NotesPlugin.id(context)
            let expectedVersion = try request.ifMatchVersion()
            _ = try await service.note(owner: identity.accountID, id: id)  // 404 before the body is read
            // Under the server's memory budget: streamed to a file beside the blobs, decoded from it.
            let record = try await request.withBudgetedUpload(ImageUpload.intake(what: "a photo", reservation: "this photo", on: service.bus),
                                                              limit: limits.photo) { upload in
                try await service.attachPhoto(owner: identity.accountID, id: id, upload: upload, expectedVersion: expectedVersion, photoText: photoText)
            }
            return NoteJSON.response(record)
        }
        try routes.add(.delete, "{id}/photo", summary: "Remove the note's photo") { request, context, identity in
            NoteJSON.response(try await service.removePhoto(owner: identity.accountID, id: try NotesPlugin.id(context),
                                                            expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.get, "{id}/photo", summary: "The photo as uploaded (for pinch-zoom)") { request, context, identity in
            let image = try await service.photo(owner: identity.accountID, id: try NotesPlugin.id(context), rendition: RenderImage.original)
            return Response.bytes(try await image.bytes(on: service.bus), type: image.format.mimeType, tag: image.sha256, request: request)
        }
        try routes.add(.get, "{id}/photo/{rendition}", summary: "A rendition of the photo declared in the app's YAML (list: 44x44, display)") {
            request, context, identity in
            guard let rendition = context.parameters.get("rendition") else { throw Problem.badRequest("The rendition is missing from the path.") }
            let image = try await service.photo(owner: identity.accountID, id: try NotesPlugin.id(context), rendition: rendition)
            return Response.bytes(try await image.bytes(on: service.bus), type: image.format.mimeType, tag: image.sha256, request: request)
        }
        try routes.add(.get, "{id}/drawing", summary: "The drawing on the back (JSON; empty when none)") { _, context, identity in
            try Response.json(try await service.drawing(owner: identity.accountID, id: try NotesPlugin.id(context)))
        }
        try routes.add(.put, "{id}/drawing", summary: "Save the drawing on the back (strokes and texts; {} clears it)") {
            request, context, identity in
            var request = request
            var context = context
            context.maxUploadSize = limits.drawing
            let drawing = try await request.decodeJSON(Drawing.self, context: context)
            return NoteJSON.response(try await service.saveDrawing(owner: identity.accountID, id: try NotesPlugin.id(context),
                                                                   drawing: drawing, expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.delete, "{id}/drawing", summary: "Clear the drawing on the back") { request, context, identity in
            NoteJSON.response(try await service.clearDrawing(owner: identity.accountID, id: try NotesPlugin.id(context),
                                                             expectedVersion: try request.ifMatchVersion()))
        }
        try routes.add(.get, "{id}/drawing/image", query: ["format", "size"], summary: "The drawing rendered: ?format=png|svg&size=WIDTHxHEIGHT") {
            request, context, identity in
            let query = request.uri.queryParameters
            let format = try query["format"].map { raw in
                guard let format = RenderDrawing.Format(rawValue: String(raw)) else {
                    throw Problem.badRequest("'format' is png or svg.", field: "format")
                }
                return format
            } ?? .png
            var width: Int?, height: Int?
            if let size = query["size"] {
                let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2 else { throw Problem.badRequest("'size' is WIDTHxHEIGHT, e.g. 1024x768.", field: "size") }
                (width, height) = (parts[0], parts[1])
            }
            let rendered = try await service.renderDrawing(owner: identity.accountID, id: try NotesPlugin.id(context), format: format,
                                                           width: width, height: height)
            return Response.bytes(try await rendered.bytes(on: service.bus), type: format == .svg ? "image/svg+xml" : "image/png", tag: nil, request: request)
        }
    }
}

struct EmailInput: Decodable {
    var to: String?
}

struct EmailReply: Encodable {
    var to: String
    var messageID: String
}

extension NotesService {
    /// The note by email through the app's mail plugin: the title as the subject, the date and the
    /// text as the body, the photo (as uploaded) attached by blob reference.
    func email(owner: String, id: String, to: String) async throws(BusError) -> SendMail.Reply {
        guard !to.isEmpty else { throw BusError.invalid("Say who gets it: {\"to\": \"name@example.org\"}.", field: "to") }
        let data = try await note(owner: owner, id: id).decode(NoteData.self)
        var attachments: [MailAttachment] = []
        if data.photo != nil {
            let image = try await photo(owner: owner, id: id, rendition: RenderImage.original)
            attachments.append(MailAttachment(filename: "photo.\(image.format == .jpeg ? "jpg" : image.format.rawValue)",
                                              contentType: image.format.mimeType, content: image.image))
        }
        let text = "\(data.title)\n\(data.date)\n\n\(data.text)\n"
        do {
            return try await bus.request(SendMail(to: to, subject: data.title, text: text, attachments: attachments), timeout: .seconds(60))
        } catch where error.code == .noHandler {
            throw BusError(.notFound, "Export by email is not switched on in this app; its YAML turns it on with a mail: section.")
        }
    }
}
