import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI

/// How the caller may use a notebook.
enum NotebookAccess: String, Sendable {
    case owner
    /// Shared with them through a link they accepted (FR3.2.16): read only.
    case read
    /// Pinned near where they are, by an owner who allows edits (FR3.2.17).
    case edit

    var canWrite: Bool { self != .read }
}

/// AR Notebook's domain: notebooks, their pages and the items inserted on them, undo, confirmed
/// deletes, read-only sharing and GPS pins. Every change is stored when it is made (FR3.2.9).
struct NotebookService: Sendable {
    static let notebooks = "notebooks.notebooks"
    static let pages = "notebooks.pages"
    static let items = "notebooks.items"
    static let grants = "notebooks.grants"
    static let presence = "notebooks.presence"
    static let geoKind = "notebooks.notebook"

    static let schemas = [
        // Scoped by notebook: a recipient's change feed takes in exactly the notebooks shared with them.
        CollectionSchema(name: notebooks, indexes: [IndexSpec(name: "opened", fields: ["openedAt"])], scope: "@id"),
        CollectionSchema(name: pages, indexes: [IndexSpec(name: "notebook", fields: ["notebook"])], scope: "notebook"),
        CollectionSchema(name: items, indexes: [IndexSpec(name: "notebook_seq", fields: ["notebook", "seq"]),
                                                IndexSpec(name: "page_seq", fields: ["page", "seq"])],
                         blobFields: ["image"], history: true, scope: "notebook"),
        CollectionSchema(name: grants, indexes: [IndexSpec(name: "notebook", fields: ["notebook"])]),
        CollectionSchema(name: presence),
    ]

    static let maxNameLength = 100
    static let maxTextLength = 2000
    /// UC-5: clipboard text is at most 140 characters.
    static let maxClipboardLength = 140

    struct Limits: Sendable {
        var maxPages: Int
        var maxItemsPerPage: Int
        var nearbyRadius: Double
        var presenceTTL: Int64
    }

    let store: BusRecordStore
    let bus: any MessageBus
    let layout: NotebookLayout
    let limits: Limits

    // MARK: Notebooks

    func create(owner: String, name: String?, cover: String?, coverText: String?) async throws(BusError) -> (Record, NotebookData) {
        let name = try Self.checkName(name ?? "My notebook")
        let cover = try Self.checkCover(cover ?? "colors")
        let data = NotebookData(name: name, cover: cover, coverText: try coverText.map(Self.checkCoverText), openedAt: nil, pages: [],
                                itemCount: 0, nextSeq: 1, lastInsert: nil, pin: nil, deleting: nil)
        let record = try await store.insert(data, into: Self.notebooks, id: Self.newID("nb"), owner: owner)
        return (record, data)
    }

