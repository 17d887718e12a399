import Bus
import Crypto
import Foundation
import NIOCore
import NotesAPI
import OrderKeys
import PluginKit
import StorageAPI

/// Napkin Notes' rules: a user's notes in their own order, with today's date and the title "Title"
/// by default. Everything goes through the record store and the bus; nothing here knows HTTP.
struct NotesService: Sendable {
    static let collection = SyncedNote.collection
    /// The notes' collection; search adds storage's search index over titles (the key) and texts,
    /// categories an index to list one category in order. The import's index is sparse: a note
    /// typed in (most of them) has no import, and costs that index nothing.
    /// With photo text on, the search covers the text read in the photos too. The position index
    /// is covering: on SQLite a list page is read from it alone, without a lookup per note.
    static func schema(search: Bool, categories: Bool, photoText: Bool = false) -> CollectionSchema {
        var indexes = [IndexSpec(name: "position", fields: ["position"], covering: true), IndexSpec(name: "job", fields: ["importJob"], sparse: true)]
        if categories { indexes.append(IndexSpec(name: "category", fields: ["category", "position"])) }
        return CollectionSchema(name: collection, indexes: indexes, blobFields: ["photo", "drawing", "voice"],
                                search: search ? SearchIndexSpec(key: "title", text: photoText ? ["text", "photoText"] : ["text"], filters: categories ? ["category"] : []) : nil,
                                history: true)
    }
    static let maxCategory = 40
    static let defaultTitle = "Title"
    static let maxTitle = 200
    static let maxText = 100_000

    let store: any RecordStore & RecordSearching & RecordJSONQuerying
    let bus: any MessageBus
    /// The time and the ids' randomness, from the plugin's context.
    let clock: PluginClock
    let ids: IDSource
    let timeZone: TimeZone
    /// What the app's YAML switched on.
    let searchOn: Bool
    let categoriesOn: Bool
    /// Rendered list pages; every write below invalidates the owner's before and after it runs.
    let lists: NoteListCache
    /// Respaces crowded stretches of lists in the background (see `NoteOrder.swift`).
    let respacer: NoteRespacer
    /// Today's date for new notes, until the day ends.
    let days = DayMemo()
    /// Each owner's last key, so that a create does not read it (see `NoteLastPositions`).
    let positions: NoteLastPositions

    // MARK: Reading

    /// A list page as JSON bytes, from the cache when the owner's notes have not changed since.
    func listPage(owner: String, limit: Int, cursor: String?) async throws(BusError) -> ByteBuffer {
        let key = NoteListCache.PageKey(limit: limit, cursor: cursor)
        // A page is served once the bus has handed over every change acknowledged before this
        // request arrived (another node's write); unreachable, the store answers instead.
        if let cached = await bus.cached({ lists.page(owner: owner, key: key) }) { return cached }
        let generation = lists.generation(owner)
        // Written by storage straight from its rows: a note as the list shows it is its record as
        // `RecordJSON` writes one (the same bytes as `NoteJSON.write`; NoteListJSONTests).
        let page = try await store.queryJSON(RecordQuery(collection: Self.collection, owner: owner,
                                                         order: [SortKey("position")], limit: limit, cursor: cursor))
        let bytes = NoteJSON.listBytes(page)
        lists.store(bytes, owner: owner, key: key, generation: generation)
        return bytes
    }

    /// Runs a write to the owner's notes with the list cache invalidated on both sides of it, so
    /// that no page read before or during the write outlives it — even when the write fails after
    /// storage committed it (a timeout, say).
    /// The owner's last key is forgotten the same way (a create, which keeps it, passes false).
    func writing<T>(_ owner: String, positions forget: Bool = true, _ body: () async throws(BusError) -> T) async throws(BusError) -> T {
        lists.invalidate(owner)
        if forget { positions.invalidate(owner) }
        defer {
            lists.invalidate(owner)
            if forget { positions.invalidate(owner) }
        }
        return try await body()
    }

