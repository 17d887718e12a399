/// AR Notebook's domain, one type per concern over a shared store (`NotebookStore`): the shelf of
/// notebooks, pages, inserts and undo, confirmed deletes, access rules, sharing and pins.
struct NotebookService: Sendable {
    let core: NotebookStore

    var shelf: NotebookShelf { NotebookShelf(core: core) }
    var pages: NotebookPages { NotebookPages(core: core) }
    var inserts: NotebookInserts { NotebookInserts(core: core) }
    var deletes: NotebookDeletes { NotebookDeletes(core: core) }
    var accessControl: NotebookAccessControl { NotebookAccessControl(core: core) }
    var sharing: NotebookSharing { NotebookSharing(core: core) }
    var pins: NotebookPins { NotebookPins(core: core) }
}
