import Bus
import Crypto
import Foundation
import Logging
import NotesAPI
import OrderKeys
import PluginKit
import StorageAPI
import Synchronization

/// Keeping a user's order keys short (see `OrderKey`).
///
/// Appends count, so keys grow with the logarithm of a list's size; what still makes keys long is a
/// crowded stretch: many moves into one gap, or keys stored before appends counted (one character
/// more every 61 notes). A write that leaves a key longer than `OrderKey.rebalanceLength` asks for
/// the stretch around it to be respaced in the background (``NoteRespacer``); a write that finds no
/// room at all (the 512-character cap, two notes with one key) respaces first and then writes.
///
/// Respacing is safe beside other writers:
/// - Moves and respacing both write the owner's *order guard* (`notes.order`, one record per owner)
///   with the version they read it at, so a move and a respacing that overlap cannot both commit:
///   the later one reads again (a move) or plans again (a respacing).
/// - Creates and imports only ever append after the last key they read; a respacing gives every
///   note a key below the stretch's upper neighbour, and at the end of the list below the last
///   note's key as read — so a note appended meanwhile still sorts last.
/// - Each note is rewritten with its current payload and version (an edit in between makes that
///   batch read again, never lost), in batches of 100, and every batch leaves the list in order:
///   notes whose key goes down are written first to last, then notes whose key goes up last to first.
extension NotesService {
    static let orderCollection = "notes.order"
    static let orderSchema = CollectionSchema(name: orderCollection, indexes: [])
    /// The most notes one respacing rewrites (it holds their ids and keys, not their texts).
    static let maxRespaced = 200_000
    static let respaceBatch = 100
    /// A stretch is widened until its new keys are at most this long (or it is the whole list).
    static let respacedLength = 12

    /// What the order guard holds: how many order changes it has seen.
    struct OrderGuard: Codable {
        var changes: Int64
    }

