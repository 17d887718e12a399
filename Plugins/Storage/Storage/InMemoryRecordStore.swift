import Bus
import Foundation
public import StorageAPI
import Synchronization

/// Records in memory, for tests and throw-away runs. Behaves exactly like the SQLite store — the
/// contract suite in `StorageTestKit` holds both to the same results, down to sort order and errors.
public final class InMemoryRecordStore: RecordStore, BlobHolds, RecordSearching, RecordSpatialIndexing, RecordUsage, ChangeLogCompacting {
    fileprivate struct Entry {
        var record: StorageAPI.Record
        var parsed: JSONValue
    }

    fileprivate struct State {
        var collections: [String: [String: Entry]] = [:]
        var schemas: [String: CollectionSchema] = [:]
        var changes: [Change] = []
        var sequence: Int64 = 0
        var horizon: Int64 = 0
        /// When each tombstone in `changes` was written, by sequence.
        var deletedAt: [Int64: Double] = [:]
        /// Per `collection/id`: the version a deleted record's tombstone carries, so an insert of
        /// the same id goes on from it.
        var tombstones: [String: Int64] = [:]
        /// Per `collection/id`: earlier versions, oldest first, with when each was superseded.
        var versions: [String: [(record: StorageAPI.Record, supersededAt: Date)]] = [:]
        var idempotency: [String: (fingerprint: String, results: String)] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func usage(owner: String) async throws(StorageError) -> (recordBytes: Int, blobs: Set<String>) {
        state.withLock { state in
            var bytes = 0
            var blobs: Set<String> = []
            for (name, entries) in state.collections {
                let fields = state.schemas[name]?.blobFields ?? []
                for entry in entries.values where entry.record.owner == owner {
                    bytes += entry.record.data.bytes.count
                    for field in fields {
                        if case .string(let sha) = entry.parsed.value(at: [Substring(field)]) { blobs.insert(sha) }
                    }
                }
            }
            return (bytes, blobs)
        }
    }

    public func declare(_ schema: CollectionSchema) async throws(StorageError) {
        try SchemaRules.validate(schema)
        try state.withLock { (state: inout State) throws(StorageError) in
            var merged = state.schemas[schema.name] ?? CollectionSchema(name: schema.name)
            for index in schema.indexes where !merged.indexes.contains(where: { $0.name == index.name }) {
                if index.unique {
                    let entries = Array((state.collections[schema.name] ?? [:]).values)
                    for (offset, entry) in entries.enumerated() {
                        if entries[(offset + 1)...].contains(where: { Self.clash(index, entry, $0) }) {
                            throw StorageError.conflict("Index '\(index.name)' on '\(schema.name)' cannot be unique: existing records share a key.")
                        }
                    }
                }
                merged.indexes.append(index)
            }
            for field in schema.blobFields where !merged.blobFields.contains(field) { merged.blobFields.append(field) }
            if let search = schema.search { merged.search = search }
            if let spatial = schema.spatial { merged.spatial = spatial }
            merged.history = schema.history
            merged.forgetsOnDelete = schema.forgetsOnDelete
            if let scope = schema.scope { merged.scope = scope }
            state.schemas[schema.name] = merged
        }
    }

    public func get(collection: String, id: String, owner: String?) async throws(StorageError) -> StorageAPI.Record? {
        state.withLock { state in
            guard let record = state.collections[collection]?[id]?.record else { return nil }
            if let owner, record.owner != owner { return nil }
            return record
        }
    }

    public func query(_ query: RecordQuery) async throws(StorageError) -> RecordPage {
        let cursor = try query.validatedCursor()
        let entries = state.withLock { Array(($0.collections[query.collection] ?? [:]).values) }
        let keyed = entries
            .filter { entry in
                (query.owner == nil || entry.record.owner == query.owner)
                    && query.filters.allSatisfy { Self.matches($0, entry) }
            }
            .map { entry in (keys: query.order.map { Self.fieldValue($0.field, entry) }, entry: entry) }
        let order = query.order
        func precedes(_ a: [JSONValue], _ aID: String, _ b: [JSONValue], _ bID: String) -> Bool {
            for (index, key) in order.enumerated() {
                switch JSONValue.compare(a[index], b[index]) {
                case .same: continue
                case .ascending: return !key.descending
                case .descending: return key.descending
                }
            }
            return aID.utf8.lexicographicallyPrecedes(bID.utf8)
        }
        var sorted = keyed.sorted { precedes($0.keys, $0.entry.record.id, $1.keys, $1.entry.record.id) }
        if let cursor {
            sorted = sorted.filter { precedes(cursor.values, cursor.id, $0.keys, $0.entry.record.id) }
        }
        let page = sorted.prefix(query.limit)
        let nextCursor = sorted.count > query.limit
            ? page.last.map { QueryCursor(values: $0.keys, id: $0.entry.record.id).encoded() } : nil
        return RecordPage(records: page.map(\.entry.record), nextCursor: nextCursor)
    }

    public func write(_ batch: WriteBatch) async throws(StorageError) -> WriteResult {
        try state.withLock { (state: inout State) throws(StorageError) -> WriteResult in
            let pipeline = try WritePipeline(batch, blobFields: state.schemas.compactMapValues { $0.blobFields.isEmpty ? nil : $0.blobFields },
                                             logs: state.schemas.compactMapValues(LogSpec.init))
            var tables = Tables(state: state, stamp: pipeline.stamp)  // applied to `state` only when every operation succeeded
            do {
                let result = try pipeline.run(on: &tables)
                state = tables.state
                return result
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError(.internal, "Unexpected storage error: \(error)")
            }
        }
    }

    public func spatialQuery(_ query: SpatialQuery) async throws(StorageError) -> SpatialResult {
        let area = try query.validatedArea()
        let (spec, entries) = state.withLock { state in
            (state.schemas[query.collection]?.spatial, Array((state.collections[query.collection] ?? [:]).values))
        }
        guard let spec else {
            throw StorageError.invalid("'\(query.collection)' has no spatial index; declare one with the collection.", field: "collection")
        }
        let candidates = entries.compactMap { entry -> (id: String, point: GeoPoint, item: StorageAPI.Record)? in
            guard query.owner == nil || entry.record.owner == query.owner, let point = SpatialRules.point(spec, entry.parsed),
                  area.boxes.contains(where: { $0.contains(point) }) else { return nil }
            return (entry.record.id, point, entry.record)
        }
        return SpatialResult(hits: SpatialRules.select(candidates, query: query, from: area.from, radius: area.radius).map {
            SpatialHit(record: $0.item, distanceMeters: $0.distance)
        })
    }

    public func search(_ query: SearchQuery) async throws(StorageError) -> SearchResult {
        let (spec, entries) = state.withLock { state in
            (state.schemas[query.collection]?.search, Array((state.collections[query.collection] ?? [:]).values))
        }
        try query.validate(against: spec)
        guard let spec else { return SearchResult(hits: []) }
        let terms = SearchText.terms(query.text)
        guard !terms.isEmpty else { return browse(query, spec: spec, entries) }
        var matches: [(tier: SearchTier, key: String, entry: Entry)] = []
        for entry in entries where entry.record.owner == query.owner {
            let held = SearchRules.filterValues(spec, entry.parsed)
            guard query.filters.allSatisfy({ $0.accepts(held[$0.field] ?? []) }),
                  let tier = SearchRules.tier(spec, entry.parsed, terms) else { continue }
            matches.append((tier, SearchRules.foldedKey(spec, entry.parsed), entry))
        }
        matches.sort { a, b in
            if a.tier != b.tier { return a.tier < b.tier }
            if a.key != b.key { return a.key.utf8.lexicographicallyPrecedes(b.key.utf8) }
            return a.entry.record.id.utf8.lexicographicallyPrecedes(b.entry.record.id.utf8)
        }
        return SearchResult(hits: matches.prefix(query.limit).map { match in
            SearchHit(record: match.entry.record, tier: match.tier,
                      highlights: SearchRules.highlights(spec, match.entry.parsed, terms))
        })
    }

    private func browse(_ query: SearchQuery, spec: SearchIndexSpec, _ entries: [Entry]) -> SearchResult {
        var rows: [(key: String, entry: Entry)] = []
        for entry in entries where entry.record.owner == query.owner {
            let held = SearchRules.filterValues(spec, entry.parsed)
            guard query.filters.allSatisfy({ $0.accepts(held[$0.field] ?? []) }) else { continue }
            let key = SearchRules.foldedKey(spec, entry.parsed)
            if let after = query.after, !after.precedes(key: key, id: entry.record.id) { continue }
            rows.append((key, entry))
        }
        rows.sort { a, b in
            if a.key != b.key { return a.key.utf8.lexicographicallyPrecedes(b.key.utf8) }
            return a.entry.record.id.utf8.lexicographicallyPrecedes(b.entry.record.id.utf8)
        }
        let page = rows.prefix(query.limit)
        let next = rows.count > query.limit ? page.last.map { SearchCursor(key: $0.key, id: $0.entry.record.id) } : nil
        return SearchResult(hits: page.map { SearchHit(record: $0.entry.record, tier: .listed, highlights: []) }, next: next)
    }

    public func heldBlobs(among blobs: Set<String>) async throws(StorageError) -> Set<String> {
        state.withLock { Self.held(among: blobs, in: $0) }
    }

    fileprivate static func held(among blobs: Set<String>, in state: State) -> Set<String> {
        var held: Set<String> = []
        guard !blobs.isEmpty else { return held }
        for (name, schema) in state.schemas where !schema.blobFields.isEmpty {
            for entry in (state.collections[name] ?? [:]).values {
                // Validated when written.
                let inRecord = (try? BlobFieldRules.blobs(in: entry.parsed, fields: schema.blobFields, collection: name)) ?? []
                held.formUnion(inRecord.intersection(blobs))
            }
        }
        return held
    }

    public func changes(_ query: ChangeQuery) async throws(StorageError) -> ChangePage {
        try query.validate()
        return state.withLock { state in
            let matching = state.changes.lazy.filter { $0.sequence > query.after && query.includes($0) }
            let page = Array(matching.prefix(query.limit + 1))
            return ChangePage(changes: Array(page.prefix(query.limit)), hasMore: page.count > query.limit, horizon: state.horizon)
        }
    }

    public func history(collection: String, id: String, owner: String) async throws(StorageError) -> [StorageAPI.Record] {
        state.withLock { state in
            (state.versions[Self.versionKey(collection, id)] ?? []).lazy.map(\.record).filter { $0.owner == owner }.reversed()
        }
    }

    public func compact(before cutoff: Date) async throws(StorageError) -> Compaction {
        state.withLock { state in
            var latest: [String: Int64] = [:]
            for change in state.changes { latest[Self.versionKey(change.collection, change.recordID)] = change.sequence }
            var superseded = 0, tombstones = 0, versions = 0
            let cutoffStamp = cutoff.timeIntervalSince1970
            state.changes.removeAll { change in
                let key = Self.versionKey(change.collection, change.recordID)
                if latest[key] != change.sequence { superseded += 1; return true }
                if change.kind == .delete, let at = state.deletedAt[change.sequence], at < cutoffStamp {
                    tombstones += 1
                    state.horizon = max(state.horizon, change.sequence)
                    state.tombstones[key] = nil
                    return true
                }
                return false
            }
            let kept = Set(state.changes.map(\.sequence))
            state.deletedAt = state.deletedAt.filter { kept.contains($0.key) }
            for (key, list) in state.versions {
                let kept = list.filter { $0.supersededAt >= cutoff }
                versions += list.count - kept.count
                state.versions[key] = kept.isEmpty ? nil : kept
            }
            return Compaction(supersededChanges: superseded, tombstones: tombstones, versions: versions, horizon: state.horizon)
        }
    }

    fileprivate static func versionKey(_ collection: String, _ id: String) -> String { "\(collection)\u{0}\(id)" }

    // MARK: Rules

    fileprivate static func key(_ claim: IdempotencyClaim) -> String {
        "\(claim.owner)\u{0}\(claim.scope)\u{0}\(claim.key)"
    }

    fileprivate static func checkUnique(_ entry: Entry, among entries: [String: Entry],
                                    schema: CollectionSchema?) throws(StorageError) {
        for index in schema?.indexes ?? [] where index.unique {
            if entries.values.contains(where: { $0.record.id != entry.record.id && clash(index, entry, $0) }) {
                throw StorageError(.conflict, "Another item already has the same unique value.",
                                   details: ["index": index.name])
            }
        }
    }

    /// Whether two records have the same key in a unique index (SQL semantics: a NULL key never clashes).
    private static func clash(_ index: IndexSpec, _ a: Entry, _ b: Entry) -> Bool {
        if index.scope == .perOwner, a.record.owner != b.record.owner { return false }
        for field in index.fields {
            let left = fieldValue(field, a), right = fieldValue(field, b)
            if left == .null || right == .null { return false }
            guard case .same = JSONValue.compare(left, right) else { return false }
        }
        return true
    }

    private static func fieldValue(_ field: String, _ entry: Entry) -> JSONValue {
        CursorKeys.value(of: field, record: entry.record, parsed: entry.parsed)
    }

    private static func matches(_ filter: Filter, _ entry: Entry) -> Bool {
        let value = fieldValue(filter.field, entry)
        func same(_ other: JSONValue) -> Bool {
            if case .same = JSONValue.compare(value, other) { return true }
            return false
        }
        switch filter.op {
        case .eq: return same(filter.value)
        case .ne: return !same(filter.value)
        case .lt, .lte, .gt, .gte:
            guard value != .null, filter.value != .null else { return false }
            let result = JSONValue.compare(value, filter.value)
            switch (filter.op, result) {
            case (.lt, .ascending), (.lte, .ascending), (.lte, .same), (.gt, .descending), (.gte, .descending), (.gte, .same):
                return true
            default:
                return false
            }
        case .in:
            guard value != .null, case .array(let options) = filter.value else { return false }
            return options.contains(where: same)
        case .prefix:
            guard case .string(let text) = value, case .string(let prefix) = filter.value else { return false }
            return text.unicodeScalars.starts(with: prefix.unicodeScalars)
        case .contains:
            // The raw array (`fieldValue` gives arrays as their JSON text, as SQLite compares them).
            guard case .array(let items) = entry.parsed.value(at: filter.field.split(separator: ".")) else { return false }
            return items.contains { item in
                if case .same = JSONValue.compare(item, filter.value) { return true }
                return false
            }
        }
    }
}

extension InMemoryRecordStore {
    /// The pipeline's table operations on a draft of the store's state.
    fileprivate struct Tables: WriteTables {
        var state: State
        let stamp: Double

        func claimed(_ claim: IdempotencyClaim) -> (fingerprint: String, results: String)? {
            state.idempotency[InMemoryRecordStore.key(claim)]
        }

        func records(_ keys: [RecordKey?]) -> [StorageAPI.Record?] {
            keys.map { key in key.flatMap { state.collections[$0.collection]?[$0.id]?.record } }
        }

        func rows(_ keys: [RecordKey]) -> [RecordKey: StorageAPI.Record] {
            var rows: [RecordKey: StorageAPI.Record] = [:]
            for key in keys { rows[key] = state.collections[key.collection]?[key.id]?.record }
            return rows
        }

        func tombstones(_ keys: [RecordKey]) -> [RecordKey: Int64] {
            var found: [RecordKey: Int64] = [:]
            for key in keys { found[key] = state.tombstones[InMemoryRecordStore.versionKey(key.collection, key.id)] }
            return found
        }

        mutating func apply(_ step: WriteStep) throws {
            switch step {
            case .insert(let record, _):
                guard state.collections[record.collection]?[record.id] == nil else {
                    throw RecordRules.duplicateID(collection: record.collection, id: record.id)
                }
                try put(record)
            case .replace(let record, _):
                try put(record)
            case .delete(let previous, _):
                state.collections[previous.collection]?[previous.id] = nil
            case .keepVersion(let previous, let at):
                state.versions[InMemoryRecordStore.versionKey(previous.collection, previous.id), default: []]
                    .append((previous, Date(timeIntervalSince1970: at)))
            case .forgetVersions(let key):
                state.versions[InMemoryRecordStore.versionKey(key.collection, key.id)] = nil
            }
        }

        private mutating func put(_ record: StorageAPI.Record) throws(StorageError) {
            let entry = Entry(record: record, parsed: try record.data.parsed())
            let entries = state.collections[record.collection] ?? [:]
            try InMemoryRecordStore.checkUnique(entry, among: entries, schema: state.schemas[record.collection])
            state.collections[record.collection, default: [:]][record.id] = entry
        }

        func held(among blobs: Set<String>) -> Set<String> {
            InMemoryRecordStore.held(among: blobs, in: state)
        }

        mutating func claim(_ claim: IdempotencyClaim, results: String) {
            state.idempotency[InMemoryRecordStore.key(claim)] = (claim.fingerprint, results)
        }

        mutating func append(_ changes: [Change]) -> [LogMove] {
            let numbered = changes.map { change in
                var change = change
                state.sequence += 1
                change.sequence = state.sequence
                // The tombstone index follows the log: a delete's change carries the version an
                // insert of the same id goes on from; an insert takes it up again.
                let key = InMemoryRecordStore.versionKey(change.collection, change.recordID)
                switch change.kind {
                case .delete:
                    state.deletedAt[change.sequence] = stamp
                    state.tombstones[key] = change.version
                case .insert: state.tombstones[key] = nil
                case .replace: break
                }
                return change
            }
            state.changes += numbered
            return LogMove.of(numbered)
        }
    }
}
