import Bus
import Foundation

/// Where a record is: its collection and id.
package struct RecordKey: Hashable, Sendable {
    package var collection: String
    package var id: String

    package init(_ collection: String, _ id: String) {
        self.collection = collection
        self.id = id
    }
}

/// One call the pipeline makes on a backend's tables, in batch order.
package enum WriteStep: Sendable {
    /// Adds the row (its version already goes on from the id's tombstone, if any). `position` is
    /// the operation's place in the batch, for the backend's own indexes (search, spatial).
    case insert(Record, position: Int)
    /// Writes the row's new version over the old.
    case replace(Record, position: Int)
    /// Removes the row; `previous` is the row as it was.
    case delete(previous: Record, position: Int)
    /// Keeps `previous` as an earlier version (collections with history), superseded at `at`.
    case keepVersion(previous: Record, at: Double)
    /// Drops every earlier version of the record (collections that forget on delete).
    case forgetVersions(RecordKey)
}

/// The table operations a backend supplies, all within the one transaction its write runs in;
/// ``WritePipeline`` decides everything else. Synchronous, for backends whose transaction is a
/// closure on one thread (SQLite through GRDB, memory under a lock); ``AsyncWriteTables`` is the
/// same for a backend that talks to a server.
package protocol WriteTables {
    /// The stored claim's fingerprint and results, if the key was used before.
    mutating func claimed(_ claim: IdempotencyClaim) throws -> (fingerprint: String, results: String)?
    /// The records a replayed batch wrote (nil where it wrote none or the record is gone since).
    mutating func records(_ keys: [RecordKey?]) throws -> [Record?]
    /// The current rows of `keys` that exist, whoever owns them.
    mutating func rows(_ keys: [RecordKey]) throws -> [RecordKey: Record]
    /// The version each of `keys`' tombstone carries, for the ids that were deleted last.
    mutating func tombstones(_ keys: [RecordKey]) throws -> [RecordKey: Int64]
    /// Before the first step (SQLite takes the rows that change out of its search table here).
    mutating func begin(_ plan: WritePlan) throws
    mutating func apply(_ step: WriteStep) throws
    /// After the last step (PostgreSQL writes its pending run of inserts here).
    mutating func end() throws
    /// Those of `blobs` that some record still names.
    mutating func held(among blobs: Set<String>) throws -> Set<String>
    mutating func claim(_ claim: IdempotencyClaim, results: String) throws
    /// Appends the batch's changes under the next sequences (last: PostgreSQL's counter row stays
    /// locked until the commit); answers whose logs moved.
    mutating func append(_ changes: [Change]) throws -> [LogMove]
}

/// ``WriteTables`` for a backend whose statements are awaited (PostgreSQL).
package protocol AsyncWriteTables {
    mutating func claimed(_ claim: IdempotencyClaim) async throws -> (fingerprint: String, results: String)?
    mutating func records(_ keys: [RecordKey?]) async throws -> [Record?]
    mutating func rows(_ keys: [RecordKey]) async throws -> [RecordKey: Record]
    mutating func tombstones(_ keys: [RecordKey]) async throws -> [RecordKey: Int64]
    mutating func begin(_ plan: WritePlan) async throws
    mutating func apply(_ step: WriteStep) async throws
    mutating func end() async throws
    mutating func held(among blobs: Set<String>) async throws -> Set<String>
    mutating func claim(_ claim: IdempotencyClaim, results: String) async throws
    mutating func append(_ changes: [Change]) async throws -> [LogMove]
}

extension WriteTables {
    package mutating func begin(_ plan: WritePlan) throws {}
    package mutating func end() throws {}
}

extension AsyncWriteTables {
    package mutating func begin(_ plan: WritePlan) async throws {}
    package mutating func end() async throws {}
}

/// What a batch does, decided before any row is written.
package struct WritePlan: Sendable {
    /// The table calls, in order.
    package var steps: [WriteStep] = []
    /// The change log's new entries, in batch order (sequence 0 until appended).
    package var changes: [Change] = []
    /// The blobs the batch's records named before it (released unless still held).
    package var letGo: Set<String> = []
    /// What the write answers, one per operation.
    package var records: [Record?] = []
}

