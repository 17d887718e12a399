import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// What goes on a page: text typed or pasted and images, placed in a template's slots or centred,
/// moved and resized within the page; the last insert undone; one item deleted.
struct NotebookInserts: NotebookConcern {
    let core: NotebookStore

    enum Insert: Sendable {
        case text(String, kind: String)
        /// The image inline, or the blob its upload was streamed into.
        case image(BlobPayload)
    }

    /// FR3.2.5–7: an item on page `number`, in the chosen slot when the page's template has a free
    /// one, else centred; stored at once, and remembered as the notebook's undoable insert.
    func insert(caller: String, id: String, number: Int, slot: Int?, idempotencyKey: String? = nil, _ insert: Insert) async throws(BusError) -> InsertResult {
        let (notebook, data, _) = try await access(caller: caller, id: id, writing: true)
        let owner = notebook.owner
        // Checked before anything is decoded or stored.
        var item = ItemData(notebook: id, page: "", seq: 0, kind: "text", text: nil, image: nil, imageWidth: nil, imageHeight: nil, slot: nil,
                            frame: Frame(x: 0, y: 0, width: 0, height: 0))
        if case .text(let text, let kind) = insert { (item.kind, item.text) = (kind, try NotebookRules.checkText(text, kind: kind)) }
        let (pageRecord, page) = try await pageAt(notebook, data, number: number)
        item.page = pageRecord.id
        let onPage = try await items(onPage: pageRecord.id, owner: owner)
        guard onPage.count < limits.maxItemsPerPage else {
            throw BusError(.tooLarge, "A page holds at most \(limits.maxItemsPerPage) items; add a page.", details: ["field": "page"])
        }
        let slots = layout.template(page.template)?.slots ?? []
        let taken = Set(onPage.compactMap(\.1.slot))
        if let slot {
            guard slots.indices.contains(slot) else {
                throw BusError.invalid(slots.isEmpty ? "Page \(number) is blank (no slots); leave 'slot' out to centre the item."
                                       : "Page \(number)'s template has slots 0 to \(slots.count - 1).", field: "slot")
            }
            guard !taken.contains(slot) else {
                throw BusError(.conflict, "Slot \(slot) on page \(number) already holds an item; choose another slot or leave 'slot' out.",
                               details: ["field": "slot"])
            }
            item.slot = slot
        } else {
            item.slot = slots.indices.first { !taken.contains($0) }
        }
        var aspect: Double?
        if case .image(let upload) = insert {
            let image = try await bus.request(IngestImage(owner: owner, image: upload), timeout: IngestImage.timeout)
            let oriented = image.info.orientation >= 5 ? (image.info.height, image.info.width) : (image.info.width, image.info.height)
            (item.kind, item.image, item.imageWidth, item.imageHeight) = ("image", image.sha256, oriented.0, oriented.1)
            aspect = Double(oriented.0) / Double(max(oriented.1, 1))
        }
        item.frame = layout.place(in: item.slot.map { slots[$0] }, aspect: aspect, avoiding: onPage.map(\.1.frame))
        let itemID = core.newID("it")
        let prepared = item
        let claim = idempotencyKey.map {
            IdempotencyClaim(owner: caller, scope: "notebooks.insert", key: $0,
                             fingerprint: Secrets.sha256Hex("\(id)|\(pageRecord.id)|\(slot.map(String.init) ?? "-")|\(item.kind)|\(item.text ?? item.image ?? "")"))
        }
        let updated = try await update(owner: owner, id: id, idempotency: claim, extra: { data throws(BusError) in
            var item = prepared
            item.seq = data.nextSeq
            return [.insert(collection: NotebookStore.items, id: itemID, owner: owner, data: try JSONDocument(encoding: item))]
        }) { data in
            data.nextSeq += 1
            data.itemCount += 1
            data.lastInsert = itemID
            data.lastEdit = nil
        }
        guard let stored = updated.written.first ?? nil else {
            throw BusError(.gone, "This insert was made before and has since been removed.")
        }
        return InsertResult(item: ItemJSON(stored, try stored.decode(ItemData.self)), page: number, canUndo: updated.data.lastInsert == stored.id)
    }

