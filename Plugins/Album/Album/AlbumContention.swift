import Foundation

/// How an album write that lost a race tries again. A photo's write also changes its owner's
/// counters (its month, day, tags and place), which every other upload of theirs changes too: a
/// phone's outbox sending hundreds at once has them all take turns on the same few records, longer
/// than storage's usual 24 quick tries (on PostgreSQL 3 of 910 concurrent uploads ran out of them
/// and were refused with 409). So an album write keeps trying for up to ``patience``, each wait a
/// random time growing to a quarter of a second, so that the writers spread out; only a write that
/// loses for that long is refused.
struct AlbumRetry {
    static let patience: Duration = .seconds(30)
    static let longestWait = 250

    private let started = ContinuousClock.now
    private(set) var attempt = 0

    /// Whether to try (again): always the first time; then after a wait, while within ``patience``.
    mutating func next() async -> Bool {
        defer { attempt += 1 }
        guard attempt > 0 else { return true }
        guard ContinuousClock.now - started < Self.patience else { return false }
        let ceiling = min(1 << min(attempt, 8), Self.longestWait)
        try? await Task.sleep(for: .milliseconds(Int.random(in: 1...ceiling)))
        return !Task.isCancelled
    }
}
