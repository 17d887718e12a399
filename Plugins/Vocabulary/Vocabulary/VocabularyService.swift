import Bus
import Crypto
import Foundation
import PluginKit
import StorageAPI
import VocabularyAPI

/// Foreign Note's rules: collections, entries, tags and relations per user; deleted entries kept
/// for an undo window; search as you type through storage's search index. Nothing here knows HTTP.
struct VocabularyService: Sendable {
    typealias C = VocabularyCollections

    let store: any RecordStore & RecordSearching
    /// The time and the ids' randomness, from the plugin's context.
    let clock: PluginClock
    let ids: IDSource
    /// How long a deleted entry can be restored.
    let undoWindow: TimeInterval
    /// How long after the window a restore still says "gone" (410) rather than "not found".
    static let tombstoneKeep: TimeInterval = 30 * 86_400
    static let maxRelations = 50
    /// How many times a tag's delete reads its words again after one changed under it, before it gives up.
    static let tagDeleteRetries = 50

    /// A new id with `prefix`: the time, then random bits (``VocabularyRules/randomID(_:at:random:)``).
    func newID(_ prefix: String) -> String { VocabularyRules.randomID(prefix, at: clock.now(), random: ids.next()) }

    // MARK: Collections

    func collections(owner: String) async throws(BusError) -> [Record] {
        try await all(RecordQuery(collection: C.collections, owner: owner, order: [SortKey("nameKey")], limit: 1000))
    }

    func collection(owner: String, id: String) async throws(BusError) -> Record {
        try await existing(C.collections, "collection", owner: owner, id: id)
    }

    /// A collection by id or by name (case- and accent-insensitive).
    func collection(owner: String, named nameOrID: String) async throws(BusError) -> Record? {
        try await named(C.collections, owner: owner, nameOrID)
    }

    func createCollection(owner: String, name raw: String?, importJob: String? = nil, idempotencyKey: String? = nil) async throws(BusError) -> Record {
        let (name, key) = try VocabularyRules.name(raw, of: "collection")
        return try await unique(C.collections, what: "collection", owner: owner, key: key) { () async throws(BusError) in
            try await insertOnce(CollectionData(name: name, nameKey: key, importJob: importJob), into: C.collections,
                                 id: newID("c_"), owner: owner, idempotencyKey: idempotencyKey)
        }
    }

    func renameCollection(owner: String, id: String, name raw: String?, expectedVersion: Int64?) async throws(BusError) -> Record {
        let existing = try await collection(owner: owner, id: id)
        let (name, key) = try VocabularyRules.name(raw, of: "collection")
        var data = try existing.decode(CollectionData.self)
        data.name = name
        data.nameKey = key
        return try await unique(C.collections, what: "collection", owner: owner, key: key) { () async throws(BusError) in
            try await store.replace(data, in: C.collections, id: id, owner: owner, expectedVersion: expectedVersion)
        }
    }

    /// Deletes a collection: at once, it and its entries are gone from every list, search and
    /// GET (the collection record goes, a purge record takes its place, in one batch); its entries
    /// are then deleted in the background (``purge(owner:collection:)``), resumed after a restart.
    func deleteCollection(owner: String, id: String) async throws(BusError) {
        let existing = try await collection(owner: owner, id: id)
        let data = try existing.decode(CollectionData.self)
        _ = try await store.write(WriteBatch([
            .delete(collection: C.collections, id: id, owner: owner, expectedVersion: existing.version),
            .insert(collection: C.purging, id: id, owner: owner, data: try JSONDocument(encoding: PurgeData(name: data.name, requestedAt: clock.now()))),
        ]))
    }

    /// The ids of the owner's collections still being purged (their entries are hidden).
    func purgingCollections(owner: String) async throws(BusError) -> [String] {
        try await store.query(RecordQuery(collection: C.purging, owner: owner, limit: RecordQuery.maxLimit)).records.map(\.id)
    }

