import Bus
import Foundation
import Logging
import PostgresNIO
import StorageAPI

/// A batch of inserts (a create, an import's page) written in one statement: one round trip, no
/// BEGIN or COMMIT of its own (a single statement is its own transaction). The pipeline decides
/// everything as for any batch (``WritePipeline``, on ``OneStatementTables``); the statement then
/// checks what the pipeline assumed — no idempotency claim with this key yet, no tombstone for a
/// chosen id — and writes the idempotency claim, the records and the change log only if both
/// hold. When they do not, or the batch is anything else, the write goes the usual way, in a
/// transaction of several statements, which decides it as before (a replay, a version going on
/// from a tombstone, a duplicate id).
extension PostgresRecordStore {
    /// Whether `batch` can be written in one statement: inserts only, into collections without a
    /// search or spatial index (those write rows of their own after the records).
    static func oneStatement(_ batch: WriteBatch, known: Collections) -> Bool {
        batch.operations.allSatisfy { operation in
            guard case .insert(let collection, _, _, _) = operation else { return false }
            return known.search[collection] == nil && known.spatial[collection] == nil
        }
    }

    /// The batch in one statement; nil when it must go the usual way (nothing was written then).
    func writeInOneStatement(_ batch: WriteBatch, known: Collections) async throws(StorageError) -> WriteResult? {
        let pipeline = try WritePipeline(batch, blobFields: known.blobFields, logs: known.logs)
        let logger = self.logger
        do {
            return try await leasing { connection -> WriteResult? in
                var tables = OneStatementTables(connection: connection, logger: logger, batch: batch, stamp: pipeline.stamp)
                do {
                    return try await pipeline.run(on: &tables)
                } catch is OneStatementTables.Declined {
                    return nil
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                    if error.serverInfo?[.constraintName] == "idempotency_pkey" {
                        throw StorageError(.conflict, "The same request is being written by another node.", details: ["reason": "idempotency_race"])
                    }
                    // A duplicate id or unique value: the usual way names it as the contract says.
                    return nil
                } catch let error as StorageError where error.code != .unavailable {
                    // A rule refused the batch: the usual way decides it in its own order (a replay first).
                    return nil
                }
            }
        } catch {
            throw map(error, uniqueViolation: nil)
        }
    }

    /// The pipeline's table calls gathered for one statement, sent at the last call (``append(_:)``).
    struct OneStatementTables: AsyncWriteTables {
        /// Something this batch needs that the one statement does not do; nothing was written.
        struct Declined: Error {}

        let connection: PostgresConnection
        let logger: Logger
        let batch: WriteBatch
        let stamp: Double
        var inserts: [StorageAPI.Record] = []
        var claim: (claim: IdempotencyClaim, results: String)?

        /// Assumed unused; the statement checks it.
        func claimed(_ claim: IdempotencyClaim) async throws -> (fingerprint: String, results: String)? { nil }

        func records(_ keys: [RecordKey?]) async throws -> [StorageAPI.Record?] { throw Declined() }

        func rows(_ keys: [RecordKey]) async throws -> [RecordKey: StorageAPI.Record] {
            guard keys.isEmpty else { throw Declined() }
            return [:]
        }

        /// Assumed none; the statement checks it.
        func tombstones(_ keys: [RecordKey]) async throws -> [RecordKey: Int64] { [:] }

        mutating func apply(_ step: WriteStep) async throws {
            guard case .insert(let record, _) = step else { throw Declined() }
            inserts.append(record)
        }

        func held(among blobs: Set<String>) async throws -> Set<String> {
            guard blobs.isEmpty else { throw Declined() }
            return []
        }

        mutating func claim(_ claim: IdempotencyClaim, results: String) async throws {
            self.claim = (claim, results)
        }

