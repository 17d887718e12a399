public import Bus
import BusInProcess
import Synchronization

/// A bus for tests that stands in for the plugins a unit under test talks to.
///
/// Tell it which requests to expect with ``stub(_:_:)``; any other request is recorded in
/// ``unexpectedRequests``, reported to `onUnexpected` (pass `{ Issue.record($0) }` from a test) and
/// fails at the caller with ``BusError/Code/noHandler`` naming the message — never a silent default.
/// Events are delivered in-process, so subscribers under test work as usual.
public final class StubBus: ForwardingBus {
    private let inner: InProcessBus
    public var forwardee: any MessageBus { inner }
    private let unexpected = Mutex<[MessageName]>([])
    private let onUnexpected: @Sendable (String) -> Void

    /// - Parameter onUnexpected: called with a description of every request that had no stub.
    public init(onUnexpected: @escaping @Sendable (String) -> Void) {
        self.inner = InProcessBus()
        self.onUnexpected = onUnexpected
    }

    /// Names of requests that arrived without a stub, oldest first.
    public var unexpectedRequests: [MessageName] { unexpected.withLock { $0 } }

    /// Answers requests of one type with `reply`. Stubbing a type twice is refused.
    public func stub<Request: BusRequest>(
        _ type: Request.Type, _ reply: @escaping @Sendable (Request) async throws -> Request.Reply
    ) throws(BusError) {
        try inner.handle(type) { request, _ in try await reply(request) }
    }

    public func request<Request: BusRequest>(
        _ request: Request, deadline: ContinuousClock.Instant
    ) async throws(BusError) -> Request.Reply {
        do {
            return try await inner.request(request, deadline: deadline)
        } catch where error.code == .noHandler {
            unexpected.withLock { $0.append(Request.name) }
            let description = "StubBus: unexpected request '\(Request.name)' (\(request)); stub it or fix the code that sent it."
            onUnexpected(description)
            throw BusError(.noHandler, description, details: ["message": Request.name.rawValue])
        }
    }
}
