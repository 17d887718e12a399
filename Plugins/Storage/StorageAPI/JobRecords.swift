public import Bus
public import Foundation

/// A plugin's background jobs' records (its imports'): one record a job, in a collection of the
/// plugin's with its `state` field indexed. The record's `updatedAt`, which the store stamps, is
/// the job's heartbeat: a job that has not written its record for a while belongs to a process
/// that stopped.
public struct JobRecords<Job: Codable & Sendable>: Sendable {
    public let store: any RecordStore
    public let collection: String
    /// The `state` value of a job that has not ended (queued or running).
    public let unfinished: String

    public init(store: any RecordStore, collection: String, unfinished: String = "running") {
        self.store = store
        self.collection = collection
        self.unfinished = unfinished
    }

    /// Writes a job's record: inserts it when `new`, else replaces it.
    public func save(_ job: Job, id: String, owner: String, new: Bool) async throws(BusError) {
        if new {
            _ = try await store.insert(job, into: collection, id: id, owner: owner)
        } else {
            _ = try await store.replace(job, in: collection, id: id, owner: owner)
        }
    }

    /// One of the owner's jobs.
    /// - Throws: `not_found` for an id that is not one of theirs.
    public func get(id: String, owner: String) async throws(BusError) -> Job {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: collection, id: id, owner: owner) else {
            throw BusError(.notFound, "No import job '\(id)'.", details: ["id": id])
        }
        return try record.decode(Job.self)
    }

    /// Everyone's jobs in one state, the newest first (at most `limit`), for the server's operator.
    public func list(state: String, limit: Int = 200) async throws(BusError) -> [(owner: String, job: Job)] {
        let page = try await store.query(RecordQuery(collection: collection, owner: nil, filters: [Filter("state", .eq, .string(state))], limit: 1000))
        return try page.records.sorted { $0.createdAt > $1.createdAt }.prefix(limit).map { record throws(BusError) in
            (owner: record.owner, job: try record.decode(Job.self))
        }
    }

    /// The jobs that have not ended and whose record was last written more than `seconds` ago, by
    /// the store's time.
    public func silent(for seconds: TimeInterval) async throws(BusError) -> [(owner: String, job: Job)] {
        let page = try await store.query(RecordQuery(collection: collection, owner: nil,
                                                     filters: [Filter("state", .eq, .string(unfinished))], limit: 1000))
        let stale = StoreTime.now().addingTimeInterval(-seconds)
        return try page.records.filter { $0.updatedAt < stale }.map { record throws(BusError) in (owner: record.owner, job: try record.decode(Job.self)) }
    }
}
