import AuthAPI
import Synchronization

/// Remembers access tokens that passed the full check (signature, expiry, live session) for a
/// short while, so that a burst of requests with one token costs one check.
///
/// Why: the session lookup behind every request was a third of the CPU of a small list request
/// (BENCHMARKS.md). The price is bounded and documented: a session ended in this process (sign-out,
/// rotation reuse, revocation through the bus) is forgotten here at once; one revoked by another
/// process (`quire-auth`) stops working within `lifetime`. A token's own expiry is always checked.
final class VerifiedTokenCache: Sendable {
    private struct Entry {
        var session: VerifiedSession
        var checkedAt: ContinuousClock.Instant
        var expiresAt: ContinuousClock.Instant
    }

    private let lifetime: Duration
    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(lifetime: Duration = .seconds(1), capacity: Int = 20_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func lookup(_ token: String, now: ContinuousClock.Instant = .now) -> VerifiedSession? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard now - entry.checkedAt < lifetime, now < entry.expiresAt else {
                entries[token] = nil
                return nil
            }
            return entry.session
        }
    }

    func remember(_ token: String, _ session: VerifiedSession, tokenLifetime: Duration, now: ContinuousClock.Instant = .now) {
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { now - $0.value.checkedAt < lifetime }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = Entry(session: session, checkedAt: now, expiresAt: now + tokenLifetime)
        }
    }

    /// Forgets everything: called whenever a session ends in this process.
    func clear() {
        entries.withLock { $0.removeAll(keepingCapacity: true) }
    }
}