    // Not inlined into the route: inlined, Swift 6.3's release optimizer crashed splitting the route's coroutine.
    @inline(never)
    func note(owner: String, id: String) async throws(BusError) -> Record {
        try await record(owner: owner, id: id)
    }

    private func record(owner: String, id: String) async throws(BusError) -> Record {
        guard StorageNames.isValidID(id),
              let record = try await store.get(collection: Self.collection, id: id, owner: owner) else {
            throw Self.noSuchNote(id)
        }
        return record
    }

    static func noSuchNote(_ id: String) -> BusError {
        BusError(.notFound, "This note was deleted.", details: ["id": id])
    }

    // MARK: Search and categories

    /// Notes whose title or text holds every typed word (the last as a prefix), best first: title
    /// matches before text matches; of one category or all.
    // Not inlined into the route: inlined, Swift 6.3's release optimizer crashed splitting the route's coroutine.
    @inline(never)
    func search(owner: String, text: String, category: String?, limit: Int) async throws(BusError) -> SearchResult {
        guard searchOn else {
            throw BusError(.notFound, "Search is not switched on in this app; its YAML turns it on with notes: { search: true }.")
        }
        let filters = try category.map { name throws(BusError) in [SearchFilter("category", .any, [try self.category(name)])] } ?? []
        return try await store.search(SearchQuery(collection: Self.collection, owner: owner, text: text, filters: filters, limit: limit))
    }

    /// One category's notes, in the user's order.
    @inline(never)
    func notes(owner: String, category: String, limit: Int, cursor: String?) async throws(BusError) -> RecordPage {
        try await store.query(RecordQuery(collection: Self.collection, owner: owner, filters: [Filter("category", .eq, .string(try self.category(category)))],
                                          order: [SortKey("category"), SortKey("position")], limit: limit, cursor: cursor))
    }