    /// FR3.2.13: moves or resizes an item; the server keeps it inside the page whatever was asked.
    /// Moves, resizes or retypes an item. With `If-Match` naming an earlier version that history
    /// keeps, the change merges field by field into the item as it is (frame and text apart); the
    /// answer carries what a concurrent change to the same field had written.
    /// With an Idempotency-Key, the same change sent again (a phone's outbox after a reload cut the
    /// first answer off) is answered with the item as it is and not made again: made again on its old
    /// If-Match, it replaced the text the other phone had written since.
    func updateItem(caller: String, id: String, itemID: String, frame: Frame?, text: String?,
                    expectedVersion: Int64? = nil, idempotencyKey: String? = nil) async throws(BusError) -> FrameResult {
        let (notebook, _, _) = try await access(caller: caller, id: id, writing: true)
        let claim = IdempotencyClaim.edit(owner: caller, collection: "notebooks.item", key: idempotencyKey, id: "\(id)|\(itemID)", basedOn: expectedVersion,
                                          [String(describing: frame), text ?? "\u{0}"])
        var clamped = false
        let newFrame = try frame.map { frame throws(BusError) -> Frame in
            let result = try layout.clamp(frame)
            clamped = result.clamped
            return result.frame
        }
        let noItem = BusError(.notFound, "This item is no longer in the notebook: it was removed, maybe on another device.", details: ["id": itemID])
        guard StorageNames.isValidID(itemID) else { throw noItem }
        return try await store.update(collection: NotebookStore.items, id: itemID, owner: notebook.owner,
                                      gaveUp: BusError(.conflict, "This item kept changing while it was being saved; try again.")) {
            found throws(BusError) in
            guard let record = found, let current = try? record.decode(ItemData.self), current.notebook == id else { throw noItem }
            if text != nil, current.kind == "image" { throw BusError.invalid("An image item has no text to change.", field: "text") }
            let checkedText = try text.map { text throws(BusError) in try NotebookRules.checkText(text, kind: current.kind) }
            guard let edit = try await store.mergedEdit(record, basedOn: expectedVersion, as: ItemData.self, { item in
                if let newFrame { item.frame = newFrame }
                if let checkedText { item.text = checkedText }
            }) else {
                throw BusError(.preconditionFailed, "This item was changed elsewhere since version \(expectedVersion ?? 0), which is no longer "
                               + "kept (it is at version \(record.version)); reload it and apply your change again.", details: ["id": itemID, "version": String(record.version)])
            }
            return try await .write(retryingOn: [.preconditionFailed]) { () async throws(BusError) in
                let (saved, replayed) = try await store.replaceOnce(edit.payload, in: NotebookStore.items, id: itemID, owner: notebook.owner,
                                                                    expectedVersion: record.version, idempotency: claim)
                if replayed {
                    let now = try saved.decode(ItemData.self)
                    return FrameResult(item: ItemJSON(saved, now), clamped: false, version: saved.version, replaced: nil)
                }
                let moved = newFrame != nil && edit.payload.frame != current.frame
                if moved || (checkedText != nil && edit.payload.text != current.text) {
                    // Undo now takes back this change (the last thing done: a new text, a move or a
                    // resize), not an earlier insert: a picture moved by mistake goes back, it is not removed.
                    let undone = NotebookData.LastEdit(item: itemID, text: current.text, frame: moved ? current.frame : nil, version: saved.version)
                    try await update(owner: notebook.owner, id: id) { data in
                        data.lastInsert = nil
                        data.lastEdit = undone
                    }
                }
                return FrameResult(item: ItemJSON(saved, edit.payload), clamped: clamped, version: saved.version,
                                   replaced: edit.replaced.isEmpty ? nil : edit.replaced)
            }
        }
    }

    // MARK: Undo

