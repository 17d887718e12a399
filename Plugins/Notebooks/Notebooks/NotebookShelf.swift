import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// A user's notebooks: create, list, open (the last one, or a new default one), read whole, rename.
struct NotebookShelf: NotebookConcern {
    let core: NotebookStore

    func create(owner: String, name: String?, cover: String?, coverText: String?) async throws(BusError) -> (Record, NotebookData) {
        let name = try NotebookRules.checkName(name ?? "My notebook")
        let cover = try NotebookRules.checkCover(cover ?? "colors")
        let data = NotebookData(name: name, cover: cover, coverText: try coverText.map(NotebookRules.checkCoverText), openedAt: nil, pages: [],
                                itemCount: 0, nextSeq: 1, lastInsert: nil, pin: nil, deleting: nil)
        let record = try await store.insert(data, into: NotebookStore.notebooks, id: core.newID("nb"), owner: owner)
        return (record, data)
    }

    /// The caller's notebooks, most recently opened first.
    func list(owner: String) async throws(BusError) -> [NotebookJSON] {
        var result: [NotebookJSON] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: NotebookStore.notebooks, owner: owner, order: [SortKey("openedAt", descending: true)],
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
        } else if let last = try await store.query(RecordQuery(collection: NotebookStore.notebooks, owner: caller, order: [SortKey("openedAt", descending: true)],
                                                                limit: 20)).records.first(where: { (try? $0.decode(NotebookData.self).deleting) != true }) {
            target = (last, try last.decode(NotebookData.self), .owner)
        } else {
            let (record, data) = try await create(owner: caller, name: nil, cover: nil, coverText: nil)
            target = (record, data, .owner)
        }
        if target.2 == .owner {
            let opened = try await update(owner: caller, id: target.0.id) { data throws(BusError) in data.openedAt = core.nowMillis() }
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
            let page = try await store.query(RecordQuery(collection: NotebookStore.items, owner: record.owner, filters: [Filter("notebook", .eq, .string(record.id))],
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

    func rename(caller: String, id: String, name: String?, cover: String?, coverText: String??, coverItem: String?? = nil) async throws(BusError) -> NotebookJSON {
        _ = try await access(caller: caller, id: id, owning: true)
        let name = try name.map(NotebookRules.checkName)
        let cover = try cover.map(NotebookRules.checkCover)
        let text = try coverText.map { value throws(BusError) in try value.map(NotebookRules.checkCoverText) }
        if case .some(.some(let item)) = coverItem {
            // FR3.2.3's image cover: a picture already in this notebook (checked by media when it was inserted).
            guard StorageNames.isValidID(item), let record = try await store.get(collection: NotebookStore.items, id: item, owner: caller),
                  let found = try? record.decode(ItemData.self), found.notebook == id, found.kind == "image" else {
                throw BusError.invalid("The cover's picture must be a picture on one of this notebook's pages; add it to a page first.", field: "coverItem")
            }
        }
        let updated = try await update(owner: caller, id: id) { data throws(BusError) in
            if let name { data.name = name }
            if let cover { data.cover = cover }
            if let text { data.coverText = text }
            if let coverItem { data.coverItem = coverItem }
        }
        return NotebookJSON(updated.record, updated.data, access: .owner)
    }
}
