import Bus
import Foundation
import ServiceLifecycle

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

/// Applies other nodes' auth events here.
struct AuthPeerListener: Service {
    let accounts: AccountService
    let ended: EventSubscription<AuthPeers.SessionsEnded>
    let failed: EventSubscription<AuthPeers.SignInFailed>
    let succeeded: EventSubscription<AuthPeers.SignInSucceeded>
    let connectivity: EventSubscription<BusConnectivity>

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in ended.cancelOnGracefulShutdown() where event.node != ThisNode.id {
                    accounts.verified.clear()
                }
            }
            group.addTask {
                for await event in failed.cancelOnGracefulShutdown() where event.node != ThisNode.id {
                    accounts.throttle.recordFailure(account: event.account, address: event.address, now: event.at)
                }
            }
            group.addTask {
                for await event in succeeded.cancelOnGracefulShutdown() where event.node != ThisNode.id {
                    accounts.throttle.recordSuccess(account: event.account)
                }
            }
            group.addTask {
                // Sessions other nodes ended while the bus was away were never heard of: forget them all.
                for await _ in connectivity.cancelOnGracefulShutdown() {
                    accounts.verified.clear()
                }
            }
        }
    }
}
