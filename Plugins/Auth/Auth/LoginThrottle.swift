import Foundation
import Synchronization

/// Counts failed sign-ins per account and per client address in a sliding window; past the limit,
/// sign-in is refused until the oldest failure leaves the window. Kept in memory: a restart forgets
/// it, which costs an attacker a restart of our server, not a bypass.
final class LoginThrottle: Sendable {
    private let window: TimeInterval
    private let perAccount: Int
    private let perAddress: Int
    private let failures = Mutex<[String: [Date]]>([:])

    init(window: Duration, perAccount: Int, perAddress: Int) {
        self.window = Double(window.components.seconds)
        self.perAccount = perAccount
        self.perAddress = perAddress
    }

    /// Seconds to wait before another attempt is allowed, or nil when one is allowed now.
    func retryAfter(account: String, address: String?, now: Date = Date()) -> Int? {
        failures.withLock { failures in
            let keys = [("account:" + account, perAccount)] + (address.map { [("address:" + $0, perAddress)] } ?? [])
            var wait: TimeInterval = 0
            for (key, limit) in keys {
                let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
                failures[key] = recent.isEmpty ? nil : recent
                if recent.count >= limit, let oldest = recent.first {
                    wait = max(wait, window - now.timeIntervalSince(oldest))
                }
            }
            return wait > 0 ? Int(wait.rounded(.up)) : nil
        }
    }

    func recordFailure(account: String, address: String?, now: Date = Date()) {
        failures.withLock { failures in
            failures["account:" + account, default: []].append(now)
            if let address { failures["address:" + address, default: []].append(now) }
            // Bound memory under a spray of usernames: drop the stalest keys.
            if failures.count > 100_000 {
                let stale = failures.filter { now.timeIntervalSince($0.value.last ?? now) >= window }.map(\.key)
                for key in stale { failures[key] = nil }
            }
        }
    }

    func recordSuccess(account: String) {
        _ = failures.withLock { $0.removeValue(forKey: "account:" + account) }
    }
}
