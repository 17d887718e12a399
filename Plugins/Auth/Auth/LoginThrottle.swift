import Foundation
import PluginKit

/// Counts failed sign-ins per account and per client address in a sliding window; past the limit,
/// sign-in is refused until the oldest failure leaves the window. Kept in memory: a restart forgets
/// it, which costs an attacker a restart of our server, not a bypass.
final class LoginThrottle: Sendable {
    private let accounts: SlidingWindow
    private let addresses: SlidingWindow

    init(window: Duration, perAccount: Int, perAddress: Int) {
        let seconds = Double(window.components.seconds)
        accounts = SlidingWindow(limit: perAccount, window: seconds)
        addresses = SlidingWindow(limit: perAddress, window: seconds)
    }

    /// Seconds to wait before another attempt is allowed, or nil when one is allowed now.
    func retryAfter(account: String, address: String?, now: Date) -> Int? {
        let waits = [accounts.retryAfter(account, now: now), address.flatMap { addresses.retryAfter($0, now: now) }].compactMap { $0 }
        return waits.max()
    }

    func recordFailure(account: String, address: String?, now: Date) {
        accounts.record(account, now: now)
        if let address { addresses.record(address, now: now) }
    }

    func recordSuccess(account: String) {
        accounts.reset(account)
    }
}
