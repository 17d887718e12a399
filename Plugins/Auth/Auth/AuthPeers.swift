import Bus
import Foundation

/// What one node's auth tells the others, so that a cluster behaves as one server: a session that
/// ends anywhere stops working everywhere at once, and failed sign-ins count against one limit
/// whichever node they reached. Each event names the node that sent it; that node has applied it already.
enum AuthPeers {

    /// A session ended (signed out, revoked, its refresh token reused): drop remembered access tokens.
    struct SessionsEnded: BusEvent {
        static let name: MessageName = "auth.sessions.ended.v1"
        var node: String
    }

    /// A sign-in failed for `account` (the name as typed, lowercased) from `address`.
    struct SignInFailed: BusEvent {
        static let name: MessageName = "auth.sign-in.failed.v1"
        var node: String
        var account: String
        var address: String?
        /// Wall-clock time, which two machines share (never a process's monotonic clock).
        var at: Date
    }

    /// A sign-in succeeded: the account's failures are forgiven.
    struct SignInSucceeded: BusEvent {
        static let name: MessageName = "auth.sign-in.succeeded.v1"
        var node: String
        var account: String
    }
}

/// Applies other nodes' auth events here, as they arrive (observed, not subscribed): a session ended
/// on another node is forgotten here before a request made after its end is answered.
enum AuthPeerListener {
    static func observe(_ accounts: AccountService, on bus: any MessageBus) -> [HandlerRegistration] {
        [
            bus.observe(AuthPeers.SessionsEnded.self) { event in
                if event.node != ThisNode.id { accounts.verified.clear() }
            },
            bus.observe(AuthPeers.SignInFailed.self) { event in
                guard event.node != ThisNode.id else { return }
                accounts.throttle.recordFailure(account: event.account, address: event.address, now: event.at)
            },
            bus.observe(AuthPeers.SignInSucceeded.self) { event in
                if event.node != ThisNode.id { accounts.throttle.recordSuccess(account: event.account) }
            },
            // Sessions other nodes ended while the bus was away were never heard of: forget them all.
            bus.observe(BusConnectivity.self) { _ in accounts.verified.clear() },
        ]
    }
}