    /// FR3.2.12: undoes the last thing done, once: a change of an item's text, a move or a resize goes
    /// back to what it was; else the notebook's last insert is removed. Nothing to undo after an undo or a delete.
    /// `mine`: the item the asking device added or changed last ("" when none); when given, undo acts only while
    /// that is still the notebook's last thing done, so one phone's Undo never takes back what the
    /// other phone did since (a newcomer's walk lost the other phone's text so).
    func undo(caller: String, id: String, mine: String? = nil) async throws(BusError) -> UndoResult {
        let (notebook, data, _) = try await access(caller: caller, id: id, writing: true)
        let owner = notebook.owner
        if let mine, let last = data.lastEdit?.item ?? data.lastInsert, last != mine {
            throw BusError(.conflict, "Nothing of this device's to undo: the last change to this notebook was made on another device since. "
                           + "Undo it there, or change it here.", details: ["reason": "changed_elsewhere"])
        }
        if let edit = data.lastEdit {
            return try await undoEdit(edit, notebook: id, owner: owner, pages: data.pages)
        }
        guard let last = data.lastInsert, let record = try await store.get(collection: NotebookStore.items, id: last, owner: owner) else {
            throw BusError(.conflict, "Nothing to undo: only the last insert or change of text can be undone, and deletes cannot.",
                           details: ["reason": "nothing_to_undo"])
        }
        let item = try record.decode(ItemData.self)
        _ = try await update(owner: owner, id: id, extra: { data throws(BusError) in
            guard data.lastInsert == last else { throw BusError(.conflict, "Something else was inserted meanwhile; undo again to remove that.") }
            return [.delete(collection: NotebookStore.items, id: last, owner: owner, expectedVersion: record.version)]
        }) { data in
            data.lastInsert = nil
            data.lastEdit = nil
            data.itemCount -= 1
        }
        return UndoResult(removed: ItemJSON(record, item), restored: nil, page: data.pages.firstIndex(of: item.page).map { $0 + 1 })
    }

    /// Puts back the text (and the frame, after a move or resize) an item had before its last change,
    /// if nobody changed it again since.
    private func undoEdit(_ edit: NotebookData.LastEdit, notebook id: String, owner: String, pages: [String]) async throws(BusError) -> UndoResult {
        guard let record = try await store.get(collection: NotebookStore.items, id: edit.item, owner: owner),
              var item = try? record.decode(ItemData.self), item.notebook == id else {
            try await update(owner: owner, id: id) { data in if data.lastEdit == edit { data.lastEdit = nil } }
            throw BusError(.conflict, "Nothing to undo: the item that was changed has been removed, maybe on another device.",
                           details: ["reason": "nothing_to_undo"])
        }
        guard record.version == edit.version else {
            try await update(owner: owner, id: id) { data in if data.lastEdit == edit { data.lastEdit = nil } }
            throw BusError(.conflict, "Nothing to undo: this item was changed again since, maybe on another device.",
                           details: ["reason": "nothing_to_undo"])
        }
        item.text = edit.text
        if let frame = edit.frame { item.frame = frame }
        let saved = try await store.replace(item, in: NotebookStore.items, id: edit.item, owner: owner, expectedVersion: record.version)
        try await update(owner: owner, id: id) { data in if data.lastEdit == edit { data.lastEdit = nil } }
        return UndoResult(removed: nil, restored: ItemJSON(saved, item), page: pages.firstIndex(of: item.page).map { $0 + 1 })
    }

    /// Deleting one item is not undoable either, and ends what undo could do.
    func deleteItem(caller: String, id: String, itemID: String) async throws(BusError) {
        let (notebook, _, _) = try await access(caller: caller, id: id, writing: true)
        let owner = notebook.owner
        guard StorageNames.isValidID(itemID), let record = try await store.get(collection: NotebookStore.items, id: itemID, owner: owner),
              (try? record.decode(ItemData.self))?.notebook == id else {
            throw BusError(.notFound, "This item is no longer in the notebook: it was removed, maybe on another device.", details: ["id": itemID])
        }
        try await update(owner: owner, id: id, extra: { _ in [.delete(collection: NotebookStore.items, id: itemID, owner: owner, expectedVersion: nil)] }) { data in
            data.lastInsert = nil
            data.lastEdit = nil
            data.itemCount -= 1
        }
    }
}
