import Bus
import Foundation
import GRDB
import StorageAPI
import Synchronization

/// Group commit for ``SQLiteRecordStore/write(_:)``: batches that arrive while a write transaction
/// is running wait for it, and the next transaction runs all of them, each in a savepoint of its
/// own, with one `COMMIT` — which is where SQLite writes the changed pages to the log. Each batch
/// keeps its own outcome: one that fails rolls back to its savepoint and fails alone, the others
/// commit. No batch is answered before the `COMMIT` that holds it returns, so an acknowledged write
/// is as durable as before (WAL; `synchronous=NORMAL` survives a crash of the process). If the
/// transaction itself fails, every batch in it fails and none was written.
///
/// There is no timer: the first batch to arrive leads and runs at once (alone, it is one
/// transaction as before); those that arrive meanwhile queue, and the next of them leads their
/// group when the running one ends. A create touches ~14 pages of 16 KiB (the record, its indexes,
/// the change log); 8 creates in one transaction wrote 41–46 pages, not 8 × 14. Measured under 8
/// concurrent creates: server CPU per create −5 %, creates per second +13 % (BENCHMARKS.md,
/// 2026-11-26, issue 42).
final class SQLiteWriteGroups: Sendable {
    typealias Body = @Sendable (Database) throws -> WriteResult
    typealias Outcome = Result<WriteResult, StorageError>

    /// Batches in one transaction at most, so that one group's answer is not held up long.
    static let maxGroup = 32

    private enum Turn: Sendable {
        case lead
        case done(Outcome)
    }

    private struct Waiting: Sendable {
        let body: Body
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct State: Sendable {
        var waiting: [Waiting] = []
        var leading = false
    }

    private let state = Mutex(State())

    /// Batches queued behind the running group (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` in the next group's transaction on `writer`; answers once that transaction committed.
    func write(_ body: @escaping Body, on writer: any DatabaseWriter) async throws(StorageError) -> WriteResult {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leads = state.withLock { state in
                if state.leading {
                    state.waiting.append(Waiting(body: body, continuation: continuation))
                    return false
                }
                state.leading = true
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        if case .done(let outcome) = turn { return try outcome.get() }
        let others = state.withLock { state in
            let taken = Array(state.waiting.prefix(Self.maxGroup - 1))
            state.waiting.removeFirst(taken.count)
            return taken
        }
        let outcomes = await Self.run([body] + others.map(\.body), on: writer)
        for (waiting, outcome) in zip(others, outcomes.dropFirst()) { waiting.continuation.resume(returning: .done(outcome)) }
        // The next batch waiting leads the next group (it runs its own body and takes those queued behind it).
        let next = state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else {
                state.leading = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return try outcomes[0].get()
    }

    /// One transaction on the writer's queue, not tied to any one caller's task: a cancelled
    /// request must not interrupt the others' writes in its group.
    private static func run(_ bodies: [Body], on writer: any DatabaseWriter) async -> [Outcome] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Outcome], Never>) in
            writer.asyncWriteWithoutTransaction { db in
                continuation.resume(returning: transaction(bodies, db))
            }
        }
    }

    static func transaction(_ bodies: [Body], _ db: Database) -> [Outcome] {
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(bodies.count)
        do {
            try db.inTransaction {
                if bodies.count == 1 {
                    // Alone: the transaction is the batch's, as without grouping.
                    outcomes.append(.success(try bodies[0](db)))
                    return .commit
                }
                for body in bodies {
                    do {
                        var written: WriteResult?
                        try db.inSavepoint {
                            written = try body(db)
                            return .commit
                        }
                        guard let written else { throw StorageError(.internal, "A write in a group answered nothing.") }
                        outcomes.append(.success(written))
                    } catch {
                        // SQLite ended the whole transaction (a full disk, an I/O error): the
                        // batches before this one are gone too, so all of them fail below.
                        if !db.isInsideTransaction { throw error }
                        outcomes.append(.failure(SQLiteRecordStore.map(error)))
                    }
                }
                return .commit
            }
            return outcomes
        } catch {
            let failure = SQLiteRecordStore.map(error)
            return bodies.map { _ in .failure(failure) }
        }
    }
}
