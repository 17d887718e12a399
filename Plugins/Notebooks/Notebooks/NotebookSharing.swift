import AuthAPI
import Bus
import Foundation
import GeoAPI
import MediaAPI
import NotebooksAPI
import Secrets
import ShareLinkAPI
import StorageAPI
import SyncAPI

/// Read-only sharing (FR3.2.16, UC-11/12): links through share-link, what recipients see, and how
/// sync's feed shows notebooks.
struct NotebookSharing: NotebookConcern {
    let core: NotebookStore

    // MARK: Sharing

    /// UC-11: a read-only link to one notebook, through share-link.
    func share(caller: String, id: String, title: String?, expiresAt: Date?, password: String?) async throws(BusError) -> CreateShareLink.Reply {
        let (_, data, _) = try await access(caller: caller, id: id, owning: true)
        return try await bus.request(CreateShareLink(owner: caller, kind: SharedNotebook.id, resource: ["notebook": id], title: title ?? data.name,
                                                     expiresAt: expiresAt, password: password))
    }

    /// UC-12: a signed-in recipient opens a link; from then on they see that notebook, read-only, for
    /// as long as the link lives — and nothing else of its owner's.
    func accept(caller: String, token: String, password: String?) async throws(BusError) -> SharedNotebookJSON {
        let link = try await bus.request(ResolveShareLink(token: token, password: password))
        guard link.kind == SharedNotebook.id, let id = link.resource["notebook"] else {
            throw BusError.invalid("This link shares something other than a notebook; open it in the app it came from.", field: "token")
        }
        guard let record = try await store.get(collection: NotebookStore.notebooks, id: id, owner: link.owner),
              let data = try? record.decode(NotebookData.self), data.deleting != true else {
            throw BusError(.gone, "The shared notebook has been deleted.")
        }
        if link.owner != caller {
            let held = try await store.query(RecordQuery(collection: NotebookStore.grants, owner: caller, filters: [Filter("notebook", .eq, .string(id))], limit: 50))
            if !held.records.contains(where: { (try? $0.decode(GrantData.self))?.linkID == link.linkID }) {
                _ = try await store.insert(GrantData(notebook: id, notebookOwner: link.owner, linkID: link.linkID, acceptedAt: core.nowMillis()),
                                           into: NotebookStore.grants, id: core.newID("gr"), owner: caller)
            }
        }
        return SharedNotebookJSON(notebook: NotebookJSON(record, data, access: link.owner == caller ? .owner : .read), linkID: link.linkID,
                                  ownerName: await ownerName(link.owner))
    }

    /// The username of the account that shared a notebook, for the recipient's list; nil when the
    /// account has none (a device or provider account) or auth does not answer in time.
    private func ownerName(_ owner: String) async -> String? {
        (try? await bus.request(GetAccount(accountID: owner), timeout: .seconds(5)))?.username
    }

    /// The notebooks shared with the caller whose links still live.
    func sharedWithMe(caller: String) async throws(BusError) -> [SharedNotebookJSON] {
        let held = try await store.query(RecordQuery(collection: NotebookStore.grants, owner: caller, limit: 1000))
        var result: [SharedNotebookJSON] = []
        var seen: Set<String> = []
        var names: [String: String?] = [:]
        for grant in held.records {
            let data = try grant.decode(GrantData.self)
            guard !seen.contains(data.notebook), let record = try await store.get(collection: NotebookStore.notebooks, id: data.notebook, owner: data.notebookOwner),
                  let notebook = try? record.decode(NotebookData.self), notebook.deleting != true,
                  try await NotebookAccessControl(core: core).liveLinks(owner: data.notebookOwner, notebook: data.notebook).contains(data.linkID) else { continue }
            seen.insert(data.notebook)
            if names[data.notebookOwner] == nil { names[data.notebookOwner] = .some(await ownerName(data.notebookOwner)) }
            result.append(SharedNotebookJSON(notebook: NotebookJSON(record, notebook, access: .read), linkID: data.linkID,
                                             ownerName: names[data.notebookOwner] ?? nil))
        }
        return result
    }

    /// The notebooks shared with the caller by a live link, as sync scopes (owner, notebook id).
    func sharedScopes(caller: String) async throws(BusError) -> [SharedScope] {
        let held = try await store.query(RecordQuery(collection: NotebookStore.grants, owner: caller, limit: 1000))
        var scopes: [SharedScope] = []
        var live: [String: Set<String>] = [:]
        for grant in held.records {
            let data = try grant.decode(GrantData.self)
            let key = data.notebookOwner + "\u{0}" + data.notebook
            if live[key] == nil { live[key] = try await NotebookAccessControl(core: core).liveLinks(owner: data.notebookOwner, notebook: data.notebook) }
            let scope = SharedScope(owner: data.notebookOwner, scope: data.notebook)
            if live[key]?.contains(data.linkID) == true, !scopes.contains(scope) { scopes.append(scope) }
        }
        return scopes
    }

    /// How sync's feed shows the viewer notebooks, pages and items: as the REST routes do, the
    /// owner's with owner access, a shared notebook's read-only; nil for anything else.
    func showSynced(viewer: String, records: [Record]) async throws(BusError) -> [JSONDocument?] {
        let needsShares = records.contains { $0.owner != viewer }
        let shared = needsShares ? Set(try await sharedScopes(caller: viewer)) : []
        return records.map { record in
            let data = try? record.data.parsed()
            let notebook = record.collection == NotebookStore.notebooks ? record.id : data.flatMap { data -> String? in
                if case .string(let id) = data.value(at: ["notebook"]) { return id }
                return nil
            }
            let mine = record.owner == viewer
            guard mine || notebook.map({ shared.contains(SharedScope(owner: record.owner, scope: $0)) }) == true else { return nil }
            switch record.collection {
            case NotebookStore.notebooks:
                guard let value = try? record.decode(NotebookData.self), value.deleting != true else { return nil }
                return try? JSONDocument(encoding: SyncedNotebookJSON(notebook: NotebookJSON(record, value, access: mine ? .owner : .read), pages: value.pages))
            case NotebookStore.pages:
                guard let page = try? record.decode(PageData.self) else { return nil }
                return try? JSONDocument(encoding: SyncedPageJSON(id: record.id, notebook: page.notebook, template: page.template,
                                                                  background: page.background, version: record.version))
            case NotebookStore.items:
                guard let item = try? record.decode(ItemData.self) else { return nil }
                return try? JSONDocument(encoding: SyncedItemJSON(item: ItemJSON(record, item), notebook: item.notebook, page: item.page,
                                                                  version: record.version))
            default:
                return nil
            }
        }
    }

    /// share-link's public page: the title only. The contents are for the signed-in recipient
    /// (NFR3.3.1), who opens the link in the app.
    func sharedView(owner: String, resource: [String: String]) async throws(BusError) -> SharedView {
        guard let id = resource["notebook"], StorageNames.isValidID(id), let record = try await store.get(collection: NotebookStore.notebooks, id: id, owner: owner),
              let data = try? record.decode(NotebookData.self), data.deleting != true else {
            throw BusError(.notFound, "The shared notebook does not exist.")
        }
        return SharedView(title: data.name, description: "A notebook of \(data.pageCount) page\(data.pageCount == 1 ? "" : "s"), shared read-only. "
                          + "Sign in to AR Notebook and open this link to see it.", items: [])
    }
}