    static func orderGuardID(_ owner: String) -> String {
        "og_" + SHA256.hash(data: Data(owner.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The version of the owner's order guard (nil: never written).
    func orderGuardVersion(_ owner: String) async throws(BusError) -> Int64? {
        try await store.get(collection: Self.orderCollection, id: Self.orderGuardID(owner), owner: owner)?.version
    }

    /// The write that claims the order guard at `version`: it fails if another move or respacing
    /// wrote it since.
    func orderGuardWrite(_ owner: String, at version: Int64?) throws(BusError) -> WriteOperation {
        let data = try JSONDocument(encoding: OrderGuard(changes: (version ?? 0) + 1))
        if let version {
            return .replace(collection: Self.orderCollection, id: Self.orderGuardID(owner), owner: owner, data: data, expectedVersion: version)
        }
        return .insert(collection: Self.orderCollection, id: Self.orderGuardID(owner), owner: owner, data: data)
    }

    /// The error when the order keys at the end of a list ran out even after respacing (not
    /// expected: respacing gives short keys).
    static func noRoom(_ what: String) -> BusError {
        BusError(.conflict, "There is no room for \(what) in the list's order, even after respacing it; try again in a moment.",
                 details: ["reason": "order_keys_exhausted"])
    }

    /// The key after the owner's last note: appended after it, respacing the end of the list first
    /// when its keys ran out. Nil `last`: an empty list.
    func keysAfterLast(owner: String, count: Int) async throws(BusError) -> [String] {
        for attempt in 0..<2 {
            let last = try await lastPosition(owner: owner)
            if let keys = OrderKey.keys(after: last, count: count) { return keys }
            guard attempt == 0, let last else { break }
            _ = try await respace(owner: owner, around: last)
        }
        throw Self.noRoom(count == 1 ? "a new note" : "\(count) new notes")
    }

    /// The key for a new note after the owner's last: from memory when it is known (the bus caught
    /// up with this request first, so another node's write acknowledged before it has had its say),
    /// else read from storage and kept (see ``NoteLastPositions``).
    func nextPosition(owner: String, token: String) async throws(BusError) -> String {
        if await bus.cached({ positions.isKnown(owner) ? true : nil }) != nil,
           let key = positions.reserve(owner: owner, token: token) { return key }
        let generation = positions.generation(owner)
        let last = try await lastPosition(owner: owner)
        if let key = positions.fill(owner: owner, last: last, generation: generation, token: token) { return key }
        // Changed while it was read (not kept: the key after what was read, as before), or no room.
        if let key = OrderKey.keys(after: last, count: 1)?.first { return key }
        guard let key = try await keysAfterLast(owner: owner, count: 1).first else { throw Self.noRoom("a new note") }
        return key
    }

    /// The key of the owner's last note, nil when there is none.
    func lastPosition(owner: String) async throws(BusError) -> String? {
        let last = try await store.query(RecordQuery(collection: Self.collection, owner: owner,
                                                     order: [SortKey("position", descending: true)], limit: 1))
        return try last.records.first.map { record throws(BusError) in
            // Storage's one-pass parser, not Foundation's decoder of the whole note: once per create.
            if case .object(let members) = try record.data.parsed(), case .string(let position)? = members["position"] { return position }
            return try record.decode(NoteData.self).position
        }
    }

    /// Asks for a respacing in the background when any of `keys` is long.
    func respaceIfLong(owner: String, _ keys: [String]) {
        guard let long = keys.first(where: { $0.utf8.count > OrderKey.rebalanceLength }) else { return }
        respacer.schedule(self, owner: owner, around: long)
    }

    // MARK: Respacing

    /// Respaces the stretch of the owner's list around `key` (a key, present or not): widened until
    /// its new keys are short, then rewritten in batches. Returns how many notes were rewritten.
    @discardableResult
    func respace(owner: String, around key: String) async throws(BusError) -> Int {
        for _ in 0..<Self.maxRetries {
            do {
                return try await respaceOnce(owner: owner, around: key)
            } catch where error.code == .conflict || error.code == .preconditionFailed {
                continue  // the order changed meanwhile (a move, another respacing): plan again
            }
        }
        throw BusError(.conflict, "The list kept changing while it was being respaced; it is respaced again at the next crowded write.",
                       details: ["reason": "respace_contended"])
    }

    private struct Planned {
        var ids: [String]
        var old: [String]
        var new: [String]
    }

    private func respaceOnce(owner: String, around key: String) async throws(BusError) -> Int {
        let guardVersion = try await orderGuardVersion(owner)
        guard let plan = try await plan(owner: owner, around: key) else { return 0 }
        // Every prefix of this order leaves the list sorted: keys going down first to last, then
        // keys going up last to first.
        var downs: [Int] = []
        var ups: [Int] = []
        for index in plan.ids.indices where plan.old[index] != plan.new[index] {
            if OrderKey.precedes(plan.new[index], plan.old[index]) { downs.append(index) } else { ups.append(index) }
        }
        let sequence = downs + ups.reversed()
        var version = guardVersion
        var start = 0
        while start < sequence.count {
            let chunk = sequence[start..<min(start + Self.respaceBatch, sequence.count)]
            version = try await rewrite(owner: owner, chunk.map { (plan.ids[$0], plan.old[$0], plan.new[$0]) }, guardVersion: version)
            start += chunk.count
        }
        return sequence.count
    }

    /// The stretch around `key` and its new keys: 32 notes either side, four times more each round
    /// until the new keys are short or the stretch is the whole list. Nil when nothing would get shorter.
    private func plan(owner: String, around key: String) async throws(BusError) -> Planned? {
        var reach = 32
        var best: Planned?
        while true {
            let lower = try await boundary(owner: owner, from: key, before: true, reach: reach)
            let upper = try await boundary(owner: owner, from: key, before: false, reach: reach)
            guard let found = try await stretch(owner: owner, after: lower, before: upper) else { break }
            let (ids, old) = found
            guard let last = old.last else { return nil }
            // At the end of the list, stay below the last key: appends go after it meanwhile.
            if let new = OrderKey.keys(between: lower, upper ?? last, count: ids.count) {
                let longestOld = old.map(\.utf8.count).max() ?? 0
                let longestNew = new.map(\.utf8.count).max() ?? 0
                if longestNew < longestOld || old.count != Set(old).count {
                    best = Planned(ids: ids, old: old, new: new)
                    // The boundaries keep their keys: a long one (a note moved there while an earlier
                    // respacing ran) would stay long, with no write left to ask again, so the stretch
                    // widens past it.
                    let boundariesShort = [lower, upper].allSatisfy { ($0?.utf8.count ?? 0) <= OrderKey.rebalanceLength }
                    if longestNew <= Self.respacedLength && boundariesShort { break }
                }
            }
            if lower == nil && upper == nil { break }
            reach *= 4
        }
        return best
    }

    /// The key `reach` notes before (or after) `key`, nil when the list ends sooner.
    private func boundary(owner: String, from key: String, before: Bool, reach: Int) async throws(BusError) -> String? {
        var remaining = reach
        var cursor: String?
        var found: String?
        while remaining > 0 {
            let page = try await store.query(RecordQuery(collection: Self.collection, owner: owner,
                                                         filters: [Filter("position", before ? .lt : .gt, .string(key))],
                                                         order: [SortKey("position", descending: before)],
                                                         limit: min(remaining, RecordQuery.maxLimit), cursor: cursor))
            guard let last = page.records.last else { return nil }
            found = try last.decode(NoteData.self).position
            remaining -= page.records.count
            if remaining > 0 && page.nextCursor == nil { return nil }
            cursor = page.nextCursor
        }
        return found
    }

    /// The ids and keys of the notes strictly between two keys, in order; nil past ``maxRespaced``.
    private func stretch(owner: String, after lower: String?, before upper: String?) async throws(BusError) -> ([String], [String])? {
        var filters: [Filter] = []
        if let lower { filters.append(Filter("position", .gt, .string(lower))) }
        if let upper { filters.append(Filter("position", .lt, .string(upper))) }
        var ids: [String] = []
        var keys: [String] = []
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.collection, owner: owner, filters: filters,
                                                         order: [SortKey("position")], limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records {
                ids.append(record.id)
                keys.append(try record.decode(NoteData.self).position)
            }
            if ids.count > Self.maxRespaced { return nil }
            cursor = page.nextCursor
        } while cursor != nil
        return (ids, keys)
    }

    /// Writes one batch of new keys with the order guard; returns the guard's new version. A note
    /// edited meanwhile makes the batch read again; a note moved or the guard taken aborts the run.
    private func rewrite(owner: String, _ notes: [(id: String, old: String, new: String)], guardVersion: Int64?) async throws(BusError) -> Int64? {
        for _ in 0..<Self.maxRetries {
            var operations: [WriteOperation] = []
            for note in notes {
                guard let record = try await store.get(collection: Self.collection, id: note.id, owner: owner) else { continue }
                var data = try record.decode(NoteData.self)
                guard data.position == note.old else {
                    throw BusError(.conflict, "Note '\(note.id)' moved while its list was being respaced.")
                }
                data.position = note.new
                operations.append(.replace(collection: Self.collection, id: note.id, owner: owner,
                                           data: try JSONDocument(encoding: data), expectedVersion: record.version))
            }
            guard !operations.isEmpty else { return guardVersion }
            operations.append(try orderGuardWrite(owner, at: guardVersion))
            let batch = WriteBatch(operations)
            do {
                let result = try await writing(owner) { () async throws(BusError) in try await store.write(batch) }
                let records = result.records.compactMap { $0 }
                for record in records where record.collection == Self.collection {
                    await bus.publish(NoteChanged(owner: owner, noteID: record.id, kind: .moved, version: record.version))
                }
                return records.last { $0.collection == Self.orderCollection }?.version
            } catch where error.code == .preconditionFailed || error.code == .conflict {
                // An edit of one of these notes (read them again), or another order change (start over).
                guard try await orderGuardVersion(owner) == guardVersion else { throw error }
            }
        }
        throw BusError(.conflict, "Notes kept changing while their list was being respaced.")
    }
}

/// Runs respacings in the background: at most one at a time per user on this node. A write that
/// asks while one runs is remembered, and its stretch respaced when the running one ends.
final class NoteRespacer: Sendable {
    let background: BackgroundWork
    let logger: Logger
    /// Owners being respaced, with the key a later write asked about meanwhile.
    private let running = Mutex<[String: String?]>([:])

    init(background: BackgroundWork, logger: Logger) {
        self.background = background
        self.logger = logger
    }

    func schedule(_ service: NotesService, owner: String, around key: String) {
        let start = running.withLock { running -> Bool in
            if running[owner] != nil {
                running[owner] = .some(key)
                return false
            }
            running[owner] = .some(nil)
            return true
        }
        guard start else { return }
        let started = background.start { [self] in
            var key = key
            while true {
                do throws(BusError) {
                    let rewritten = try await service.respace(owner: owner, around: key)
                    if rewritten > 0 { logger.info("notes: respaced a crowded stretch of a list", metadata: ["notes": "\(rewritten)"]) }
                } catch {
                    logger.warning("notes: respacing a list failed; it is tried again at its next crowded write",
                                   metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
                }
                let next = running.withLock { running -> String? in
                    guard case .some(.some(let next)) = running[owner] else {
                        running[owner] = nil
                        return nil
                    }
                    running[owner] = .some(nil)
                    return next
                }
                guard let next else { return }
                key = next
            }
        }
        if !started { running.withLock { _ = $0.removeValue(forKey: owner) } }
    }

    /// Whether a respacing of the owner's list is running on this node.
    func isRunning(_ owner: String) -> Bool { running.withLock { $0[owner] != nil } }
}
