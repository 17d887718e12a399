import Foundation
import Synchronization

/// Events per key (a client address, an account) within a sliding window: past `limit`, a key
/// waits until its oldest event leaves the window. Kept in memory (a restart forgets it); keys that
/// went quiet are dropped as the map grows.
public final class SlidingWindow: Sendable {
    public let limit: Int
    public let window: TimeInterval
    private let events = Mutex<[String: [Date]]>([:])

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until `key` may have another event, or nil when it may now. Counts nothing.
    public func retryAfter(_ key: String, now: Date) -> Int? {
        events.withLock { events in wait(key, now: now, in: &events) }
    }

    /// Counts an event for `key`.
    public func record(_ key: String, now: Date) {
        events.withLock { events in add(key, now: now, to: &events) }
    }

    /// Counts an event for `key` if it is allowed: nil, or the seconds to wait (nothing counted).
    /// The check and the count happen under one lock, so concurrent callers cannot pass the limit
    /// together.
    public func take(_ key: String, now: Date) -> Int? {
        events.withLock { events in
            if let wait = wait(key, now: now, in: &events) { return wait }
            add(key, now: now, to: &events)
            return nil
        }
    }

    private func wait(_ key: String, now: Date, in events: inout [String: [Date]]) -> Int? {
        let recent = (events[key] ?? []).filter { now.timeIntervalSince($0) < window }
        events[key] = recent.isEmpty ? nil : recent
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
    }

    private func add(_ key: String, now: Date, to events: inout [String: [Date]]) {
        events[key, default: []].append(now)
        if events[key, default: []].count > limit { events[key]?.removeFirst() }
        if events.count > 100_000 {
            events = events.filter { now.timeIntervalSince($0.value.last ?? now) < window }
        }
    }

    /// Forgets `key` (a successful sign-in clears its failures).
    public func reset(_ key: String) {
        _ = events.withLock { $0.removeValue(forKey: key) }
    }
}
