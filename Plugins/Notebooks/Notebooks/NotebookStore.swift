import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import PluginKit
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// What every notebook concern shares: the storage client, the bus, the layout and limits, the
/// collections, and the one way to change a notebook record (in one batch with what goes with the
/// change, retried when the notebook changed in between). Every change is stored when it is made
/// (FR3.2.9).
struct NotebookStore: Sendable {
    static let notebooks = SyncedNotebook.collection
    static let pages = SyncedNotebookPage.collection
    static let items = SyncedNotebookItem.collection
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

    struct Limits: Sendable {
        var maxPages: Int
        var maxItemsPerPage: Int
        var nearbyRadius: Double
        var presenceTTL: Int64
    }

    let store: BusRecordStore
    let bus: any MessageBus
    /// The time and the ids' randomness, from the plugin's context.
    let clock: PluginClock
    let ids: IDSource
    let layout: NotebookLayout
    let limits: Limits

    static func noNotebook(_ id: String) -> BusError {
        BusError(.notFound, "This notebook is not here: it was deleted, maybe on another device, or it is not shared with you. "
                 + "Your notebooks are listed at GET /api/v1/notebooks/notebooks.", details: ["id": id])
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
        try await store.update(collection: NotebookStore.notebooks, id: id, owner: owner,
                               gaveUp: BusError(.conflict, "The notebook kept changing while this was saved; try again.")) { found throws(BusError) in
            guard let record = found else { throw NotebookStore.noNotebook(id) }
            var data = try record.decode(NotebookData.self)
            guard data.deleting != true else { throw NotebookStore.noNotebook(id) }
            let before = data
            try change(&data)
            let operations = try extra(before) + [.replace(collection: NotebookStore.notebooks, id: id, owner: owner, data: try JSONDocument(encoding: data),
                                                           expectedVersion: record.version)]
            // Another write got there first: read again (a lost race, as `RetryPolicy.lostRace` says).
            let result = try await UpdateStep<WriteResult>.write { () async throws(BusError) in
                try await store.write(WriteBatch(operations, idempotency: idempotency))
            }
            guard case .done(let written) = result else { return .readAgain }
            guard let saved = written.records.last ?? nil else { throw BusError(.internal, "The notebook was not stored.") }
            return .done(Updated(record: saved, data: try saved.decode(NotebookData.self), written: written.records))
        }
    }

    // MARK: Pages, as every concern reads them

    /// Every page of a notebook, in its order (a notebook holds at most 1,000 pages: one query).
    func pageRecords(_ notebook: Record, _ data: NotebookData) async throws(BusError) -> [(Record, PageData)] {
        guard !data.pages.isEmpty else { return [] }
        let found = try await store.query(RecordQuery(collection: NotebookStore.pages, owner: notebook.owner,
                                                      filters: [Filter("notebook", .eq, .string(notebook.id))], limit: RecordQuery.maxLimit))
        var byID: [String: (Record, PageData)] = [:]
        for record in found.records { byID[record.id] = (record, try record.decode(PageData.self)) }
        return data.pages.compactMap { byID[$0] }
    }

    func pageJSON(_ record: Record, _ page: PageData, number: Int, items: [ItemJSON]) -> PageJSON {
        PageJSON(id: record.id, number: number, template: page.template, slots: layout.template(page.template)?.slots ?? [],
                 background: page.background, items: items)
    }

    func items(onPage page: String, owner: String) async throws(BusError) -> [(Record, ItemData)] {
        let found = try await store.query(RecordQuery(collection: NotebookStore.items, owner: owner, filters: [Filter("page", .eq, .string(page))],
                                                      order: [SortKey("seq")], limit: 1000))
        return try found.records.map { record throws(BusError) in (record, try record.decode(ItemData.self)) }
    }

    func pageAt(_ notebook: Record, _ data: NotebookData, number: Int) async throws(BusError) -> (Record, PageData) {
        guard number >= 1, number <= data.pages.count else {
            throw BusError(.notFound, number == 0 ? "Page 0 is the cover; it has no items and cannot be deleted."
                           : "This notebook has pages 1 to \(data.pages.count); there is no page \(number).", details: ["field": "number"])
        }
        guard let record = try await store.get(collection: NotebookStore.pages, id: data.pages[number - 1], owner: notebook.owner) else {
            throw BusError(.conflict, "Page \(number) was deleted meanwhile; reload the notebook.")
        }
        return (record, try record.decode(PageData.self))
    }

    static func chunks<T>(_ values: [T], size: Int) -> [ArraySlice<T>] {
        stride(from: 0, to: values.count, by: size).map { values[$0..<min($0 + size, values.count)] }
    }

    /// A new id: `prefix` and 64 random bits in hex.
    func newID(_ prefix: String) -> String { prefix + ids.hex() }

    /// Now, in whole milliseconds since 1970 (how notebooks store times).
    func nowMillis() -> Int64 { Int64((clock.seconds * 1000).rounded()) }
}

/// A notebook concern: works through the shared store, and asks the same access rules.
protocol NotebookConcern: Sendable {
    var core: NotebookStore { get }
}

extension NotebookConcern {
    var store: BusRecordStore { core.store }
    var bus: any MessageBus { core.bus }
    var layout: NotebookLayout { core.layout }
    var limits: NotebookStore.Limits { core.limits }

    func access(caller: String, id: String, owning: Bool = false, writing: Bool = false) async throws(BusError) -> (Record, NotebookData, NotebookAccess) {
        try await NotebookAccessControl(core: core).access(caller: caller, id: id, owning: owning, writing: writing)
    }

    @discardableResult
    func update(owner: String, id: String, idempotency: IdempotencyClaim? = nil,
                extra: @Sendable (NotebookData) throws(BusError) -> [WriteOperation] = { _ in [] },
                _ change: @Sendable (inout NotebookData) throws(BusError) -> Void) async throws(BusError) -> NotebookStore.Updated {
        try await core.update(owner: owner, id: id, idempotency: idempotency, extra: extra, change)
    }

    func pageRecords(_ notebook: Record, _ data: NotebookData) async throws(BusError) -> [(Record, PageData)] {
        try await core.pageRecords(notebook, data)
    }

    func pageJSON(_ record: Record, _ page: PageData, number: Int, items: [ItemJSON]) -> PageJSON {
        core.pageJSON(record, page, number: number, items: items)
    }

    func pageAt(_ notebook: Record, _ data: NotebookData, number: Int) async throws(BusError) -> (Record, PageData) {
        try await core.pageAt(notebook, data, number: number)
    }

    func items(onPage page: String, owner: String) async throws(BusError) -> [(Record, ItemData)] {
        try await core.items(onPage: page, owner: owner)
    }
}
