import Foundation
import Synchronization

/// At most `limit` events per key within a sliding `window` (the key: a client address). Keeps a
/// timestamp per event, at most `limit` per key, and forgets quiet keys.
final class AddressLimiter: Sendable {
    private struct State {
        var events: [String: [Date]] = [:]
        var sweeps = 0
    }

    let limit: Int
    let window: TimeInterval
    private let state = Mutex(State())

    init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Nil when `key` may have another event, else the seconds to wait; counts nothing.
    func blocked(_ key: String, now: Date = Date()) -> Int? {
        state.withLock { state in
            let recent = (state.events[key] ?? []).filter { now.timeIntervalSince($0) < window }
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// Counts one event for `key`; nil when allowed, else the seconds until one is allowed again.
    func take(_ key: String, now: Date = Date()) -> Int? {
        state.withLock { state in
            state.sweeps += 1
            if state.sweeps % 1024 == 0 { state.events = state.events.filter { $0.value.last.map { now.timeIntervalSince($0) < window } ?? false } }
            var recent = (state.events[key] ?? []).filter { now.timeIntervalSince($0) < window }
            if recent.count >= limit, let oldest = recent.first {
                state.events[key] = recent
                return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
            }
            recent.append(now)
            state.events[key] = recent
            return nil
        }
    }
}
