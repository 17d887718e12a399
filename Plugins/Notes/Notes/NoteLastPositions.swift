import Bus
import OrderKeys
import StorageAPI
import Synchronization

/// The key of each owner's last note, kept in memory so that a create asks storage for it only
/// the first time (issue 42: the read was a bus request and a read transaction per create).
///
/// A create takes its key here (``reserve(owner:token:)``): the key after the owner's last, which
/// becomes the last at once, so that creates running side by side get increasing keys. Correctness
/// rests on the same rules as ``NoteListCache``:
/// - Every other write to an owner's notes through this process's `NotesService` (an edit, a move,
///   a delete, an import, a respacing) forgets the owner's key before and after it runs.
/// - A write anywhere else (another node, sync, a tool) reaches ``NotePositionInvalidator`` as
///   storage's `RecordsChanged` event, settled before its writer hears back; a key is taken only
///   after the bus caught up with the request's arrival (`MessageBus.cached`). An event is ignored
///   only when its batch's `origin` is the token of one of this process's creates still running:
///   that create's own event, whose key is already counted. Any other event forgets the owner.
/// - A key read from storage is kept only if nothing was forgotten since the read began
///   (compare-and-set on the owner's generation), so a read racing a write is never kept.
/// - While the bus is away nothing is kept (other nodes' events do not arrive).
final class NoteLastPositions: Sendable {
    private struct Entry {
        /// The last key: the owner's last note's, or a key a create here took since.
        var last: String?
        /// Tokens (the new notes' ids) of the creates that took a key here and are still writing.
        var writing: Set<String> = []
    }

    private struct State {
        var suspended = false
        var epoch: UInt64 = 0
        var generations: [String: UInt64] = [:]
        var entries: [String: Entry] = [:]
    }

    /// What a read of the last key began under (see ``fill(owner:last:generation:token:)``).
    struct Generation: Equatable, Sendable {
        var epoch: UInt64
        var owner: UInt64
    }

    /// Owners kept at most; past it every entry is forgotten (they are read again, one each).
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Whether the owner's last key is known (to ask under `MessageBus.cached`).
    func isKnown(_ owner: String) -> Bool {
        state.withLock { !$0.suspended && $0.entries[owner] != nil }
    }

    func generation(_ owner: String) -> Generation {
        state.withLock { Generation(epoch: $0.epoch, owner: $0.generations[owner] ?? 0) }
    }

    /// The key after the owner's last, which becomes the last; nil when the last is not known or
    /// there is no room after it (then the caller reads storage, and respaces).
    func reserve(owner: String, token: String) -> String? {
        state.withLock { state in
            guard !state.suspended, var entry = state.entries[owner] else { return nil }
            return Self.take(&entry, owner: owner, token: token, in: &state)
        }
    }

    /// Keeps `last`, the owner's last key as read from storage, and reserves the key after it (or
    /// after a later one another create kept meanwhile). Nil when the owner changed since
    /// `generation` (nothing kept: the caller uses the key after `last`, as read) or no room.
    func fill(owner: String, last: String?, generation: Generation, token: String) -> String? {
        state.withLock { state in
            guard !state.suspended, state.epoch == generation.epoch, (state.generations[owner] ?? 0) == generation.owner else { return nil }
            if state.entries[owner] == nil, state.entries.count >= capacity { state.entries.removeAll() }
            var entry = state.entries[owner] ?? Entry(last: last)
            return Self.take(&entry, owner: owner, token: token, in: &state)
        }
    }

    private static func take(_ entry: inout Entry, owner: String, token: String, in state: inout State) -> String? {
        guard let key = OrderKey.keys(after: entry.last, count: 1)?.first else {
            state.entries[owner] = nil
            return nil
        }
        entry.last = key
        entry.writing.insert(token)
        state.entries[owner] = entry
        return key
    }

    /// The create holding `token` has its answer (whatever it was).
    func finished(owner: String, token: String) {
        state.withLock { state in
            guard state.entries[owner] != nil else { return }
            state.entries[owner]?.writing.remove(token)
        }
    }

    /// Storage says the owner's notes changed, by the batch of `origin`: forgotten unless it is the
    /// event of one of the creates that took their key here and are still writing.
    func changed(owner: String, origin: String?) {
        state.withLock { state in
            if let origin, state.entries[owner]?.writing.contains(origin) == true { return }
            Self.forget(owner, in: &state)
        }
    }

    /// Forgets the owner's last key (a write here that may have changed it).
    func invalidate(_ owner: String) {
        state.withLock { Self.forget(owner, in: &$0) }
    }

    private static func forget(_ owner: String, in state: inout State) {
        state.entries[owner] = nil
        state.generations[owner, default: 0] &+= 1
        // The generations of owners without an entry only need to outlive a read in flight.
        if state.generations.count > 2 * max(state.entries.count, 1024) {
            state.generations.removeAll()
            state.epoch &+= 1
        }
    }

    /// Forgets every key (events were lost); `suspended` stops keeping any until called with false.
    func invalidateAll(suspended: Bool? = nil) {
        state.withLock { state in
            if let suspended { state.suspended = suspended }
            state.epoch &+= 1
            state.entries.removeAll()
            state.generations.removeAll()
        }
    }
}

/// Keeps ``NoteLastPositions`` coherent with writes made elsewhere: storage's `RecordsChanged`
/// events (observed, so they have had their say by the time the bus has caught up) and the bus's
/// connectivity.
enum NotePositionInvalidator {
    static func observe(_ positions: NoteLastPositions, on bus: any MessageBus) -> [HandlerRegistration] {
        [
            bus.observe(RecordsChanged.self) { event in
                for move in event.moved where move.collections.contains(NotesService.collection) {
                    positions.changed(owner: move.owner, origin: event.origin)
                }
            },
            bus.observe(BusConnectivity.self) { change in
                positions.invalidateAll(suspended: !change.connected)
            },
        ]
    }
}
