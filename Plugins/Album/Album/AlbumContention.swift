import Bus
import StorageAPI

/// How an album write that lost a race tries again. A photo's write also changes its owner's
/// counters (its month, day, tags and place), which every other upload of theirs changes too: a
/// phone's outbox sending hundreds at once has them all take turns on the same few records, longer
/// than storage's usual 24 quick tries (on PostgreSQL 3 of 910 concurrent uploads ran out of them
/// and were refused with 409). So an album write keeps trying for up to ``patience``, each wait a
/// random time growing to a quarter of a second, so that the writers spread out; only a write that
/// loses for that long is refused.
enum AlbumRetry {
    static let patience: Duration = .seconds(30)
    static let longestWait = 250
    static let policy = RetryPolicy.patient(patience, longestWait: longestWait)
    /// What an album write reads again for: another writer's version or insert got there first.
    static let lost: Set<BusError.Code> = [.conflict, .preconditionFailed]
}