/// The one write pipeline every backend runs: idempotency replay, the rules of insert, replace and
/// delete (owners, expected versions, versions going on from a tombstone, earlier versions kept or
/// forgotten), blob fields checked and let go, the change log's entries and the idempotency claim.
/// A backend supplies only its table operations (``WriteTables``), so a rule is written once.
package struct WritePipeline: Sendable {
    package let batch: WriteBatch
    /// The batch's time: every row it writes and every change it logs carries it.
    package let stamp: Double
    private let blobFields: [String: [String]]
    private let logs: [String: LogSpec]
    /// The id each insert writes (a chosen one, or one made here).
    private let ids: [String]

    /// - Throws: `invalid` for a batch the contract refuses (see ``WriteBatch/validate()``).
    package init(_ batch: WriteBatch, blobFields: [String: [String]], logs: [String: LogSpec],
                 stamp: Double = Timestamps.now()) throws(StorageError) {
        try batch.validate()
        self.batch = batch
        self.stamp = stamp
        self.blobFields = blobFields
        self.logs = logs
        ids = batch.operations.map { $0.id ?? RecordIDs.make() }
    }

    /// Runs the batch on `tables` (inside the backend's transaction).
    package func run<Tables: WriteTables>(on tables: inout Tables) throws -> WriteResult {
        if let claim = batch.idempotency, let stored = try tables.claimed(claim) {
            return WriteResult(records: try tables.records(try replay(claim, stored)), replayed: true)
        }
        let plan = try plan(rows: try tables.rows(rowsToRead), tombstones: try tables.tombstones(tombstonesToRead))
        try tables.begin(plan)
        for step in plan.steps { try tables.apply(step) }
        try tables.end()
        let released = plan.letGo.subtracting(try tables.held(among: plan.letGo)).sorted()
        if let claim = batch.idempotency { try tables.claim(claim, results: try results(plan)) }
        return WriteResult(records: plan.records, replayed: false, releasedBlobs: released, moved: try tables.append(plan.changes))
    }

    /// ``run(on:)`` for a backend whose statements are awaited.
    package func run<Tables: AsyncWriteTables>(on tables: inout Tables) async throws -> WriteResult {
        if let claim = batch.idempotency, let stored = try await tables.claimed(claim) {
            return WriteResult(records: try await tables.records(try replay(claim, stored)), replayed: true)
        }
        let rows = try await tables.rows(rowsToRead)
        let plan = try plan(rows: rows, tombstones: try await tables.tombstones(tombstonesToRead))
        try await tables.begin(plan)
        for step in plan.steps { try await tables.apply(step) }
        try await tables.end()
        let released = plan.letGo.subtracting(try await tables.held(among: plan.letGo)).sorted()
        if let claim = batch.idempotency { try await tables.claim(claim, results: try results(plan)) }
        return WriteResult(records: plan.records, replayed: false, releasedBlobs: released, moved: try await tables.append(plan.changes))
    }

    // MARK: The rules

    /// The rows replaces and deletes are about, each once, in batch order (a backend that locks
    /// rows takes them in this order).
    var rowsToRead: [RecordKey] {
        var seen: Set<RecordKey> = []
        return batch.operations.compactMap { operation in
            if case .insert = operation { return nil }
            guard let id = operation.id else { return nil }
            let key = RecordKey(operation.collection, id)
            return seen.insert(key).inserted ? key : nil
        }
    }

    /// The ids inserts chose: an id may be a deleted record's, whose versions go on from its tombstone.
    var tombstonesToRead: [RecordKey] {
        var seen: Set<RecordKey> = []
        return batch.operations.compactMap { operation in
            guard case .insert(let collection, let chosen?, _, _) = operation else { return nil }
            let key = RecordKey(collection, chosen)
            return seen.insert(key).inserted ? key : nil
        }
    }

    /// The records an earlier batch with the same claim wrote.
    /// - Throws: `conflict` when the key was used for a different request.
    func replay(_ claim: IdempotencyClaim, _ stored: (fingerprint: String, results: String)) throws(StorageError) -> [RecordKey?] {
        guard stored.fingerprint == claim.fingerprint else { throw IdempotencyRules.mismatch(claim) }
        do {
            return try JSONDecoder().decode([RecordReference?].self, from: Data(stored.results.utf8)).map { reference in
                reference.map { RecordKey($0.collection, $0.id) }
            }
        } catch {
            throw StorageError(.internal, "An idempotency claim's stored results cannot be read: \(error)")
        }
    }

    /// What the claim remembers: where each record the batch wrote is.
    func results(_ plan: WritePlan) throws(StorageError) -> String {
        let references = zip(batch.operations, plan.records).map { operation, record in
            record.map { RecordReference(collection: operation.collection, id: $0.id) }
        }
        do {
            return String(decoding: try JSONEncoder().encode(references), as: UTF8.self)
        } catch {
            throw StorageError(.internal, "An idempotency claim's results cannot be written: \(error)")
        }
    }

    /// A row as the batch has left it so far.
    private enum Draft {
        case present(Record)
        /// Deleted, its tombstone carrying this version.
        case deleted(Int64)
    }

    /// Decides every operation in order over `rows` (as the transaction found them) and what the
    /// batch itself wrote before it.
    func plan(rows: [RecordKey: Record], tombstones: [RecordKey: Int64]) throws(StorageError) -> WritePlan {
        let now = Date(timeIntervalSince1970: stamp)
        var plan = WritePlan()
        var drafts: [RecordKey: Draft] = [:]
        func current(_ key: RecordKey) -> Record? {
            switch drafts[key] {
            case .present(let record): record
            case .deleted: nil
            case nil: rows[key]
            }
        }
        for (position, operation) in batch.operations.enumerated() {
            let collection = operation.collection, id = ids[position], owner = operation.owner
            let key = RecordKey(collection, id)
            let spec = logs[collection]
            var parsed: JSONValue?
            if let fields = blobFields[collection], !fields.isEmpty {
                if let data = operation.data {
                    let value = try data.parsed()
                    parsed = value
                    _ = try BlobFieldRules.blobs(in: value, fields: fields, collection: collection)
                }
                if let existing = current(key), existing.owner == owner {
                    plan.letGo.formUnion(try BlobFieldRules.blobs(in: try existing.data.parsed(), fields: fields, collection: collection))
                }
            }
            func scope(_ data: JSONDocument, _ known: JSONValue?) throws(StorageError) -> String? {
                guard let field = spec?.scope else { return nil }
                if let known { return ScopeRules.scope(field: field, id: id, data: known) }
                return ScopeRules.scope(field: field, id: id, data: try data.parsed())
            }
            switch operation {
            case .insert(_, let chosen, _, let data):
                var version: Int64 = 1
                if chosen != nil {
                    switch drafts[key] {
                    case .present: throw RecordRules.duplicateID(collection: collection, id: id)
                    case .deleted(let tombstone): version = tombstone + 1
                    case nil: version = (tombstones[key] ?? 0) + 1
                    }
                }
                let record = Record(collection: collection, id: id, owner: owner, version: version, createdAt: now, updatedAt: now, data: data)
                plan.steps.append(.insert(record, position: position))
                plan.changes.append(Change(sequence: 0, owner: owner, collection: collection, recordID: id, kind: .insert, version: version,
                                           scope: try scope(data, parsed)))
                drafts[key] = .present(record)
                plan.records.append(record)
            case .replace(_, _, _, let data, let expectedVersion):
                let existing = try Self.existing(current(key), key: key, owner: owner, expectedVersion: expectedVersion)
                if spec?.history == true { plan.steps.append(.keepVersion(previous: existing, at: stamp)) }
                let record = Record(collection: collection, id: id, owner: owner, version: existing.version + 1, createdAt: existing.createdAt,
                                    updatedAt: now, data: data)
                plan.steps.append(.replace(record, position: position))
                plan.changes.append(Change(sequence: 0, owner: owner, collection: collection, recordID: id, kind: .replace,
                                           version: record.version, scope: try scope(data, parsed)))
                drafts[key] = .present(record)
                plan.records.append(record)
            case .delete(_, _, _, let expectedVersion):
                let existing = try Self.existing(current(key), key: key, owner: owner, expectedVersion: expectedVersion)
                if spec?.forgetsOnDelete == true {
                    plan.steps.append(.forgetVersions(key))
                } else if spec?.history == true {
                    plan.steps.append(.keepVersion(previous: existing, at: stamp))
                }
                plan.steps.append(.delete(previous: existing, position: position))
                // The tombstone carries the next version, so an insert of the same id goes on from it.
                plan.changes.append(Change(sequence: 0, owner: owner, collection: collection, recordID: id, kind: .delete,
                                           version: existing.version + 1, scope: try scope(existing.data, nil)))
                drafts[key] = .deleted(existing.version + 1)
                plan.records.append(nil)
            }
        }
        return plan
    }

    /// The record a replace or delete is about: another owner's is not found.
    private static func existing(_ record: Record?, key: RecordKey, owner: String, expectedVersion: Int64?) throws(StorageError) -> Record {
        guard let record, record.owner == owner else { throw RecordRules.notFound(collection: key.collection, id: key.id) }
        try RecordRules.check(expectedVersion: expectedVersion, actual: record.version, id: key.id)
        return record
    }
}
