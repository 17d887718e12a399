import Bus
import Foundation
import HTTPKit
import NotesAPI
import PluginKit
import ShareLinkAPI
import StorageAPI

/// Sharing a note read-only through the share-link plugin (apps with a `share-link:` section): the
/// notes plugin offers the kind `notes.note` (``SharedNote``) and answers what a link to one
/// shows now: the note's title, date and text with its photo, and the drawing on its back.
extension NotesService {
    /// `POST /notes/{id}/share`: a link to the note (its token shown once).
    func share(owner: String, id: String, input: NoteShareInput) async throws(BusError) -> CreateShareLink.Reply {
        let record = try await note(owner: owner, id: id)
        let data = try record.decode(NoteData.self)
        if let seconds = input.expiresInSeconds, seconds < 1 {
            throw BusError(.invalid, "expiresInSeconds is at least 1; leave it out for a link that does not expire.")
        }
        do {
            return try await bus.request(CreateShareLink(owner: owner, kind: SharedNote.id, resource: ["note": id],
                                                         title: input.title ?? (data.title.isEmpty ? "A note" : data.title),
                                                         expiresAt: input.expiresInSeconds.map { clock.now().addingTimeInterval(TimeInterval($0)) },
                                                         password: input.password))
        } catch where error.code == .noHandler {
            throw BusError(.notFound, "Sharing is not switched on in this app; its YAML turns it on with a share-link: section.")
        }
    }

    /// What a link to a note shows now: the front (title, date, text, photo) and, when there is
    /// one, the back's drawing. A note deleted since is gone.
    func sharedView(owner: String, resource: [String: String]) async throws(BusError) -> SharedView {
        guard let id = resource["note"], StorageNames.isValidID(id),
              let record = try await store.get(collection: Self.collection, id: id, owner: owner),
              let data = try? record.decode(NoteData.self) else {
            throw BusError(.notFound, "The shared note does not exist any more.")
        }
        let title = data.title.isEmpty ? "A note" : data.title
        var items = [SharedView.Item(id: id, title: title, text: data.text.isEmpty ? nil : data.text, image: data.photo)]
        if let drawing = data.drawing {
            items.append(SharedView.Item(id: "\(id)-back", title: "The back", overlay: drawing))
        }
        return SharedView(title: title, description: "A note from Napkin Notes, \(data.date), shared read-only.", items: items)
    }
}

struct NoteShareInput: Decodable {
    var title: String?
    var expiresInSeconds: Int?
    var password: String?
}
