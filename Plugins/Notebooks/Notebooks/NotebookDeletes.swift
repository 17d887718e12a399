import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// Deleting a page or a notebook: only after an explicit confirmation tied to the version the user
/// saw (FR3.2.10–11), and for a notebook a cleanup that resumes if interrupted.
struct NotebookDeletes: NotebookConcern {
    let core: NotebookStore

    /// What an explicit confirmation must repeat: tied to the exact version the user saw, so a
    /// page that changed since is never deleted on a stale "yes".
    static func confirmation(_ what: String, _ record: Record) -> String {
        String(Secrets.sha256Hex("\(what)|\(record.id)|\(record.version)").prefix(16))
    }

    struct ConfirmationNeeded: Error {
        var token: String
        var summary: String
        var pages: Int
        var items: Int
    }

    /// FR3.2.10: deletes page `number` and its items after an explicit confirmation.
    func deletePage(caller: String, id: String, number: Int, confirm: String?) async throws -> Void {
        let (notebook, data, granted) = try await access(caller: caller, id: id, writing: true)
        // Someone near a pin may change the notebook's texts (and Undo them); a page's delete cannot
        // be undone, so it is its owner's alone, as deleting or sharing the notebook is.
        guard granted == .owner else {
            throw BusError(.forbidden, "Only the notebook's owner can delete a page; you can add pages and change their texts.")
        }
        let owner = notebook.owner
        let (pageRecord, _) = try await pageAt(notebook, data, number: number)
        let onPage = try await items(onPage: pageRecord.id, owner: owner)
        let token = Self.confirmation("page", pageRecord)
        guard confirm == token else {
            throw ConfirmationNeeded(token: token, summary: "Delete page \(number) and its \(onPage.count) item\(onPage.count == 1 ? "" : "s")? "
                                     + "This cannot be undone. Repeat the request with ?confirm=\(token).", pages: 1, items: onPage.count)
        }
        // A page with more items than one batch holds loses its items first: a crash in between leaves a
        // page with fewer items, never items without a page.
        let together = onPage.count + 2 <= WriteBatch.maxOperations
        if !together {
            for chunk in NotebookStore.chunks(onPage.map(\.0.id), size: WriteBatch.maxOperations) {
                _ = try await store.write(WriteBatch(chunk.map { .delete(collection: NotebookStore.items, id: $0, owner: owner, expectedVersion: nil) }))
            }
        }
        try await update(owner: owner, id: id, extra: { _ in
            (together ? onPage.map { .delete(collection: NotebookStore.items, id: $0.0.id, owner: owner, expectedVersion: nil) } : [])
                + [.delete(collection: NotebookStore.pages, id: pageRecord.id, owner: owner, expectedVersion: pageRecord.version)]
        }) { data in
            data.pages.removeAll { $0 == pageRecord.id }
            data.itemCount -= onPage.count
            data.lastInsert = nil
            data.lastEdit = nil
        }
    }

    /// "1 page", "3 items": the delete's question in words a person says.
    static func count(_ n: Int, _ thing: String) -> String { "\(n) \(thing)\(n == 1 ? "" : "s")" }

    /// FR3.2.11: deletes a notebook with its pages, items, pin and share links, after an explicit
    /// confirmation. Images go with the last item holding them (storage releases unheld blobs).
    func deleteNotebook(caller: String, id: String, confirm: String?) async throws {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: NotebookStore.notebooks, id: id, owner: caller) else {
            _ = try await access(caller: caller, id: id, owning: true)
            throw NotebookStore.noNotebook(id)
        }
        let data = try record.decode(NotebookData.self)
        if data.deleting != true {
            let token = Self.confirmation("notebook", record)
            guard confirm == token else {
                throw ConfirmationNeeded(token: token, summary: "Delete '\(data.name)' with its \(Self.count(data.pageCount, "page")) and \(Self.count(data.itemCount, "item"))? "
                                         + "This cannot be undone. Repeat the request with ?confirm=\(token).", pages: data.pageCount, items: data.itemCount)
            }
            var marked = data
            marked.deleting = true
            _ = try await store.replace(marked, in: NotebookStore.notebooks, id: id, owner: caller, expectedVersion: record.version)
        }
        // From here on the notebook is gone for everyone; the rest is cleanup that resumes if interrupted.
        _ = try await bus.request(RemoveGeotag(owner: caller, subject: "\(NotebookStore.geoKind)/\(id)"))
        for link in try await bus.request(ListShareLinks(owner: caller)).links
        where link.kind == SharedNotebook.id && link.resource["notebook"] == id && link.revokedAt == nil {
            _ = try await bus.request(RevokeShareLink(owner: caller, id: link.id))
        }
        for collection in [NotebookStore.items, NotebookStore.pages] {
            while true {
                let found = try await store.query(RecordQuery(collection: collection, owner: caller, filters: [Filter("notebook", .eq, .string(id))],
                                                              limit: WriteBatch.maxOperations))
                if found.records.isEmpty { break }
                _ = try await store.write(WriteBatch(found.records.map { .delete(collection: collection, id: $0.id, owner: caller, expectedVersion: nil) }))
            }
        }
        try await store.delete(from: NotebookStore.notebooks, id: id, owner: caller)
        await bus.publish(NotebookDeleted(owner: caller, notebookID: id))
    }
}