    /// The user's categories with how many notes each has, by name.
    @inline(never)
    func categories(owner: String) async throws(BusError) -> [(name: String, count: Int)] {
        guard categoriesOn else { throw Self.categoriesOff }
        var counts: [String: Int] = [:]
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.collection, owner: owner, order: [SortKey("position")],
                                                         limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                if let category = try record.decode(NoteData.self).category { counts[category, default: 0] += 1 }
            }
            cursor = page.nextCursor
        } while cursor != nil
        return counts.sorted { $0.key.localizedStandardCompare($1.key) == .orderedAscending }.map { ($0.key, $0.value) }
    }

    /// A category's name as given: trimmed, 1 to 40 characters, no control characters.
    func category(_ raw: String) throws(BusError) -> String {
        guard categoriesOn else { throw Self.categoriesOff }
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxCategory).contains(name.count), !name.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw BusError.invalid("A category is 1 to \(Self.maxCategory) characters (Work, Shopping, Ideas…).", field: "category")
        }
        return name
    }

    /// What the input does to the category: nothing (nil), clear it (.some(nil)) or set a checked name.
    private func categoryChange(_ input: NoteInput) throws(BusError) -> String?? {
        guard case .some(let value) = input.category else { return nil }
        guard let value else {
            guard categoriesOn else { throw Self.categoriesOff }
            return .some(nil)
        }
        return .some(try category(value))
    }

    static let categoriesOff = BusError(.notFound, "Categories are not switched on in this app; its YAML turns them on with notes: { categories: true }.")

    // MARK: Writing

    func create(owner: String, input: NoteInput, idempotencyKey: String?) async throws(BusError) -> (Record, replayed: Bool) {
        try validate(input)
        let id = newNoteID()
        // After the last note (its key counts up: see `OrderKey`); the id is the write's token.
        let position = try await nextPosition(owner: owner, token: id)
        defer { positions.finished(owner: owner, token: id) }
        var data = NoteData(title: input.title ?? Self.defaultTitle, text: input.text ?? "",
                            date: input.date ?? today(), position: position)
        if case .some(let category) = try categoryChange(input) { data.category = category }
        let claim = idempotencyKey.map { key in
            IdempotencyClaim(owner: owner, scope: "notes.create", key: key, fingerprint: fingerprint(input))
        }
        let document: JSONDocument
        if let fast = NoteFastJSON.document(data) { document = fast } else { document = try JSONDocument(encoding: data) }
        let batch = WriteBatch([
            .insert(collection: Self.collection, id: id, owner: owner, data: document),
        ], idempotency: claim, origin: id)
        let result = try await writing(owner, positions: false) { () async throws(BusError) in try await store.write(batch) }
        guard let record = result.records.first ?? nil else {
            throw BusError(.conflict, "The note created with this Idempotency-Key has since been deleted.")
        }
        if !result.replayed {
            await publish(owner, record, .created)
            respaceIfLong(owner: owner, [position])
        }
        return (record, result.replayed)
    }

    /// With an Idempotency-Key, the same edit sent again (a phone's outbox after a reload cut off
    /// the first answer) is answered with the note as it is, and not made again: made again on its
    /// old If-Match, it replaced what another phone had written since (a newcomer's walk lost it so).
    func edit(owner: String, id: String, input: NoteInput, expectedVersion: Int64?, idempotencyKey: String? = nil) async throws(BusError) -> Edited {
        try validate(input)
        let newCategory = try categoryChange(input)
        let claim = IdempotencyClaim.edit(owner: owner, collection: "notes", key: idempotencyKey, id: id, basedOn: expectedVersion,
                                          [fingerprint(input), String(describing: newCategory)])
        let updated = try await modify(owner: owner, id: id, expectedVersion: expectedVersion, idempotency: claim) { data in
            if let title = input.title { data.title = title }
            if let text = input.text { data.text = text }
            if let date = input.date { data.date = date }
            if case .some(let category) = newCategory { data.category = category }
        }
        if !updated.replayed { await publish(owner, updated.record, .edited) }
        return updated
    }

    /// A note as an edit left it, with the values it replaced that another device had written
    /// meanwhile (see ``modify(owner:id:expectedVersion:_:)``).
    struct Edited {
        var record: Record
        var replaced: [String: JSONValue]
        /// The same edit sent again with its Idempotency-Key: not made again; `record` is the note as it is.
        var replayed = false
    }

    /// Reads the note, applies `change` and writes it back.
    ///
    /// With `If-Match` naming the current version, that is a plain guarded write. Naming an earlier
    /// version that history still keeps (an edit queued offline), the change is applied to that
    /// version and merged into the note field by field: fields nobody else changed take the edit,
    /// a field both changed takes the edit too (the later write) and the value it replaced is
    /// returned. Older than history: 412 saying what the note is at now. Without `If-Match`, a write
    /// that lost a race with another client reads the note again and reapplies the change.
    func modify(owner: String, id: String, expectedVersion: Int64?, idempotency: IdempotencyClaim? = nil,
                _ change: (inout NoteData) -> Void) async throws(BusError) -> Edited {
        guard StorageNames.isValidID(id) else { throw Self.noSuchNote(id) }
        return try await store.update(collection: Self.collection, id: id, owner: owner, retry: .immediate(attempts: Self.maxRetries),
                                      gaveUp: BusError(.conflict, "Note '\(id)' kept changing while it was being saved (other devices are editing it); try again.")) {
            found throws(BusError) in
            guard let record = found else { throw Self.noSuchNote(id) }
            guard let edit = try await store.mergedEdit(record, basedOn: expectedVersion, as: NoteData.self, { change(&$0) }) else {
                throw Self.stale(id: id, expected: expectedVersion ?? 0, actual: record.version)
            }
            // Another client wrote in between: read again and merge again.
            return try await .write(retryingOn: [.preconditionFailed]) { () async throws(BusError) -> Edited in
                do throws(BusError) {
                    let (written, replayed) = try await writing(owner) { () async throws(BusError) in
                        let document: JSONDocument
                        if let fast = NoteFastJSON.document(edit.payload) { document = fast } else { document = try JSONDocument(encoding: edit.payload) }
                        return try await store.replaceOnce(document: document, in: Self.collection, id: id, owner: owner,
                                                           expectedVersion: record.version, idempotency: idempotency)
                    }
                    return Edited(record: written, replaced: replayed ? [:] : edit.replaced, replayed: replayed)
                } catch where error.code == .notFound {
                    throw Self.noSuchNote(id)
                }
            }
        }
    }

    /// The note's earlier versions the server keeps (the retention window), newest first.
    func history(owner: String, id: String) async throws(BusError) -> [Record] {
        _ = try await record(owner: owner, id: id)
        return try await store.history(collection: Self.collection, id: id, owner: owner)
    }

    /// Brings back an earlier version's title, text and date as a new version (photo and drawing
    /// stay as they are: a replaced image is not kept).
    func restore(owner: String, id: String, version: Int64) async throws(BusError) -> Edited {
        guard let earlier = try await store.version(version, collection: Self.collection, id: id, owner: owner) else {
            _ = try await record(owner: owner, id: id)
            throw BusError(.notFound, "Note '\(id)' has no version \(version) in its history (kept for the retention window).",
                           details: ["id": id])
        }
        let old = try earlier.decode(NoteData.self)
        let restored = try await modify(owner: owner, id: id, expectedVersion: nil) { data in
            data.title = old.title
            data.text = old.text
            data.date = old.date
        }
        await publish(owner, restored.record, .edited)
        return restored
    }

    static let maxRetries = 8

    static func stale(id: String, expected: Int64, actual: Int64) -> BusError {
        BusError(.preconditionFailed, "Note '\(id)' has changed since version \(expected) (it is at version \(actual) now); "
                 + "reload it and apply your change again.", details: ["id": id, "version": String(actual)])
    }

    func delete(owner: String, id: String, expectedVersion: Int64?) async throws(BusError) {
        let record = try await record(owner: owner, id: id)
        try await writing(owner) { () async throws(BusError) in
            try await store.delete(from: Self.collection, id: id, owner: owner, expectedVersion: expectedVersion)
        }
        await bus.publish(NoteChanged(owner: owner, noteID: id, kind: .deleted, version: record.version + 1))
        // What other plugins keep about the note (its geotag, its reminder) goes with it: they
        // subscribe to this; notes knows none of them.
        await bus.publish(SubjectDeleted(owner: owner, subject: "\(NoteSubject.kind)/\(id)"))
    }

    /// What `caller` may do with note `id`, for a plugin that would attach something to it: write
    /// their own, nothing with another's or one that does not exist (not told apart).
    func access(caller: String, id: String) async throws(BusError) -> SubjectAccess {
        guard StorageNames.isValidID(id), try await store.get(collection: Self.collection, id: id, owner: caller) != nil else { return .none }
        return .write
    }

    /// Moves a note just before or after another. Writes one record and the owner's order guard
    /// (so that a respacing running meanwhile is noticed, see `NoteOrder.swift`). When there is no
    /// key between the neighbours (two notes share a key, or keys reached their cap) the stretch is
    /// respaced first; a move that lost a race with another order change reads the list again.
    func move(owner: String, id: String, input: MoveInput) async throws(BusError) -> Record {
        guard (input.before == nil) != (input.after == nil), let anchorID = input.before ?? input.after else {
            throw BusError.invalid("Send exactly one of 'before' and 'after', with the id of another note.", field: "before")
        }
        guard anchorID != id else {
            throw BusError.invalid("A note cannot be moved next to itself.", field: input.before == nil ? "after" : "before")
        }
        for _ in 0..<Self.maxRetries {
            let guardVersion = try await orderGuardVersion(owner)
            let moving = try await record(owner: owner, id: id)
            guard StorageNames.isValidID(anchorID),
                  let anchor = try await store.get(collection: Self.collection, id: anchorID, owner: owner) else {
                throw BusError(.notFound, "The note to move next to was deleted.", details: ["id": anchorID])
            }
            // The anchor's neighbour on the side the note goes (the moving note left out): two
            // reads, whatever the list's length. A neighbour with the anchor's own key leaves no room.
            let anchorKey = try anchor.decode(NoteData.self).position
            let before = input.before != nil
            let near = try await store.query(RecordQuery(collection: Self.collection, owner: owner,
                                                         filters: [Filter("position", before ? .lte : .gte, .string(anchorKey))],
                                                         order: [SortKey("position", descending: before)], limit: 3))
            let neighbour = try near.records.first { $0.id != id && $0.id != anchorID }.map { record throws(BusError) in
                try record.decode(NoteData.self).position
            }
            let (lower, upper) = before ? (neighbour, anchorKey) : (anchorKey, neighbour)
            guard let key = OrderKey.between(lower, upper) else {
                // No room between the neighbours: respace around them, then read the list again.
                guard let around = lower ?? upper, try await respace(owner: owner, around: around) > 0 else {
                    throw Self.noRoom("the note there")
                }
                continue
            }
            var data = try moving.decode(NoteData.self)
            data.position = key
            let batch = WriteBatch([
                .replace(collection: Self.collection, id: id, owner: owner, data: try JSONDocument(encoding: data),
                         expectedVersion: moving.version),
                try orderGuardWrite(owner, at: guardVersion),
            ])
            let result: WriteResult
            do {
                result = try await writing(owner) { () async throws(BusError) in try await store.write(batch) }
            } catch where error.code == .preconditionFailed || error.code == .conflict {
                continue  // the note or the list's order changed meanwhile: read them again
            }
            guard let updated = result.records.compactMap({ $0 }).first(where: { $0.id == id }) else {
                throw BusError(.internal, "The moved note was not returned by storage.")
            }
            await publish(owner, updated, .moved)
            respaceIfLong(owner: owner, [key])
            return updated
        }
        throw BusError(.conflict, "The list kept changing while the note was being moved; reload it and try again.")
    }

    // MARK: Rules

    private func validate(_ input: NoteInput) throws(BusError) {
        if let title = input.title, title.count > Self.maxTitle {
            throw BusError.invalid("A title has at most \(Self.maxTitle) characters.", field: "title")
        }
        if let text = input.text, text.count > Self.maxText {
            throw BusError.invalid("A note's text has at most \(Self.maxText) characters.", field: "text")
        }
        if let date = input.date, !Self.isValidDate(date) {
            throw BusError.invalid("'date' must be a calendar date written YYYY-MM-DD.", field: "date")
        }
    }

    static func isValidDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...9999).contains(year), (1...12).contains(month), day >= 1 else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let date = calendar.date(from: DateComponents(year: year, month: month)),
              let days = calendar.range(of: .day, in: .month, for: date) else { return false }
        return days.contains(day)
    }

    func today() -> String { days.day(clock.now(), timeZone: timeZone, compute: day) }

    /// The calendar day of an instant in the app's time zone, `YYYY-MM-DD`.
    func day(_ instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    private func fingerprint(_ input: NoteInput) -> String {
        let canonical = [input.title ?? "\u{0}", input.text ?? "\u{0}", input.date ?? "\u{0}"].joined(separator: "\u{1}")
        return IdempotencyClaim.sha256Hex(Data(canonical.utf8))
    }

    private func publish(_ owner: String, _ record: Record, _ kind: NoteChanged.Kind) async {
        await bus.publish(NoteChanged(owner: owner, noteID: record.id, kind: kind, version: record.version))
    }

    /// A new note's id: `n_`, the time in milliseconds (9 base-36 digits, fixed width until the
    /// year 5188), then 60 random bits in base 36. Ids made one after another sort after each
    /// other, so a new note's rows go at the end of storage's indexes by id (the records' key, the
    /// owner's index, the change log's by record) and the notes created together share those pages
    /// in one commit; with wholly random ids each one changed a page of its own in each (issue 42).
    func newNoteID() -> String {
        let milliseconds = UInt64(max(0, clock.now().timeIntervalSince1970 * 1000))
        let time = String(milliseconds, radix: 36)
        return "n_" + String(repeating: "0", count: max(0, 9 - time.utf8.count)) + time + String(ids.next() >> 4, radix: 36)
    }

    /// A new id's random part: two draws of 60 bits in base 36.
    func randomID() -> String {
        (0..<2).map { _ in String(ids.next() >> 4, radix: 36) }.joined()
    }
}