    /// The caller's notebooks, most recently opened first.
    func list(owner: String) async throws(BusError) -> [NotebookJSON] {
        var result: [NotebookJSON] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.notebooks, owner: owner, order: [SortKey("openedAt", descending: true)],
                                                         limit: 1000, cursor: cursor))
            for record in page.records {
                let data = try record.decode(NotebookData.self)
                if data.deleting != true { result.append(NotebookJSON(record, data, access: .owner)) }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return result
    }

    /// UC-3: the notebook asked for; with none, the last one opened; with none ever opened, a new
    /// default notebook. Records the open for the owner.
    func open(caller: String, id: String?) async throws(BusError) -> NotebookContent {
        var target: (Record, NotebookData, NotebookAccess)
        if let id {
            target = try await access(caller: caller, id: id)
        } else if let last = try await store.query(RecordQuery(collection: Self.notebooks, owner: caller, order: [SortKey("openedAt", descending: true)],
                                                                limit: 20)).records.first(where: { (try? $0.decode(NotebookData.self).deleting) != true }) {
            target = (last, try last.decode(NotebookData.self), .owner)
        } else {
            let (record, data) = try await create(owner: caller, name: nil, cover: nil, coverText: nil)
            target = (record, data, .owner)
        }
        if target.2 == .owner {
            let opened = try await update(owner: caller, id: target.0.id) { data throws(BusError) in data.openedAt = Clock.nowMillis() }
            target = (opened.record, opened.data, .owner)
        }
        return try await content(target.0, target.1, access: target.2)
    }

    /// Every page with its items, in order; items in the order they were inserted.
    func content(_ record: Record, _ data: NotebookData, access: NotebookAccess) async throws(BusError) -> NotebookContent {
        let pages = try await pageRecords(record, data)
        var itemsByPage: [String: [ItemJSON]] = [:]
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.items, owner: record.owner, filters: [Filter("notebook", .eq, .string(record.id))],
                                                         order: [SortKey("seq")], limit: 1000, cursor: cursor))
            for item in page.records {
                let decoded = try item.decode(ItemData.self)
                itemsByPage[decoded.page, default: []].append(ItemJSON(item, decoded))
            }
            cursor = page.nextCursor
        } while cursor != nil
        var result: [PageJSON] = []
        for (index, (pageRecord, page)) in pages.enumerated() {
            result.append(pageJSON(pageRecord, page, number: index + 1, items: itemsByPage[pageRecord.id] ?? []))
        }
        return NotebookContent(notebook: NotebookJSON(record, data, access: access), pages: result)
    }

    func rename(caller: String, id: String, name: String?, cover: String?, coverText: String??) async throws(BusError) -> NotebookJSON {
        _ = try await access(caller: caller, id: id, owning: true)
        let name = try name.map(Self.checkName)
        let cover = try cover.map(Self.checkCover)
        let text = try coverText.map { value throws(BusError) in try value.map(Self.checkCoverText) }
        let updated = try await update(owner: caller, id: id) { data throws(BusError) in
            if let name { data.name = name }
            if let cover { data.cover = cover }
            if let text { data.coverText = text }
        }
        return NotebookJSON(updated.record, updated.data, access: .owner)
    }

    /// What the caller may do with a notebook. Another owner's notebook they have no share or pin
    /// for is "not found", never "forbidden": its existence is not revealed (NFR3.3.1).
    func access(caller: String, id: String, owning: Bool = false, writing: Bool = false) async throws(BusError) -> (Record, NotebookData, NotebookAccess) {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: Self.notebooks, id: id, owner: nil) else {
            throw Self.noNotebook(id)
        }
        let data = try record.decode(NotebookData.self)
        guard data.deleting != true else { throw Self.noNotebook(id) }
        if record.owner == caller { return (record, data, .owner) }
        var granted: NotebookAccess?
        if let pin = data.pin, let here = try await presence(of: caller),
           Clock.nowMillis() - here.at <= limits.presenceTTL * 1000,
           SpatialRules.distance(GeoPoint(latitude: here.latitude, longitude: here.longitude), GeoPoint(latitude: pin.latitude, longitude: pin.longitude)) <= limits.nearbyRadius {
            granted = pin.allowEdits ? .edit : .read
        }
        if granted != .edit, try await hasLiveGrant(caller: caller, notebook: record) { granted = granted ?? .read }
        guard let granted else { throw Self.noNotebook(id) }
        if owning {
            throw BusError(.forbidden, "Only the notebook's owner can do that; it is \(granted == .read ? "shared with you read-only" : "pinned for you to edit").")
        }
        if writing, !granted.canWrite {
            throw BusError(.forbidden, "This notebook was shared with you read-only; ask its owner for a copy to change it.")
        }
        return (record, data, granted)
    }

    static func noNotebook(_ id: String) -> BusError {
        BusError(.notFound, "No notebook '\(id)'; list yours with GET /api/v1/notebooks/notebooks.", details: ["id": id])
    }

    struct Updated: Sendable {
        var record: Record
        var data: NotebookData
        /// What the batch wrote, in order (the extra operations first); on a replay, what the first run wrote.
        var written: [Record?]
    }

    /// Applies a change to the notebook record together with `extra` operations in one batch,
    /// retrying when the notebook changed in between.
    @discardableResult
    func update(owner: String, id: String, idempotency: IdempotencyClaim? = nil,
                extra: @Sendable (NotebookData) throws(BusError) -> [WriteOperation] = { _ in [] },
                _ change: @Sendable (inout NotebookData) throws(BusError) -> Void) async throws(BusError) -> Updated {
        for _ in 0..<8 {
            guard let record = try await store.get(collection: Self.notebooks, id: id, owner: owner) else { throw Self.noNotebook(id) }
            var data = try record.decode(NotebookData.self)
            guard data.deleting != true else { throw Self.noNotebook(id) }
            let before = data
            try change(&data)
            let operations = try extra(before) + [.replace(collection: Self.notebooks, id: id, owner: owner, data: try JSONDocument(encoding: data),
                                                           expectedVersion: record.version)]
            do throws(BusError) {
                let result = try await store.write(WriteBatch(operations, idempotency: idempotency))
                guard let saved = result.records.last ?? nil else { throw BusError(.internal, "The notebook was not stored.") }
                return Updated(record: saved, data: try saved.decode(NotebookData.self), written: result.records)
            } catch where error.code == .preconditionFailed || (error.code == .conflict && error.details["reason"] != "idempotency_key_reused") {
                continue  // another write got there first: read again
            }
        }
        throw BusError(.conflict, "The notebook kept changing while this was saved; try again.")
    }

    // MARK: Pages

    /// Every page of a notebook, in its order (a notebook holds at most 1,000 pages: one query).
    func pageRecords(_ notebook: Record, _ data: NotebookData) async throws(BusError) -> [(Record, PageData)] {
        guard !data.pages.isEmpty else { return [] }
        let found = try await store.query(RecordQuery(collection: Self.pages, owner: notebook.owner,
                                                      filters: [Filter("notebook", .eq, .string(notebook.id))], limit: RecordQuery.maxLimit))
        var byID: [String: (Record, PageData)] = [:]
        for record in found.records { byID[record.id] = (record, try record.decode(PageData.self)) }
        return data.pages.compactMap { byID[$0] }
    }

    func pageJSON(_ record: Record, _ page: PageData, number: Int, items: [ItemJSON]) -> PageJSON {
        PageJSON(id: record.id, number: number, template: page.template, slots: layout.template(page.template)?.slots ?? [],
                 background: page.background, items: items)
    }

    /// FR3.2.4/FR3.2.15: a page, blank or from a template, at the end or after page `after`.
    func addPage(caller: String, id: String, template: String?, background: String?, after: Int?) async throws(BusError) -> PageView {
        let (notebook, _, access) = try await access(caller: caller, id: id, writing: true)
        let template = template ?? "blank"
        guard layout.template(template) != nil else {
            throw BusError.invalid("'template' is one of \(NotebookLayout.templateIDs.joined(separator: ", ")).", field: "template")
        }
        let background = try Self.checkBackground(background ?? "white")
        let pageID = Self.newID("pg")
        let page = PageData(notebook: id, template: template, background: background)
        let pageDocument = try JSONDocument(encoding: page)
        let owner = notebook.owner
        let maxPages = limits.maxPages
        let updated = try await update(owner: owner, id: id, extra: { _ in
            [.insert(collection: Self.pages, id: pageID, owner: owner, data: pageDocument)]
        }) { data throws(BusError) in
            guard data.pages.count < maxPages else {
                throw BusError(.tooLarge, "A notebook holds at most \(maxPages) pages; start another notebook.", details: ["field": "pages"])
            }
            let position = after ?? data.pages.count
            guard (0...data.pages.count).contains(position) else {
                throw BusError.invalid("'after' is a page number from 0 (the cover) to \(data.pages.count).", field: "after")
            }
            data.pages.insert(pageID, at: position)
        }
        guard let stored = updated.written.first ?? nil, let index = updated.data.pages.firstIndex(of: pageID) else {
            throw BusError(.internal, "The page was not stored.")
        }
        return PageView(notebook: NotebookJSON(updated.record, updated.data, access: access), number: index + 1, previous: index,
                        next: index + 1 < updated.data.pages.count ? index + 2 : nil,
                        page: pageJSON(stored, page, number: index + 1, items: []))
    }

    /// FR3.2.8: page `number` (0 is the cover) with its neighbours' numbers.
    func page(caller: String, id: String, number: Int) async throws(BusError) -> PageView {
        let (notebook, data, access) = try await access(caller: caller, id: id)
        guard (0...data.pages.count).contains(number) else {
            throw BusError(.notFound, "This notebook has pages 0 (the cover) to \(data.pages.count); there is no page \(number).",
                           details: ["field": "number"])
        }
        var page: PageJSON?
        if number > 0 {
            let (record, pageData) = try await pageAt(notebook, data, number: number)
            page = pageJSON(record, pageData, number: number, items: try await items(onPage: record.id, owner: notebook.owner).map { ItemJSON($0.0, $0.1) })
        }
        return PageView(notebook: NotebookJSON(notebook, data, access: access), number: number, previous: number > 0 ? number - 1 : nil,
                        next: number < data.pages.count ? number + 1 : nil, page: page)
    }

    func items(onPage page: String, owner: String) async throws(BusError) -> [(Record, ItemData)] {
        let found = try await store.query(RecordQuery(collection: Self.items, owner: owner, filters: [Filter("page", .eq, .string(page))],
                                                      order: [SortKey("seq")], limit: 1000))
        return try found.records.map { record throws(BusError) in (record, try record.decode(ItemData.self)) }
    }

    func setBackground(caller: String, id: String, number: Int, background: String) async throws(BusError) -> PageView {
        let (notebook, data, _) = try await access(caller: caller, id: id, writing: true)
        let background = try Self.checkBackground(background)
        let (record, page) = try await pageAt(notebook, data, number: number)
        var changed = page
        changed.background = background
        _ = try await store.replace(changed, in: Self.pages, id: record.id, owner: notebook.owner, expectedVersion: record.version)
        return try await self.page(caller: caller, id: id, number: number)
    }

    func pageAt(_ notebook: Record, _ data: NotebookData, number: Int) async throws(BusError) -> (Record, PageData) {
        guard number >= 1, number <= data.pages.count else {
            throw BusError(.notFound, number == 0 ? "Page 0 is the cover; it has no items and cannot be deleted."
                           : "This notebook has pages 1 to \(data.pages.count); there is no page \(number).", details: ["field": "number"])
        }
        guard let record = try await store.get(collection: Self.pages, id: data.pages[number - 1], owner: notebook.owner) else {
            throw BusError(.conflict, "Page \(number) was deleted meanwhile; reload the notebook.")
        }
        return (record, try record.decode(PageData.self))
    }

    // MARK: Inserting

    enum Insert: Sendable {
        case text(String, kind: String)
        case image(Data)
    }

    /// FR3.2.5–7: an item on page `number`, in the chosen slot when the page's template has a free
    /// one, else centred; stored at once, and remembered as the notebook's undoable insert.
    func insert(caller: String, id: String, number: Int, slot: Int?, idempotencyKey: String? = nil, _ insert: Insert) async throws(BusError) -> InsertResult {
        let (notebook, data, _) = try await access(caller: caller, id: id, writing: true)
        let owner = notebook.owner
        // Checked before anything is decoded or stored.
        var item = ItemData(notebook: id, page: "", seq: 0, kind: "text", text: nil, image: nil, imageWidth: nil, imageHeight: nil, slot: nil,
                            frame: Frame(x: 0, y: 0, width: 0, height: 0))
        if case .text(let text, let kind) = insert { (item.kind, item.text) = (kind, try Self.checkText(text, kind: kind)) }
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
        if case .image(let bytes) = insert {
            let image = try await bus.request(IngestImage(owner: owner, bytes: bytes))
            let oriented = image.info.orientation >= 5 ? (image.info.height, image.info.width) : (image.info.width, image.info.height)
            (item.kind, item.image, item.imageWidth, item.imageHeight) = ("image", image.sha256, oriented.0, oriented.1)
            aspect = Double(oriented.0) / Double(max(oriented.1, 1))
        }
        item.frame = layout.place(in: item.slot.map { slots[$0] }, aspect: aspect)
        let itemID = Self.newID("it")
        let prepared = item
        let claim = idempotencyKey.map {
            IdempotencyClaim(owner: caller, scope: "notebooks.insert", key: $0,
                             fingerprint: Secrets.sha256Hex("\(id)|\(number)|\(slot.map(String.init) ?? "-")|\(item.kind)|\(item.text ?? item.image ?? "")"))
        }
        let updated = try await update(owner: owner, id: id, idempotency: claim, extra: { data throws(BusError) in
            var item = prepared
            item.seq = data.nextSeq
            return [.insert(collection: Self.items, id: itemID, owner: owner, data: try JSONDocument(encoding: item))]
        }) { data in
            data.nextSeq += 1
            data.itemCount += 1
            data.lastInsert = itemID
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
    func updateItem(caller: String, id: String, itemID: String, frame: Frame?, text: String?,
                    expectedVersion: Int64? = nil) async throws(BusError) -> FrameResult {
        let (notebook, _, _) = try await access(caller: caller, id: id, writing: true)
        var clamped = false
        let newFrame = try frame.map { frame throws(BusError) -> Frame in
            let result = try layout.clamp(frame)
            clamped = result.clamped
            return result.frame
        }
        for _ in 0..<8 {
            guard StorageNames.isValidID(itemID), let record = try await store.get(collection: Self.items, id: itemID, owner: notebook.owner),
                  let current = try? record.decode(ItemData.self), current.notebook == id else {
                throw BusError(.notFound, "No item '\(itemID)' in this notebook.", details: ["id": itemID])
            }
            if text != nil, current.kind == "image" { throw BusError.invalid("An image item has no text to change.", field: "text") }
            let checkedText = try text.map { text throws(BusError) in try Self.checkText(text, kind: current.kind) }
            guard let edit = try await store.mergedEdit(record, basedOn: expectedVersion, as: ItemData.self, { item in
                if let newFrame { item.frame = newFrame }
                if let checkedText { item.text = checkedText }
            }) else {
                throw BusError(.preconditionFailed, "Item '\(itemID)' is at version \(record.version) and its version \(expectedVersion ?? 0) is no longer "
                               + "kept; reload it and apply your change again.", details: ["id": itemID, "version": String(record.version)])
            }
            do {
                let saved = try await store.replace(edit.payload, in: Self.items, id: itemID, owner: notebook.owner, expectedVersion: record.version)
                return FrameResult(item: ItemJSON(saved, edit.payload), clamped: clamped, version: saved.version,
                                   replaced: edit.replaced.isEmpty ? nil : edit.replaced)
            } catch where error.code == .preconditionFailed {
                continue
            }
        }
        throw BusError(.conflict, "Item '\(itemID)' kept changing while it was being saved; try again.")
    }

    // MARK: Undo and deletes

    /// FR3.2.12: removes the notebook's last insert, once. Nothing to undo after an undo or a delete.
    func undo(caller: String, id: String) async throws(BusError) -> UndoResult {
        let (notebook, data, _) = try await access(caller: caller, id: id, writing: true)
        let owner = notebook.owner
        guard let last = data.lastInsert, let record = try await store.get(collection: Self.items, id: last, owner: owner) else {
            throw BusError(.conflict, "Nothing to undo: only the last insert can be undone, and deletes cannot.", details: ["reason": "nothing_to_undo"])
        }
        let item = try record.decode(ItemData.self)
        _ = try await update(owner: owner, id: id, extra: { data throws(BusError) in
            guard data.lastInsert == last else { throw BusError(.conflict, "Something else was inserted meanwhile; undo again to remove that.") }
            return [.delete(collection: Self.items, id: last, owner: owner, expectedVersion: record.version)]
        }) { data in
            data.lastInsert = nil
            data.itemCount -= 1
        }
        return UndoResult(removed: ItemJSON(record, item), page: data.pages.firstIndex(of: item.page).map { $0 + 1 })
    }

    /// Deleting one item is not undoable either, and ends what undo could do.
    func deleteItem(caller: String, id: String, itemID: String) async throws(BusError) {
        let (notebook, _, _) = try await access(caller: caller, id: id, writing: true)
        let owner = notebook.owner
        guard StorageNames.isValidID(itemID), let record = try await store.get(collection: Self.items, id: itemID, owner: owner),
              (try? record.decode(ItemData.self))?.notebook == id else {
            throw BusError(.notFound, "No item '\(itemID)' in this notebook.", details: ["id": itemID])
        }
        try await update(owner: owner, id: id, extra: { _ in [.delete(collection: Self.items, id: itemID, owner: owner, expectedVersion: nil)] }) { data in
            data.lastInsert = nil
            data.itemCount -= 1
        }
    }

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
        let (notebook, data, _) = try await access(caller: caller, id: id, writing: true)
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
            for chunk in Self.chunks(onPage.map(\.0.id), size: WriteBatch.maxOperations) {
                _ = try await store.write(WriteBatch(chunk.map { .delete(collection: Self.items, id: $0, owner: owner, expectedVersion: nil) }))
            }
        }
        try await update(owner: owner, id: id, extra: { _ in
            (together ? onPage.map { .delete(collection: Self.items, id: $0.0.id, owner: owner, expectedVersion: nil) } : [])
                + [.delete(collection: Self.pages, id: pageRecord.id, owner: owner, expectedVersion: pageRecord.version)]
        }) { data in
            data.pages.removeAll { $0 == pageRecord.id }
            data.itemCount -= onPage.count
            data.lastInsert = nil
        }
    }

    /// FR3.2.11: deletes a notebook with its pages, items, pin and share links, after an explicit
    /// confirmation. Images go with the last item holding them (storage releases unheld blobs).
    func deleteNotebook(caller: String, id: String, confirm: String?) async throws {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: Self.notebooks, id: id, owner: caller) else {
            _ = try await access(caller: caller, id: id, owning: true)
            throw Self.noNotebook(id)
        }
        let data = try record.decode(NotebookData.self)
        if data.deleting != true {
            let token = Self.confirmation("notebook", record)
            guard confirm == token else {
                throw ConfirmationNeeded(token: token, summary: "Delete '\(data.name)' with its \(data.pageCount) pages and \(data.itemCount) items? "
                                         + "This cannot be undone. Repeat the request with ?confirm=\(token).", pages: data.pageCount, items: data.itemCount)
            }
            var marked = data
            marked.deleting = true
            _ = try await store.replace(marked, in: Self.notebooks, id: id, owner: caller, expectedVersion: record.version)
        }
        // From here on the notebook is gone for everyone; the rest is cleanup that resumes if interrupted.
        _ = try await bus.request(RemoveGeotag(owner: caller, subject: "\(Self.geoKind)/\(id)"))
        for link in try await bus.request(ListShareLinks(owner: caller)).links
        where link.kind == SharedNotebook.id && link.resource["notebook"] == id && link.revokedAt == nil {
            _ = try await bus.request(RevokeShareLink(owner: caller, id: link.id))
        }
        for collection in [Self.items, Self.pages] {
            while true {
                let found = try await store.query(RecordQuery(collection: collection, owner: caller, filters: [Filter("notebook", .eq, .string(id))],
                                                              limit: WriteBatch.maxOperations))
                if found.records.isEmpty { break }
                _ = try await store.write(WriteBatch(found.records.map { .delete(collection: collection, id: $0.id, owner: caller, expectedVersion: nil) }))
            }
        }
        try await store.delete(from: Self.notebooks, id: id, owner: caller)
        await bus.publish(NotebookDeleted(owner: caller, notebookID: id))
    }

    static func chunks<T>(_ values: [T], size: Int) -> [ArraySlice<T>] {
        stride(from: 0, to: values.count, by: size).map { values[$0..<min($0 + size, values.count)] }
    }

    // MARK: Checks

    static func checkName(_ name: String) throws(BusError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxNameLength, !trimmed.contains(where: \.isNewline) else {
            throw BusError.invalid("A notebook's name is 1 to \(maxNameLength) characters on one line.", field: "name")
        }
        return trimmed
    }

    static func checkCover(_ cover: String) throws(BusError) -> String {
        guard NotebookLayout.covers.contains(where: { $0.id == cover }) else {
            throw BusError.invalid("'cover' is one of \(NotebookLayout.covers.map(\.id).joined(separator: ", ")).", field: "cover")
        }
        return cover
    }

    static func checkCoverText(_ text: String) throws(BusError) -> String {
        guard text.count <= 60, !text.contains(where: \.isNewline) else {
            throw BusError.invalid("The cover's text is at most 60 characters on one line.", field: "coverText")
        }
        return text
    }

    static func checkBackground(_ background: String) throws(BusError) -> String {
        guard NotebookLayout.palette.contains(where: { $0.id == background }) else {
            throw BusError.invalid("'background' is one of the palette's colours: \(NotebookLayout.palette.map(\.id).joined(separator: ", ")).",
                                   field: "background")
        }
        return background
    }

    static func checkText(_ text: String, kind: String) throws(BusError) -> String {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw BusError.invalid(kind == "clipboard" ? "The clipboard is empty; copy some text first." : "Type some text first.", field: "text")
        }
        if kind == "clipboard", text.count > maxClipboardLength {
            throw BusError.invalid("Clipboard text is at most \(maxClipboardLength) characters; this is \(text.count). "
                                   + "Copy a shorter passage or type it as keyboard text.", field: "text")
        }
        guard text.count <= maxTextLength else {
            throw BusError.invalid("Text is at most \(maxTextLength) characters; this is \(text.count).", field: "text")
        }
        return text
    }

    static func newID(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = String(generator.next() as UInt64, radix: 16)
        return prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