        /// The statement: the checks, then the counter, the claim, the records and the changes under
        /// the next sequences. Every write reads the counter's row (`FROM taken`), so none happens
        /// when a check fails or the counter is missing; the row stays locked to the commit.
        func append(_ changes: [Change]) async throws -> [LogMove] {
            guard !changes.isEmpty, !inserts.isEmpty else { throw Declined() }
            var statement = Statement()
            let at = statement.bind(stamp)
            let chosen = Set(batch.operations.compactMap { operation -> String? in
                guard case .insert(let collection, let id?, _, _) = operation else { return nil }
                return collection + "\u{0}" + id
            })
            let chosenRecords = inserts.filter { chosen.contains($0.collection + "\u{0}" + $0.id) }
            var checks = ["true"]
            if !chosenRecords.isEmpty {
                // A chosen id whose last change is a delete goes on from that tombstone's version.
                checks.append("""
                    NOT EXISTS (SELECT 1 FROM unnest(\(statement.bindArray(chosenRecords.map(\.collection))), \(statement.bindArray(chosenRecords.map(\.id))))
                                AS t(c, i) CROSS JOIN LATERAL (SELECT kind FROM changes WHERE collection = t.c AND record_id = t.i
                                                               ORDER BY sequence DESC LIMIT 1) AS last WHERE last.kind = 'delete')
                    """)
            }
            var claimCTE = ""
            if let claim {
                let owner = statement.bind(claim.claim.owner), scope = statement.bind(claim.claim.scope), key = statement.bind(claim.claim.key)
                checks.append("NOT EXISTS (SELECT 1 FROM idempotency WHERE owner = \(owner) AND scope = \(scope) AND key = \(key))")
                claimCTE = """
                    claimed AS (INSERT INTO idempotency (owner, scope, key, fingerprint, results, created_at)
                                SELECT \(owner), \(scope), \(key), \(statement.bind(claim.claim.fingerprint)), \(statement.bind(claim.results)), \(at)
                                FROM taken),
                    """
            }
            let records = [statement.bindArray(inserts.map(\.collection)), statement.bindArray(inserts.map(\.id)),
                           statement.bindArray(inserts.map(\.owner)), statement.bindArray(inserts.map { String($0.version) }),
                           statement.bindArray(inserts.map { String(decoding: $0.data.bytes, as: UTF8.self) })]
            let count = statement.bind(Int64(changes.count))
            let log = [statement.bindArray(changes.map(\.owner)), statement.bindArray(changes.map(\.collection)),
                       statement.bindArray(changes.map(\.recordID)), statement.bindArray(changes.map(\.kind.rawValue)),
                       statement.bindArray(changes.map { String($0.version) }),
                       // A change without a scope: its flag is false (arrays of text hold no NULL here).
                       statement.bindArray(changes.map { $0.scope ?? "" }), statement.bindArray(changes.map { $0.scope == nil ? "f" : "t" })]
            statement.append("""
                WITH fresh AS (SELECT \(checks.joined(separator: " AND ")) AS ok),
                taken AS (UPDATE log_meta SET value = value + \(count) WHERE key = 'sequence' AND (SELECT ok FROM fresh) RETURNING value),
                \(claimCTE)
                written AS (INSERT INTO records (collection, id, owner, version, created_at, updated_at, data)
                            SELECT c, i, o, v::bigint, \(at), \(at), d::jsonb FROM taken, unnest(\(records.joined(separator: ", "))) AS u(c, i, o, v, d))
                INSERT INTO changes (sequence, owner, collection, record_id, kind, version, scope, at)
                SELECT taken.value - \(count) + n, o, c, r, k, v::bigint, CASE WHEN h::boolean THEN s END, \(at)
                FROM taken, unnest(\(log.joined(separator: ", "))) WITH ORDINALITY AS u(o, c, r, k, v, s, h, n)
                RETURNING sequence
                """)
            var sequences: [Int64] = []
            for try await sequence in try await connection.query(statement.query, logger: logger).decode(Int64.self) {
                sequences.append(sequence)
            }
            // No rows: a check failed and nothing was written (or the counter is missing, which the usual way reports).
            guard sequences.count == changes.count, let last = sequences.max() else { throw Declined() }
            return LogMove.of(changes.enumerated().map { offset, change in
                var change = change
                change.sequence = last - Int64(changes.count) + 1 + Int64(offset)
                return change
            })
        }
    }
}
