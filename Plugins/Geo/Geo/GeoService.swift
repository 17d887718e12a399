import Bus
import Crypto
import Foundation
import GeoAPI
import StorageAPI
import Synchronization

/// Geotags, one spatial collection per subject kind (`geo.k.<kind>`), and place names.
struct GeoService: Sendable {
    static let kindsCollection = "geo.kinds"

    let store: BusRecordStore
    let bus: any MessageBus
    let gazetteer: Gazetteer
    /// Kinds whose collection is declared; every kind ever used is also a record in `geo.kinds`.
    let kinds = KindSet()

    static func collection(_ kind: String) -> String { "geo.k." + kind }

    static func schema(_ kind: String) -> CollectionSchema {
        CollectionSchema(name: collection(kind), spatial: SpatialIndexSpec(latitude: "latitude", longitude: "longitude"))
    }

    /// Declares the collections of the kinds used before: at start, or, when storage did not answer
    /// then (a database down while the server starts), by `KindLoader` and before the first search
    /// of every kind, so such a search never answers from a partial set.
    func loadKinds() async throws(StorageError) {
        try await store.declare(CollectionSchema(name: Self.kindsCollection))
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.kindsCollection, owner: nil, limit: RecordQuery.maxLimit, cursor: cursor))
            for record in page.records where Geotag.isValidKind(record.id) {
                try await store.declare(Self.schema(record.id))
                kinds.withLock { _ = $0.insert(record.id) }
            }
            cursor = page.nextCursor
        } while cursor != nil
        kinds.markLoaded()
    }

    private func ensure(kind: String) async throws(StorageError) {
        if kinds.withLock({ $0.contains(kind) }) { return }
        try await store.declare(Self.schema(kind))
        do {
            _ = try await store.insert(["kind": kind], into: Self.kindsCollection, id: kind, owner: "geo")
        } catch where error.code == .conflict {
            // Declared by a concurrent first use.
        }
        kinds.withLock { _ = $0.insert(kind) }
        // The other nodes of a cluster loaded their kinds at start: they learn this one now.
        await bus.publish(GeoKindAdded(kind: kind))
    }

    /// Whether geotags of `kind` exist anywhere: known here, or first used by another node (its
    /// record in `geo.kinds`; its event may not have arrived yet).
    func isKnown(_ kind: String) async throws(StorageError) -> Bool {
        if kinds.withLock({ $0.contains(kind) }) { return true }
        guard try await store.get(collection: Self.kindsCollection, id: kind, owner: "geo") != nil else { return false }
        try await learn(kind)
        return true
    }

    /// A kind another node first used: its collection is declared here too.
    func learn(_ kind: String) async throws(StorageError) {
        guard Geotag.isValidKind(kind), !kinds.withLock({ $0.contains(kind) }) else { return }
        try await store.declare(Self.schema(kind))
        kinds.withLock { _ = $0.insert(kind) }
    }

    /// One record per owner and subject: its id is a hash of both.
    static func recordID(owner: String, subject: String) -> String {
        SHA256.hash(data: Data("\(owner)\u{0}\(subject)".utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    func set(owner: String, _ geotag: Geotag) async throws(BusError) -> Geotag {
        try geotag.validate()
        guard let kind = Geotag.kind(of: geotag.subject) else { throw BusError.invalid("A geotag's subject is 'kind/id'.", field: "subject") }
        try await ensure(kind: kind)
        let collection = Self.collection(kind)
        let id = Self.recordID(owner: owner, subject: geotag.subject)
        return try await store.update(collection: collection, id: id, owner: owner,
                               gaveUp: BusError(.conflict, "The geotag of '\(geotag.subject)' kept changing while it was set; try again.")) {
            existing throws(BusError) in
            // Set concurrently (inserted by another first): read again.
            try await .write(retryingOn: [.conflict]) { () async throws(BusError) in
                if let existing {
                    _ = try await store.replace(geotag, in: collection, id: id, owner: owner, expectedVersion: existing.version)
                } else {
                    _ = try await store.insert(geotag, into: collection, id: id, owner: owner)
                }
                await bus.publish(GeotagSet(owner: owner, geotag: geotag))
                return geotag
            }
        }
    }

    /// Many geotags in one batch per kind; a subject given twice keeps the last.
    func set(owner: String, many geotags: [Geotag]) async throws(BusError) -> Int {
        guard geotags.count <= WriteBatch.maxOperations else {
            throw BusError.invalid("At most \(WriteBatch.maxOperations) geotags at once.", field: "geotags")
        }
        var byKind: [String: [String: Geotag]] = [:]
        for geotag in geotags {
            try geotag.validate()
            guard let kind = Geotag.kind(of: geotag.subject) else { continue }
            byKind[kind, default: [:]][geotag.subject] = geotag
        }
        for (kind, tags) in byKind.sorted(by: { $0.key < $1.key }) {
            try await ensure(kind: kind)
            let collection = Self.collection(kind)
            var operations: [WriteOperation] = []
            for (subject, geotag) in tags.sorted(by: { $0.key < $1.key }) {
                let id = Self.recordID(owner: owner, subject: subject)
                let data = try JSONDocument(encoding: geotag)
                if let existing = try await store.get(collection: collection, id: id, owner: owner) {
                    operations.append(.replace(collection: collection, id: id, owner: owner, data: data, expectedVersion: existing.version))
                } else {
                    operations.append(.insert(collection: collection, id: id, owner: owner, data: data))
                }
            }
            _ = try await store.write(WriteBatch(operations))
            for geotag in tags.values { await bus.publish(GeotagSet(owner: owner, geotag: geotag)) }
        }
        return byKind.values.reduce(0) { $0 + $1.count }
    }

    func get(owner: String, subject: String) async throws(BusError) -> Geotag? {
        guard let kind = Geotag.kind(of: subject), try await isKnown(kind) else { return nil }
        let record = try await store.get(collection: Self.collection(kind), id: Self.recordID(owner: owner, subject: subject), owner: owner)
        return try record?.decode(Geotag.self)
    }

    func remove(owner: String, subject: String) async throws(BusError) -> Bool {
        guard let kind = Geotag.kind(of: subject), try await isKnown(kind) else { return false }
        do {
            try await store.delete(from: Self.collection(kind), id: Self.recordID(owner: owner, subject: subject), owner: owner)
            return true
        } catch where error.code == .notFound {
            return false
        }
    }

    /// Removes a subject's geotags of every owner (an image whose bytes are gone); answers how many.
    func removeEverywhere(subject: String) async throws(BusError) -> Int {
        guard let kind = Geotag.kind(of: subject), try await isKnown(kind) else { return 0 }
        let page = try await store.query(RecordQuery(collection: Self.collection(kind), owner: nil,
                                                     filters: [Filter("subject", .eq, .string(subject))], limit: RecordQuery.maxLimit))
        guard !page.records.isEmpty else { return 0 }
        _ = try await store.write(WriteBatch(page.records.map {
            .delete(collection: Self.collection(kind), id: $0.id, owner: $0.owner, expectedVersion: nil)
        }))
        return page.records.count
    }

    func find(_ request: FindGeotags) async throws(BusError) -> [GeotagHit] {
        guard (1...SpatialQuery.maxLimit).contains(request.limit) else {
            throw BusError.invalid("limit must be between 1 and \(SpatialQuery.maxLimit).", field: "limit")
        }
        try Self.validate(request.area)
        let searched: [String]
        if let kind = request.kind {
            guard Geotag.isValidKind(kind) else { throw BusError.invalid("'\(kind)' is not a subject kind.", field: "kind") }
            searched = try await isKnown(kind) ? [kind] : []
        } else {
            if !kinds.isLoaded { try await loadKinds() }
            searched = kinds.withLock { $0.sorted() }
        }
        switch request.area {
        case .within(let latitude, let longitude, let radius):
            return try await query(searched, owner: request.owner, limit: request.limit) { collection in
                .within(radius, of: GeoPoint(latitude: latitude, longitude: longitude), collection: collection, owner: request.owner,
                        limit: request.limit)
            }
        case .box(let south, let west, let north, let east):
            return try await query(searched, owner: request.owner, limit: request.limit) { collection in
                .inside(GeoBox(south: south, west: west, north: north, east: east), collection: collection, owner: request.owner,
                        limit: request.limit)
            }
        case .nearest(let latitude, let longitude):
            // Circles growing fourfold from 1 km until enough are found or the circle is the whole Earth.
            var radius = 1_000.0
            while true {
                let hits = try await find(FindGeotags(owner: request.owner, area: .within(latitude: latitude, longitude: longitude,
                                                                                         radiusMeters: radius),
                                                      kind: request.kind, limit: request.limit))
                if hits.count >= request.limit || radius >= SpatialRules.halfCircumference { return hits }
                radius = min(radius * 4, SpatialRules.halfCircumference)
            }
        }
    }

    /// Checks an area the way storage would, so that a bad one is refused even when no geotag exists yet.
    static func validate(_ area: FindGeotags.Area) throws(BusError) {
        let probe: SpatialQuery
        switch area {
        case .within(let latitude, let longitude, let radius):
            probe = .within(radius, of: GeoPoint(latitude: latitude, longitude: longitude), collection: "geo.probe", owner: nil)
        case .box(let south, let west, let north, let east):
            probe = .inside(GeoBox(south: south, west: west, north: north, east: east), collection: "geo.probe", owner: nil)
        case .nearest(let latitude, let longitude):
            probe = .within(0, of: GeoPoint(latitude: latitude, longitude: longitude), collection: "geo.probe", owner: nil)
        }
        _ = try probe.validatedArea()
    }

    private func query(_ kinds: [String], owner: String?, limit: Int,
                       _ make: (String) -> SpatialQuery) async throws(BusError) -> [GeotagHit] {
        var hits: [GeotagHit] = []
        for kind in kinds {
            let result = try await store.spatialQuery(make(Self.collection(kind)))
            for hit in result.hits {
                hits.append(GeotagHit(owner: hit.record.owner, geotag: try Self.geotag(hit.record), distanceMeters: hit.distanceMeters))
            }
        }
        if kinds.count > 1 {
            hits.sort { $0.distanceMeters != $1.distanceMeters ? $0.distanceMeters < $1.distanceMeters : $0.geotag.subject < $1.geotag.subject }
        }
        return Array(hits.prefix(limit))
    }

    /// A stored geotag, read with storage's own JSON parser: a query answers up to a thousand, and
    /// Foundation's decoder took most of a query's time.
    static func geotag(_ record: Record) throws(BusError) -> Geotag {
        guard case .object(let fields) = try record.data.parsed(), case .string(let subject)? = fields["subject"],
              case .number(let latitude)? = fields["latitude"], case .number(let longitude)? = fields["longitude"] else {
            throw BusError(.internal, "The geotag record '\(record.id)' is damaged.")
        }
        func number(_ key: String) -> Double? { if case .number(let value)? = fields[key] { value } else { nil } }
        var source = "user"
        if case .string(let value)? = fields["source"] { source = value }
        return Geotag(subject: subject, latitude: latitude, longitude: longitude, accuracy: number("accuracy"), altitude: number("altitude"),
                      source: source)
    }

    func place(latitude: Double, longitude: Double) throws(BusError) -> Place {
        let point = GeoPoint(latitude: latitude, longitude: longitude)
        guard point.isValid else {
            throw BusError.invalid("A latitude is −90…90 and a longitude −180…180 degrees.", field: "latitude")
        }
        guard let place = gazetteer.place(at: point) else {
            throw BusError(.unavailable, "The gazetteer is empty; restore Plugins/Geo/Geo/Resources/gazetteer.tsv.")
        }
        return place
    }
}

/// A subject kind's first geotag anywhere (its collection now exists).
struct GeoKindAdded: BusEvent {
    static let name: MessageName = "geo.kind.added.v1"
    var kind: String
}

/// The subject kinds whose collections are declared.
final class KindSet: Sendable {
    private let kinds = Mutex<Set<String>>([])
    private let loaded = Mutex(false)
    func withLock<T>(_ body: (inout Set<String>) -> T) -> T { kinds.withLock { body(&$0) } }
    /// Whether every kind used before is in the set (storage answered `loadKinds` once).
    var isLoaded: Bool { loaded.withLock { $0 } }
    func markLoaded() { loaded.withLock { $0 = true } }
}
