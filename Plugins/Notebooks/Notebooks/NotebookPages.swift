import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// Pages: added blank or from a template, read one at a time with their neighbours, recoloured.
struct NotebookPages: NotebookConcern {
    let core: NotebookStore

    /// FR3.2.4/FR3.2.15: a page, blank or from a template, at the end or after page `after`.
    func addPage(caller: String, id: String, template: String?, background: String?, after: Int?) async throws(BusError) -> PageView {
        let (notebook, _, access) = try await access(caller: caller, id: id, writing: true)
        let template = template ?? "blank"
        guard layout.template(template) != nil else {
            throw BusError.invalid("'template' is one of \(NotebookLayout.templateIDs.joined(separator: ", ")).", field: "template")
        }
        let background = try NotebookRules.checkBackground(background ?? "white")
        let pageID = core.newID("pg")
        let page = PageData(notebook: id, template: template, background: background)
        let pageDocument = try JSONDocument(encoding: page)
        let owner = notebook.owner
        let maxPages = limits.maxPages
        let updated = try await update(owner: owner, id: id, extra: { _ in
            [.insert(collection: NotebookStore.pages, id: pageID, owner: owner, data: pageDocument)]
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

    func setBackground(caller: String, id: String, number: Int, background: String) async throws(BusError) -> PageView {
        let (notebook, data, _) = try await access(caller: caller, id: id, writing: true)
        let background = try NotebookRules.checkBackground(background)
        let (record, page) = try await pageAt(notebook, data, number: number)
        var changed = page
        changed.background = background
        _ = try await store.replace(changed, in: NotebookStore.pages, id: record.id, owner: notebook.owner, expectedVersion: record.version)
        return try await self.page(caller: caller, id: id, number: number)
    }
}
