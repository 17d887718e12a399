import Bus
import Foundation
import HTTPKit
import SeededRandom
import StorageAPI

/// Which photos: tags to include (any or all of them) and to exclude, a time range (to the minute),
/// a place folder.
struct PhotoFilter: Sendable, Equatable {
    var include: [String] = []
    var exclude: [String] = []
    var matchAll = false
    /// Sort-key bounds, from ``TakenTime/lowerBound(_:)`` and ``TakenTime/upperBound(_:)``.
    var from: String?
    var to: String?
    var placeKey: String?
}

/// A photo as a list shows it.
struct Thumbnail: Sendable, Equatable {
    var id: String
    var takenAt: String
    var tags: [String]
    var image: String
    var sortKey: String
}

/// Reads a query page by page, one record at a time.
struct RecordStream {
    let store: BusRecordStore
    var query: RecordQuery
    private var buffer: [Record] = []
    private var position = 0
    private var exhausted = false

    init(store: BusRecordStore, query: RecordQuery) {
        self.store = store
        self.query = query
    }

    mutating func next() async throws(BusError) -> Record? {
        if position == buffer.count {
            guard !exhausted else { return nil }
            let page = try await store.query(query)
            buffer = page.records
            position = 0
            query.cursor = page.nextCursor
            exhausted = page.nextCursor == nil
            // Later pages are read in bigger steps: a filter that skips many needs them.
            query.limit = min(RecordQuery.maxLimit, query.limit * 4)
            if buffer.isEmpty { return nil }
        }
        defer { position += 1 }
        return buffer[position]
    }
}

extension AlbumService {
    /// One page of photos in time order, after `cursor` (the last sort key of the previous page).
    func list(owner: String, filter: PhotoFilter, descending: Bool, limit: Int, cursor: String?) async throws(BusError)
        -> (items: [Thumbnail], next: String?) {
        let after = try cursor.map { text throws(BusError) in try Self.decodeCursor(text) }
        var bounds: [Filter] = []
        if let from = filter.from { bounds.append(Filter("sortKey", .gte, .string(from))) }
        if let to = filter.to { bounds.append(Filter("sortKey", .lte, .string(to))) }
        if let after { bounds.append(Filter("sortKey", descending ? .lt : .gt, .string(after))) }
        let excluded = Set(filter.exclude)
        let step = min(RecordQuery.maxLimit, limit + 1 + excluded.count * 4)
        var items: [Thumbnail] = []

        if filter.include.isEmpty {
            var filters = bounds
            if let place = filter.placeKey { filters.insert(Filter("placeKey", .eq, .string(place)), at: 0) }
            var stream = RecordStream(store: store, query: RecordQuery(collection: Self.photos, owner: owner, filters: filters,
                                                                       order: [SortKey("sortKey", descending: descending)], limit: step))
            while items.count <= limit, let record = try await stream.next() {
                let photo = try record.decode(PhotoData.self)
                if !excluded.isDisjoint(with: photo.tags.map(TagRules.key)) { continue }
                items.append(Thumbnail(id: record.id, takenAt: photo.takenAt, tags: photo.tags, image: photo.image, sortKey: photo.sortKey))
            }
        } else {
            // One stream per tag searched, merged in time order; a photo under two included tags
            // comes once. "All of them": only the rarest tag's stream, each posting checked.
            var walked = filter.include
            if filter.matchAll, filter.include.count > 1 { walked = [try await rarest(owner: owner, filter.include)] }
            var streams = walked.map { tag in
                RecordStream(store: store, query: RecordQuery(collection: Self.tagged, owner: owner, filters: [Filter("tag", .eq, .string(tag))] + bounds,
                                                              order: [SortKey("sortKey", descending: descending)], limit: step))
            }
            var heads: [Posting?] = []
            for index in streams.indices { heads.append(try await streams[index].next()?.decode(Posting.self)) }
            var last: String?
            while items.count <= limit {
                var best: Int?
                for (index, head) in heads.enumerated() {
                    guard let head else { continue }
                    if let current = best, let chosen = heads[current] {
                        if descending ? head.sortKey > chosen.sortKey : head.sortKey < chosen.sortKey { best = index }
                    } else {
                        best = index
                    }
                }
                guard let index = best, let posting = heads[index] else { break }
                heads[index] = try await streams[index].next()?.decode(Posting.self)
                if posting.sortKey == last { continue }
                last = posting.sortKey
                let keys = Set(posting.tags.map(TagRules.key))
                if !excluded.isDisjoint(with: keys) { continue }
                if filter.matchAll, !filter.include.allSatisfy(keys.contains) { continue }
                if let place = filter.placeKey, posting.placeKey != place { continue }
                items.append(Thumbnail(id: posting.photo, takenAt: posting.takenAt, tags: posting.tags, image: posting.image, sortKey: posting.sortKey))
            }
        }
        guard items.count > limit else { return (items, nil) }
        items.removeLast()
        return (items, items.last.map { Self.encodeCursor($0.sortKey) })
    }

    /// The tag with the fewest photos.
    private func rarest(owner: String, _ tags: [String]) async throws(BusError) -> String {
        var best: (tag: String, count: Int)?
        for tag in tags {
            let count = try await store.get(collection: Self.counts, id: Counter.id(owner: owner, .tag, tag), owner: owner)?.decode(Counter.self).count ?? 0
            if best == nil || count < (best?.count ?? 0) { best = (tag, count) }
        }
        return best?.tag ?? tags[0]
    }

    static func encodeCursor(_ sortKey: String) -> String { OpaqueCursor.encode(sortKey) }

    static func decodeCursor(_ text: String) throws(BusError) -> String {
        guard let key = OpaqueCursor.decode(text, maxLength: 400), key.contains("|") else {
            throw BusError.invalid("The cursor is not one this API returned; start from the first page.", field: "cursor")
        }
        return key
    }

    /// Counters of one kind: tags and places by how many photos they hold, months and days newest first.
    func counters(owner: String, kind: Counter.Kind, limit: Int, cursor: String? = nil) async throws(BusError) -> (items: [Counter], next: String?) {
        let order = kind == .tag || kind == .place ? [SortKey("count", descending: true), SortKey("key")] : [SortKey("key", descending: true)]
        let page = try await store.query(RecordQuery(collection: Self.counts, owner: owner, filters: [Filter("kind", .eq, .string(kind.rawValue))],
                                                     order: order, limit: limit, cursor: cursor))
        return (try page.records.map { record throws(BusError) in try record.decode(Counter.self) }, page.nextCursor)
    }

    /// Every photo of a search once, in an order shuffled by `seed` (the same seed, the same order:
    /// a slideshow pages through one order).
    func slideshow(owner: String, filter: PhotoFilter, seed: UInt64) async throws(BusError) -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try await list(owner: owner, filter: filter, descending: false, limit: RecordQuery.maxLimit - 1, cursor: cursor)
            ids += page.items.map(\.id)
            cursor = page.next
        } while cursor != nil
        var generator = SplitMix64(seed: seed)
        ids.shuffle(using: &generator)
        return ids
    }
}