    /// The owner's words deleted and still in the undo window, and collections being deleted: their
    /// cards are still stored, and are not coming up for review.
    func goneWords(owner: String) async throws(BusError) -> (entries: Set<String>, collections: Set<String>) {
        var entries: Set<String> = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: C.trash, owner: owner, limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records where (try? record.decode(TrashData.self))?.entry != nil { entries.insert(record.id) }
            cursor = page.nextCursor
        } while cursor != nil
        return (entries, Set(try await purgingCollections(owner: owner)))
    }

    /// Deletes the review cards matching `filter` (a word gone for good, a collection's words).
    private func deleteCards(owner: String, _ filter: Filter) async throws(BusError) {
        while true {
            let page = try await store.query(RecordQuery(collection: C.cards, owner: owner, filters: [filter], limit: 200))
            if page.records.isEmpty { return }
            _ = try await store.write(WriteBatch(page.records.map { .delete(collection: C.cards, id: $0.id, owner: owner, expectedVersion: nil) }))
        }
    }

    /// A pending purge's collection name and when it was asked for; nil when it is not pending.
    func pendingPurge(owner: String, collection id: String) async throws(BusError) -> (name: String, requestedAt: Date)? {
        guard let record = try await store.get(collection: C.purging, id: id, owner: owner) else { return nil }
        let data = try? record.decode(PurgeData.self)
        return (data?.name ?? "", data?.requestedAt ?? record.createdAt)
    }

    /// Every pending purge, of every owner.
    func pendingPurges() async throws(BusError) -> [Record] {
        try await store.query(RecordQuery(collection: C.purging, owner: nil, limit: RecordQuery.maxLimit)).records
    }

    /// Deletes a deleted collection's entries, 200 at a time (entries of other collections related
    /// to them lose those relations), then its purge record; answers how many entries went (and
    /// tells `progress` after each batch). Interrupted, it goes on from where it was.
    @discardableResult
    func purge(owner: String, collection id: String, progress: (Int) -> Void = { _ in }) async throws(BusError) -> Int {
        var deleted = 0
        while true {
            let page = try await store.query(RecordQuery(collection: C.entries, owner: owner,
                                                         filters: [Filter("collection", .eq, .string(id))], limit: 200))
            if page.records.isEmpty { break }
            var deletes: [WriteOperation] = []
            // Entries of other collections related to the ones leaving lose those relations.
            var peers: [String: (data: EntryData, version: Int64)] = [:]
            func flush() async throws(BusError) {
                let updates = try peers.map { peerID, peer throws(BusError) in
                    WriteOperation.replace(collection: C.entries, id: peerID, owner: owner,
                                           data: try JSONDocument(encoding: peer.data), expectedVersion: peer.version)
                }
                if !deletes.isEmpty || !updates.isEmpty { _ = try await store.write(WriteBatch(deletes + updates)) }
                deleted += deletes.count
                progress(deleted)
                deletes = []
                peers = [:]
            }
            for record in page.records {
                let data = try record.decode(EntryData.self)
                if deletes.count + peers.count + 1 + data.relations.count > WriteBatch.maxOperations { try await flush() }
                deletes.append(.delete(collection: C.entries, id: record.id, owner: owner, expectedVersion: nil))
                for relation in data.relations {
                    if peers[relation.entry] == nil {
                        guard let peer = try await store.get(collection: C.entries, id: relation.entry, owner: owner) else { continue }
                        let peerData = try peer.decode(EntryData.self)
                        guard peerData.collection != id else { continue }
                        peers[relation.entry] = (peerData, peer.version)
                    }
                    peers[relation.entry]?.data.relations.removeAll { $0.entry == record.id }
                }
            }
            try await flush()
        }
        // Their review cards go too (kept until now, they counted in Statistics' forecast for good).
        try await deleteCards(owner: owner, Filter("collection", .eq, .string(id)))
        do {
            try await store.delete(from: C.purging, id: id, owner: owner)
        } catch where error.code == .notFound {
            // Another purge of it finished first.
        }
        return deleted
    }

    // MARK: Tags

    func tags(owner: String) async throws(BusError) -> [Record] {
        try await all(RecordQuery(collection: C.tags, owner: owner, order: [SortKey("nameKey")], limit: 1000))
    }

    func tag(owner: String, id: String) async throws(BusError) -> Record {
        try await existing(C.tags, "tag", owner: owner, id: id)
    }

    func tag(owner: String, named nameOrID: String) async throws(BusError) -> Record? {
        try await named(C.tags, owner: owner, nameOrID)
    }

    func createTag(owner: String, name raw: String?, importJob: String? = nil, idempotencyKey: String? = nil) async throws(BusError) -> Record {
        let (name, key) = try VocabularyRules.tagName(raw)
        return try await unique(C.tags, what: "tag", owner: owner, key: key) { () async throws(BusError) in
            try await insertOnce(TagData(name: name, nameKey: key, importJob: importJob), into: C.tags,
                                 id: newID("t_"), owner: owner, idempotencyKey: idempotencyKey)
        }
    }

    func renameTag(owner: String, id: String, name raw: String?, expectedVersion: Int64?) async throws(BusError) -> Record {
        let existing = try await tag(owner: owner, id: id)
        let (name, key) = try VocabularyRules.tagName(raw)
        var data = try existing.decode(TagData.self)
        data.name = name
        data.nameKey = key
        return try await unique(C.tags, what: "tag", owner: owner, key: key) { () async throws(BusError) in
            try await store.replace(data, in: C.tags, id: id, owner: owner, expectedVersion: expectedVersion)
        }
    }

    /// Deletes a tag; the entries that had it keep existing without it. A word deleted or changed
    /// while it is taken out of the tag (a deleted collection's words purged in the background, an
    /// edit from a phone) is read again: not a refusal of the delete, which left the tag in place.
    func deleteTag(owner: String, id: String) async throws(BusError) -> Int {
        _ = try await tag(owner: owner, id: id)
        var untagged = 0
        var raced = 0
        while true {
            let page = try await store.query(RecordQuery(collection: C.entries, owner: owner,
                                                         filters: [Filter("tags", .contains, .string(id))], limit: 500))
            if page.records.isEmpty { break }
            var operations: [WriteOperation] = []
            for record in page.records {
                var data = try record.decode(EntryData.self)
                data.tags.removeAll { $0 == id }
                operations.append(.replace(collection: C.entries, id: record.id, owner: owner,
                                           data: try JSONDocument(encoding: data), expectedVersion: record.version))
            }
            do {
                _ = try await store.write(WriteBatch(operations))
            } catch where error.code == .notFound || error.code == .preconditionFailed {
                raced += 1
                guard raced < Self.tagDeleteRetries else {
                    throw BusError(.conflict, "The words with this tag kept changing while it was being deleted; try deleting it again.",
                                   details: ["id": id])
                }
                continue
            }
            untagged += page.records.count
        }
        try await store.delete(from: C.tags, id: id, owner: owner)
        return untagged
    }

    // MARK: Entries

    /// One entry; 404 while its collection is being deleted.
    func entry(owner: String, id: String) async throws(BusError) -> Record {
        try await entry(try await existing(C.entries, "entry", owner: owner, id: id), owner: owner, id: id)
    }

    /// An entry as read (nil: there is none), refused as `entry(owner:id:)` refuses it.
    private func entry(_ found: Record?, owner: String, id: String) async throws(BusError) -> Record {
        guard let record = found else { throw BusError(.notFound, "No entry '\(id)'.", details: ["id": id]) }
        let collection = try record.decode(EntryData.self).collection
        guard try await store.get(collection: C.collections, id: collection, owner: owner) != nil else {
            throw BusError(.notFound, "This word is not in your vocabulary: its collection was deleted.", details: ["id": id])
        }
        return record
    }

    func entries(owner: String, collection id: String, limit: Int, cursor: String?) async throws(BusError) -> RecordPage {
        _ = try await collection(owner: owner, id: id)
        return try await store.query(RecordQuery(collection: C.entries, owner: owner, filters: [Filter("collection", .eq, .string(id))],
                                                 order: [SortKey("sortKey")], limit: limit, cursor: cursor))
    }

    func createEntry(owner: String, input: EntryInput, idempotencyKey: String? = nil) async throws(BusError) -> Record {
        guard let collectionID = input.collection else {
            throw BusError.invalid("Say which collection the entry goes in ('collection': its id).", field: "collection")
        }
        _ = try await collection(owner: owner, id: collectionID)
        let word = try VocabularyRules.word(input.word)
        let data = EntryData(
            word: word, definitions: try VocabularyRules.definitions(input.definitions),
            languages: try VocabularyRules.languages(input.languages),
            note: try VocabularyRules.text(input.note ?? nil, field: "note", max: VocabularyRules.maxNote),
            example: try VocabularyRules.text(input.example ?? nil, field: "example", max: VocabularyRules.maxNote),
            collection: collectionID, tags: try await checkedTags(owner: owner, input.tags ?? []), relations: [],
            sortKey: SearchText.fold(word))
        return try await insertOnce(data, into: C.entries, id: newID("e_"), owner: owner, idempotencyKey: idempotencyKey)
    }

    /// Inserts one record, once per `Idempotency-Key`: the same request sent again (a phone that
    /// reloaded while its create was on the way, then sent it from its outbox) answers the record
    /// the first one made, instead of a copy or a "name taken" about itself. The key reused for a
    /// different record is refused by storage.
    private func insertOnce<T: Encodable>(_ value: T, into collection: String, id: String, owner: String,
                                          idempotencyKey: String?) async throws(BusError) -> Record {
        let document = try JSONDocument(encoding: value)
        let claim = idempotencyKey.map { key in
            IdempotencyClaim(owner: owner, scope: "\(collection).create", key: key,
                             fingerprint: IdempotencyClaim.sha256Hex(document.bytes))
        }
        let result = try await store.write(WriteBatch([.insert(collection: collection, id: id, owner: owner, data: document)],
                                                      idempotency: claim))
        guard let record = result.records.first ?? nil else {
            throw BusError(.conflict, "What was created with this Idempotency-Key has since been deleted.")
        }
        return record
    }

    /// Edits an entry. With `If-Match` naming an earlier version that history keeps (an edit
    /// queued offline), the edit merges field by field into the entry as it is now; `replaced` holds
    /// what it overwrote of a concurrent edit to the same field.
    /// With an Idempotency-Key, the same edit sent again (the outbox after a reload) is answered with
    /// the entry as it is and not made again (it merged over another device's later edit).
    func updateEntry(owner: String, id: String, input: EntryInput, expectedVersion: Int64?, idempotencyKey: String? = nil) async throws(BusError)
        -> (record: Record, replaced: [String: JSONValue]) {
        let claim = IdempotencyClaim.edit(owner: owner, collection: C.entries, key: idempotencyKey, id: id, basedOn: expectedVersion,
                                          [String(describing: input)])
        if let collectionID = input.collection { _ = try await collection(owner: owner, id: collectionID) }
        let word = try input.word.map { _ throws(BusError) in try VocabularyRules.word(input.word) }
        let definitions = try input.definitions.map { _ throws(BusError) in try VocabularyRules.definitions(input.definitions) }
        let languages = try input.languages.map { _ throws(BusError) in try VocabularyRules.languages(input.languages) }
        let note = try input.note.map { note throws(BusError) in try VocabularyRules.text(note, field: "note", max: VocabularyRules.maxNote) }
        let example = try input.example.map { example throws(BusError) in
            try VocabularyRules.text(example, field: "example", max: VocabularyRules.maxNote)
        }
        var tags: [String]?
        if let asked = input.tags { tags = try await checkedTags(owner: owner, asked) }
        guard StorageNames.isValidID(id) else { throw BusError(.notFound, "No entry '\(id)'.", details: ["id": id]) }
        return try await store.update(collection: C.entries, id: id, owner: owner,
                                      gaveUp: BusError(.conflict, "Entry '\(id)' kept changing while it was being saved; try again.")) { found throws(BusError) in
            let existing = try await entry(found, owner: owner, id: id)
            guard let edit = try await store.mergedEdit(existing, basedOn: expectedVersion, as: EntryData.self, { data in
                if let collectionID = input.collection { data.collection = collectionID }
                if let word {
                    data.word = word
                    data.sortKey = SearchText.fold(word)
                }
                if let definitions { data.definitions = definitions }
                if let languages { data.languages = languages }
                if let note { data.note = note }
                if let example { data.example = example }
                if let tags { data.tags = tags }
            }) else {
                throw BusError(.preconditionFailed, "Entry '\(id)' is at version \(existing.version); version \(expectedVersion ?? 0) is no longer kept. "
                               + "Reload it and apply your change again.", details: ["id": id, "version": String(existing.version)])
            }
            return try await .write(retryingOn: [.preconditionFailed]) { () async throws(BusError) in
                let (saved, replayed) = try await store.replaceOnce(edit.payload, in: C.entries, id: id, owner: owner, expectedVersion: existing.version,
                                                                    idempotency: claim)
                return (saved, replayed ? [:] : edit.replaced.filter { $0.key != "sortKey" })
            }
        }
    }

    /// Deletes an entry (and its relations, on both sides), keeping it restorable for the undo window.
    func deleteEntry(owner: String, id: String, expectedVersion: Int64?, now: Date? = nil) async throws(BusError) {
        let existing = try await entry(owner: owner, id: id)
        let data = try existing.decode(EntryData.self)
        var operations: [WriteOperation] = [
            .delete(collection: C.entries, id: id, owner: owner, expectedVersion: expectedVersion ?? existing.version),
        ]
        for relation in data.relations {
            if let peer = try await unrelated(owner: owner, peer: relation.entry, from: id) { operations.append(peer) }
        }
        let trash = TrashData(entry: data, deletedAt: (now ?? clock.now()).timeIntervalSince1970)
        if try await store.get(collection: C.trash, id: id, owner: owner) != nil {
            operations.append(.replace(collection: C.trash, id: id, owner: owner, data: try JSONDocument(encoding: trash), expectedVersion: nil))
        } else {
            operations.append(.insert(collection: C.trash, id: id, owner: owner, data: try JSONDocument(encoding: trash)))
        }
        _ = try await store.write(WriteBatch(operations))
    }

    /// Brings a deleted entry back, with its relations to entries that still exist.
    /// - Throws: `gone` (410) after the undo window; `not_found` for an entry never deleted.
    func restoreEntry(owner: String, id: String, now: Date? = nil) async throws(BusError) -> Record {
        let now = now ?? clock.now()
        guard StorageNames.isValidID(id), let trashed = try await store.get(collection: C.trash, id: id, owner: owner) else {
            if try await store.get(collection: C.entries, id: id, owner: owner) != nil {
                throw BusError(.conflict, "Entry '\(id)' is not deleted.", details: ["id": id])
            }
            throw BusError(.notFound, "No deleted entry '\(id)'.", details: ["id": id])
        }
        let trash = try trashed.decode(TrashData.self)
        guard var data = trash.entry, now.timeIntervalSince1970 - trash.deletedAt <= undoWindow else {
            throw BusError(.gone, "Entry '\(id)' was deleted more than \(Int(undoWindow)) seconds ago and is gone for good; it can no longer be restored.",
                           details: ["id": id])
        }
        guard try await store.get(collection: C.collections, id: data.collection, owner: owner) != nil else {
            throw BusError(.gone, "The collection entry '\(id)' was in has been deleted; the entry went with it.", details: ["id": id])
        }
        var operations: [WriteOperation] = [.delete(collection: C.trash, id: id, owner: owner, expectedVersion: trashed.version)]
        var kept: [Relation] = []
        for relation in data.relations {
            guard let peer = try await store.get(collection: C.entries, id: relation.entry, owner: owner) else { continue }
            var peerData = try peer.decode(EntryData.self)
            if !peerData.relations.contains(where: { $0.entry == id }) {
                peerData.relations.append(Relation(kind: relation.kind, entry: id))
            }
            operations.append(.replace(collection: C.entries, id: peer.id, owner: owner, data: try JSONDocument(encoding: peerData),
                                       expectedVersion: peer.version))
            kept.append(relation)
        }
        data.relations = kept
        let known = Set(try await tags(owner: owner).map(\.id))
        data.tags.removeAll { !known.contains($0) }
        operations.insert(.insert(collection: C.entries, id: id, owner: owner, data: try JSONDocument(encoding: data)), at: 1)
        let result = try await store.write(WriteBatch(operations))
        guard let record = result.records[1] else { throw BusError(.internal, "The restored entry was not returned.") }
        return record
    }

    /// Empties deleted entries past the undo window (keeping a tombstone) and drops old tombstones.
    func purgeTrash(now: Date? = nil) async throws(BusError) -> Int {
        let now = now ?? clock.now()
        var purged = 0
        let expired = now.timeIntervalSince1970 - undoWindow
        var expiredWords: [(owner: String, entry: String)] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: C.trash, owner: nil, filters: [Filter("deletedAt", .lt, .number(expired))],
                                                         order: [SortKey("deletedAt")], limit: 500, cursor: cursor))
            var operations: [WriteOperation] = []
            for record in page.records {
                var trash = try record.decode(TrashData.self)
                if trash.entry != nil { expiredWords.append((record.owner, record.id)) }
                if trash.deletedAt < now.timeIntervalSince1970 - undoWindow - Self.tombstoneKeep {
                    operations.append(.delete(collection: C.trash, id: record.id, owner: record.owner, expectedVersion: record.version))
                } else if trash.entry != nil {
                    trash.entry = nil
                    operations.append(.replace(collection: C.trash, id: record.id, owner: record.owner,
                                               data: try JSONDocument(encoding: trash), expectedVersion: record.version))
                }
            }
            if !operations.isEmpty { _ = try await store.write(WriteBatch(operations)) }
            // The word is gone for good: its review cards go (kept for the undo window, they
            // counted in Statistics' forecast and filled review's due queue with words it skips).
            for (owner, entry) in expiredWords { try await deleteCards(owner: owner, Filter("entry", .eq, .string(entry))) }
            expiredWords = []
            purged += operations.count
            cursor = page.nextCursor
        } while cursor != nil
        return purged
    }

    // MARK: Relations

    /// Relates two entries (both ways); relating them again changes the kind.
    func relate(owner: String, id: String, input: RelationInput) async throws(BusError) -> Record {
        guard let kind = input.kind.flatMap(RelationKind.init(rawValue:)) else {
            throw BusError.invalid("'kind' is 'related' or 'alternative'.", field: "kind")
        }
        guard let otherID = input.entry else { throw BusError.invalid("'entry' names the other entry.", field: "entry") }
        guard otherID != id else { throw BusError.invalid("An entry cannot be related to itself.", field: "entry") }
        let first = try await entry(owner: owner, id: id)
        let second = try await entry(owner: owner, id: otherID)
        var a = try first.decode(EntryData.self)
        var b = try second.decode(EntryData.self)
        for data in [a, b] where data.relations.count >= Self.maxRelations && !data.relations.contains(where: { $0.entry == otherID || $0.entry == id }) {
            throw BusError.invalid("An entry has at most \(Self.maxRelations) relations; remove one first.", field: "entry")
        }
        a.relations.removeAll { $0.entry == otherID }
        a.relations.append(Relation(kind: kind, entry: otherID))
        b.relations.removeAll { $0.entry == id }
        b.relations.append(Relation(kind: kind, entry: id))
        let result = try await store.write(WriteBatch([
            .replace(collection: C.entries, id: id, owner: owner, data: try JSONDocument(encoding: a), expectedVersion: first.version),
            .replace(collection: C.entries, id: otherID, owner: owner, data: try JSONDocument(encoding: b), expectedVersion: second.version),
        ]))
        guard let record = result.records[0] else { throw BusError(.internal, "The related entry was not returned.") }
        return record
    }

    func unrelate(owner: String, id: String, other otherID: String) async throws(BusError) -> Record {
        let first = try await entry(owner: owner, id: id)
        var a = try first.decode(EntryData.self)
        guard a.relations.contains(where: { $0.entry == otherID }) else {
            throw BusError(.notFound, "Entry '\(id)' has no relation to '\(otherID)'.", details: ["id": otherID])
        }
        a.relations.removeAll { $0.entry == otherID }
        var operations: [WriteOperation] = [
            .replace(collection: C.entries, id: id, owner: owner, data: try JSONDocument(encoding: a), expectedVersion: first.version),
        ]
        if let peer = try await unrelated(owner: owner, peer: otherID, from: id) { operations.append(peer) }
        let result = try await store.write(WriteBatch(operations))
        guard let record = result.records[0] else { throw BusError(.internal, "The entry was not returned.") }
        return record
    }

    /// The write that removes `peer`'s relation to `entry`, if `peer` exists and has one.
    private func unrelated(owner: String, peer: String, from entry: String) async throws(BusError) -> WriteOperation? {
        guard let record = try await store.get(collection: C.entries, id: peer, owner: owner) else { return nil }
        var data = try record.decode(EntryData.self)
        guard data.relations.contains(where: { $0.entry == entry }) else { return nil }
        data.relations.removeAll { $0.entry == entry }
        return .replace(collection: C.entries, id: peer, owner: owner, data: try JSONDocument(encoding: data), expectedVersion: record.version)
    }

    // MARK: Search

    /// A side task's value; it throws only bus errors, but a task's failure is `any Error`.
    private static func value<T: Sendable>(of task: Task<T, any Error>, else message: String) async throws(BusError) -> T {
        do {
            return try await task.value
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError(.unavailable, message)
        }
    }

    func search(_ request: SearchVocabulary) async throws(BusError) -> VocabularySearchResult {
        var filters: [SearchFilter] = []
        if let name = request.collection, !name.isEmpty {
            guard let collection = try await collection(owner: request.owner, named: name) else {
                throw BusError(.notFound, "No collection '\(name)'.", details: ["collection": name])
            }
            filters.append(SearchFilter("collection", .any, [collection.id]))
        }
        for (names, match) in [(request.allTags, SearchFilter.Match.all), (request.anyTags, .any), (request.noTags, .none)] where !names.isEmpty {
            var ids: [String] = []
            for name in names {
                guard let tag = try await tag(owner: request.owner, named: name) else {
                    throw BusError(.notFound, "No tag '\(name)'.", details: ["tag": name])
                }
                ids.append(tag.id)
            }
            filters.append(SearchFilter("tags", match, ids))
        }
        var after: SearchCursor?
        if let text = request.after {
            guard let cursor = try? JSONDecoder().decode(SearchCursor.self, from: Data(text.utf8)) else {
                throw BusError.invalid("The cursor is not one this list gave; start from the first page.", field: "cursor")
            }
            after = cursor
        }
        // The tag names are read beside the search (most entries have tags), not after it.
        let owner = request.owner
        let tagList = Task { () async throws(BusError) -> [Record] in try await self.tags(owner: owner) }
        defer { tagList.cancel() }
        // Collections being purged are left out. There rarely are any, so the search runs beside
        // that lookup, not after it, and runs again with them filtered out only when there are.
        let query = SearchQuery(collection: C.entries, owner: request.owner, text: request.query, filters: filters, limit: request.limit,
                                after: after)
        let purgingList = Task { () async throws(BusError) -> [String] in try await self.purgingCollections(owner: owner) }
        defer { purgingList.cancel() }
        var result = try await store.search(query)
        let purging = try await Self.value(of: purgingList, else: "The collections being deleted could not be read; try again.")
        if !purging.isEmpty {
            var filtered = query
            filtered.filters.append(SearchFilter("collection", .none, purging))
            result = try await store.search(filtered)
        }
        let entries = try result.hits.map { hit throws(BusError) in (hit, try hit.record.decode(EntryData.self)) }
        var tagNames: [String: String] = [:]
        if entries.contains(where: { !$0.1.tags.isEmpty }) {
            let list = try await Self.value(of: tagList, else: "The tag names could not be read; try again.")
            for tag in list { tagNames[tag.id] = (try? tag.decode(TagData.self))?.name }
        }
        let next = result.next.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        return VocabularySearchResult(hits: entries.map { hit, data in
            VocabularySearchResult.Hit(
                id: hit.record.id, word: data.word, definitions: data.definitions, collection: data.collection, tags: data.tags,
                tagNames: data.tags.map { tagNames[$0] ?? $0 },
                match: ["exact", "prefix", "word", "definition", "listed"][hit.tier.rawValue],
                highlights: Dictionary(hit.highlights.map { ($0.field, $0.ranges) }, uniquingKeysWith: { a, _ in a }))
        }, next: next)
    }

    // MARK: Helpers

    private func checkedTags(owner: String, _ ids: [String]) async throws(BusError) -> [String] {
        guard ids.count <= VocabularyRules.maxTags else {
            throw BusError.invalid("An entry has at most \(VocabularyRules.maxTags) tags.", field: "tags")
        }
        var unique: [String] = []
        for id in ids where !unique.contains(id) {
            guard StorageNames.isValidID(id), try await store.get(collection: C.tags, id: id, owner: owner) != nil else {
                throw BusError.invalid("There is no tag '\(id)'; create it first (POST /api/v1/vocabulary/tags).", field: "tags")
            }
            unique.append(id)
        }
        return unique
    }

    /// The owner's record, or `not_found` naming what was asked for.
    private func existing(_ collection: String, _ what: String, owner: String, id: String) async throws(BusError) -> Record {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: collection, id: id, owner: owner) else {
            // Said to a person: what is gone, never its internal id (the id is in the details).
            let thing = what == "entry" ? "word" : what
            throw BusError(.notFound, "This \(thing) is not in your vocabulary: it was deleted, maybe on another device.", details: ["id": id])
        }
        return record
    }

    /// A collection's or tag's record by id, else by its folded name.
    private func named(_ collection: String, owner: String, _ nameOrID: String) async throws(BusError) -> Record? {
        if StorageNames.isValidID(nameOrID), let record = try await store.get(collection: collection, id: nameOrID, owner: owner) {
            return record
        }
        return try await byKey(collection, owner: owner, key: SearchText.fold(nameOrID))
    }

    private func byKey(_ collection: String, owner: String, key: String) async throws(BusError) -> Record? {
        try await store.query(RecordQuery(collection: collection, owner: owner, filters: [Filter("nameKey", .eq, .string(key))],
                                          limit: 1)).records.first
    }

    /// Runs a write that may break a unique name; a clash becomes a 409 naming the existing one.
    private func unique(_ collection: String, what: String, owner: String, key: String,
                        _ body: () async throws(BusError) -> Record) async throws(BusError) -> Record {
        do {
            return try await body()
        } catch where error.code == .conflict && error.details["index"] == "name" {
            let existing = try await byKey(collection, owner: owner, key: key)
            let name = (try? existing?.data.decode(NameOnly.self).name) ?? key
            throw BusError(.conflict, "You already have a \(what) named '\(name)' (names are compared without case or accents); choose another name.",
                           details: ["conflictingName": name, "conflictingId": existing?.id ?? ""])
        }
    }

    private struct NameOnly: Decodable { var name: String }

    private func all(_ query: RecordQuery) async throws(BusError) -> [Record] {
        var records: [Record] = []
        var query = query
        repeat {
            let page = try await store.query(query)
            records += page.records
            query.cursor = page.nextCursor
        } while query.cursor != nil && records.count < 100_000
        return records
    }
}
