import Bus
import NIOCore
import StorageAPI
import Synchronization

/// Rendered list pages per owner, so that a list read again before any change is answered with the
/// bytes already built.
///
/// Correctness rests on three rules:
/// - Every write to an owner's notes through this process's `NotesService` calls ``invalidate(_:)``
///   before and after the write (whatever its outcome).
/// - A write anywhere else (another node of a cluster, a tool) reaches ``NoteListInvalidator``
///   as storage's `RecordsChanged` event, over the bus, and invalidates the owner here too. Storage
///   settles the event before it answers the writer, and a cached page is served only after the
///   bus has caught up with the request's arrival: so a write acknowledged anywhere is seen.
/// - A page is stored only if no invalidation happened between reading the owner's generation and
///   storing (compare-and-set), so a page read while a write was in flight is never cached.
final class NoteListCache: Sendable {
    struct PageKey: Hashable, Sendable {
        var limit: Int
        var cursor: String?
    }

    private struct OwnerPages {
        var generation: UInt64 = 0
        var pages: [PageKey: ByteBuffer] = [:]
    }

    /// What a page was read under: the owner's count of changes, and the whole cache's count of
    /// clearings (an owner never seen before has no count of its own to bump).
    struct Generation: Equatable, Sendable {
        var epoch: UInt64
        var owner: UInt64
    }

    private struct State {
        /// While the bus is away other nodes' changes do not arrive: no page is served or kept.
        var suspended = false
        /// Bumped by ``invalidateAll(suspended:)``.
        var epoch: UInt64 = 0
        var owners: [String: OwnerPages] = [:]
        /// Owners with pages, oldest first, for eviction.
        var order: [String] = []
        var bytes = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    /// - Parameter capacity: bytes of pages kept in all; 0 turns the cache off.
    init(capacity: Int) {
        self.capacity = capacity
    }

    var isEnabled: Bool { capacity > 0 }

    /// The owner's generation, to pass to ``store(_:owner:key:generation:)``.
    func generation(_ owner: String) -> Generation {
        state.withLock { Generation(epoch: $0.epoch, owner: $0.owners[owner]?.generation ?? 0) }
    }

    func page(owner: String, key: PageKey) -> ByteBuffer? {
        guard isEnabled else { return nil }
        return state.withLock { $0.suspended ? nil : $0.owners[owner]?.pages[key] }
    }

    /// Keeps a page, unless the owner's notes changed since `generation` was read.
    func store(_ page: ByteBuffer, owner: String, key: PageKey, generation: Generation) {
        guard isEnabled, page.readableBytes <= capacity / 4 else { return }
        state.withLock { state in
            guard !state.suspended, state.epoch == generation.epoch, (state.owners[owner]?.generation ?? 0) == generation.owner else { return }
            if state.owners[owner]?.pages.isEmpty ?? true { state.order.append(owner) }
            let old = state.owners[owner, default: OwnerPages(generation: generation.owner)].pages.updateValue(page, forKey: key)
            state.bytes += page.readableBytes - (old?.readableBytes ?? 0)
            while state.bytes > capacity, !state.order.isEmpty {
                let evicted = state.order.removeFirst()
                state.bytes -= state.owners[evicted]?.pages.values.reduce(0) { $0 + $1.readableBytes } ?? 0
                state.owners[evicted]?.pages.removeAll()
            }
        }
    }

    /// Forgets the owner's pages and bumps the generation.
    func invalidate(_ owner: String) {
        state.withLock { state in
            var entry = state.owners[owner] ?? OwnerPages()
            state.bytes -= entry.pages.values.reduce(0) { $0 + $1.readableBytes }
            if !entry.pages.isEmpty { state.order.removeAll { $0 == owner } }
            entry.pages.removeAll()
            entry.generation &+= 1
            state.owners[owner] = entry
        }
    }

    /// Forgets every page and bumps every generation (events were lost: any owner may have changed);
    /// `suspended` stops serving and keeping pages until it is called again with false.
    func invalidateAll(suspended: Bool? = nil) {
        state.withLock { state in
            if let suspended { state.suspended = suspended }
            state.epoch &+= 1
            for owner in state.owners.keys { state.owners[owner]?.pages.removeAll() }
            state.order.removeAll()
            state.bytes = 0
        }
    }

    var storedBytes: Int { state.withLock { $0.bytes } }
}

/// Drops an owner's cached pages when storage reports a change to their notes, wherever it was
/// written: on a cluster the event comes over the bus from the node that wrote. Observed, not
/// subscribed: the pages are gone by the time `catchUp` returns for a request that arrived after
/// the write was acknowledged, so a list read on one node right after a write on another is fresh.
enum NoteListInvalidator {
    static func observe(_ lists: NoteListCache, on bus: any MessageBus) -> [HandlerRegistration] {
        [
            bus.observe(RecordsChanged.self) { event in
                for move in event.moved where move.collections.contains(NotesService.collection) {
                    lists.invalidate(move.owner)
                }
            },
            // The bus lost: other nodes' changes stop arriving, so the cache stops; back: it starts empty.
            bus.observe(BusConnectivity.self) { change in
                lists.invalidateAll(suspended: !change.connected)
            },
        ]
    }
}
