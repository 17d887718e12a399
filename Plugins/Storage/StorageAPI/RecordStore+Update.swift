public import Bus

/// How a read-merge-write tries again after losing a race to another writer: how many tries or
/// for how long, and how long it waits before each.
///
/// The waits are random and grow, so that racing writers spread out and take turns instead of
/// colliding again at once (see ``Contention``). Each caller keeps the bounds its data needs: a
/// note's edit tries a few times at once, a photo's write (which also changes counters that every
/// other upload of its owner changes) keeps trying for half a minute.
public struct RetryPolicy: Sendable {
    enum Bound: Sendable {
        case attempts(Int)
        case patience(Duration)
    }

    let bound: Bound
    /// The longest random wait before try `n` (1 is the second try), in milliseconds; 0: none.
    let longestWait: @Sendable (Int) -> Int

    /// Storage's usual: ``Contention/attempts`` tries, waiting a random 1 ms up to 2, 4, … 64 ms.
    public static let contention = RetryPolicy(bound: .attempts(Contention.attempts), longestWait: { 1 << min($0, 6) })

    /// Tries for up to `patience` in all, each wait a random time growing to `longestWait`
    /// milliseconds; stops early when the task is cancelled.
    public static func patient(_ patience: Duration, longestWait: Int) -> RetryPolicy {
        RetryPolicy(bound: .patience(patience), longestWait: { min(1 << min($0, 8), longestWait) })
    }

    /// `attempts` tries in all, one after the other without waiting.
    public static func immediate(attempts: Int) -> RetryPolicy {
        RetryPolicy(bound: .attempts(attempts), longestWait: { _ in 0 })
    }

    /// A write that lost to another: the record moved on (`precondition_failed`) or another writer
    /// got there first (`conflict`), but not an Idempotency-Key reused for another request, which
    /// no retry mends.
    public static func lostRace(_ error: BusError) -> Bool {
        error.code == .preconditionFailed || (error.code == .conflict && error.details["reason"] != "idempotency_key_reused")
    }

    /// Runs `body` until it is done; past the bound, throws `gaveUp()`. What `body` throws ends it.
    public func run<Value>(gaveUp: @autoclosure () -> BusError,
                           _ body: () async throws(BusError) -> UpdateStep<Value>) async throws(BusError) -> Value {
        let started = ContinuousClock.now
        var attempt = 0
        while true {
            if attempt > 0 {
                switch bound {
                case .attempts(let attempts):
                    guard attempt < attempts else { throw gaveUp() }
                case .patience(let patience):
                    guard ContinuousClock.now - started < patience else { throw gaveUp() }
                }
                let ceiling = longestWait(attempt)
                if ceiling > 0 { try? await Task.sleep(for: .milliseconds(Int.random(in: 1...ceiling))) }
                if case .patience = bound, Task.isCancelled { throw gaveUp() }
            }
            attempt += 1
            switch try await body() {
            case .done(let value): return value
            case .readAgain: continue
            }
        }
    }
}

/// What one try of a read-merge-write came to: done, or lost a race (read again and try again).
public enum UpdateStep<Value> {
    case done(Value)
    case readAgain

    /// Runs `write`: `.done` with what it answers, or `.readAgain` when it lost a race, which is an
    /// error with one of `codes`, or by default one ``RetryPolicy/lostRace(_:)`` names. Other errors
    /// are thrown, as is everything the merge before it throws (a 412 for a version too old is an
    /// answer, not a race).
    public static func write(retryingOn codes: Set<BusError.Code>? = nil,
                             _ write: () async throws(BusError) -> Value) async throws(BusError) -> UpdateStep {
        do {
            return .done(try await write())
        } catch where codes.map({ $0.contains(error.code) }) ?? RetryPolicy.lostRace(error) {
            return .readAgain
        }
    }
}

extension RecordStore {
    /// Read-merge-write: reads the record (nil when there is none) and runs `body`, which merges its
    /// change and writes through ``UpdateStep/write(retryingOn:_:)``; when that write loses a race
    /// to another writer, reads the record again and runs `body` again, waiting as `retry` says,
    /// and past its bound throws `gaveUp()`.
    ///
    /// ```swift
    /// try await store.update(collection: "notes.notes", id: id, owner: owner,
    ///                        gaveUp: BusError(.conflict, "Note '\(id)' kept changing; try again.")) { record in
    ///     guard let record else { throw noSuchNote(id) }
    ///     var data = try record.decode(NoteData.self)
    ///     data.title = title
    ///     return try await .write {
    ///         try await store.replace(data, in: "notes.notes", id: id, owner: owner, expectedVersion: record.version)
    ///     }
    /// }
    /// ```
    public func update<Value>(collection: String, id: String, owner: String, retry: RetryPolicy = .contention,
                              gaveUp: @autoclosure () -> BusError,
                              _ body: (Record?) async throws(BusError) -> UpdateStep<Value>) async throws(BusError) -> Value {
        try await retry.run(gaveUp: gaveUp()) { () async throws(BusError) -> UpdateStep<Value> in
            try await body(try await get(collection: collection, id: id, owner: owner))
        }
    }
}
