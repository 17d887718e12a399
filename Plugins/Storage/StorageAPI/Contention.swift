/// How a read-modify-write that lost to another writer tries again: optimistic writes (an expected
/// version, counters read and summed) retry up to ``attempts`` times with a random wait that grows,
/// so racing writers spread out and take turns instead of colliding again at once. Eight writers on
/// one user's counters lost eight immediate retries in a row on CI's loaded two-core machine.
public enum Contention {
    /// Tries in all, the first included.
    public static let attempts = 24

    /// Waits before try `attempt` (0 is the first, which does not wait): a random 1 ms up to 2, 4,
    /// … 64 ms.
    public static func backOff(before attempt: Int) async {
        guard attempt > 0 else { return }
        let ceiling = 1 << min(attempt, 6)
        try? await Task.sleep(for: .milliseconds(Int.random(in: 1...ceiling)))
    }
}
