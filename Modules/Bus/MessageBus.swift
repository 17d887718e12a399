/// The one way Quire's plugins talk to each other.
///
/// Two kinds of message travel on it:
/// - an **event** (``BusEvent``) is published to any number of subscribers and gets no reply;
/// - a **request** (``BusRequest``) is answered by exactly one handler with a typed reply or a
///   ``BusError``, before a deadline.
///
/// Transports implement this protocol: `InProcessBus` passes values without encoding; a networked
/// transport encodes the same messages. Nothing above the bus changes when the transport does.
public protocol MessageBus: Sendable {
    /// Delivers `event` to every current subscriber of its type. Never waits for a subscriber:
    /// each has its own bounded buffer and overflows by its ``OverflowPolicy``.
    func publish<Event: BusEvent>(_ event: Event) async

    /// Subscribes to events of one type. Events arrive in publish order. The subscription ends when
    /// the task iterating it is cancelled or the subscription is dropped.
    func subscribe<Event: BusEvent>(
        to type: Event.Type, buffering policy: OverflowPolicy
    ) -> EventSubscription<Event>

    /// Calls `observer` with each event of one type as it arrives, in publish order, on the
    /// transport's own thread: it must be quick and must never wait (a cache forgetting a key).
    /// Nothing is buffered, so nothing is dropped, and what the observer did is done by the time a
    /// ``catchUp(since:)`` begun afterwards returns. Cancelling the registration stops it.
    @discardableResult
    func observe<Event: BusEvent>(_ type: Event.Type, _ observer: @escaping @Sendable (Event) -> Void) -> HandlerRegistration

    /// Returns once every event this process published before the call has reached the transport
    /// (for NATS: its server has read them), so that any process's ``catchUp(since:)`` begun later
    /// is handed them. A writer calls it before acknowledging a write whose event keeps other
    /// nodes' caches coherent. In one process it returns at once.
    /// - Throws: ``BusError/Code/unavailable`` when the transport cannot be reached (the events wait
    ///   to go out on reconnect).
    func settle() async throws(BusError)

    /// Returns once this process has been handed every event that another process settled
    /// (``settle()``) before `instant`: subscriptions hold them and observers have run. A reader calls
    /// it before trusting what events keep coherent (a cached page) for a request that arrived at
    /// `instant`. Calls for the same moment share one round trip. In one process it returns at once.
    /// - Throws: ``BusError/Code/unavailable`` when the transport cannot be reached: then events
    ///   may be missing, and the caller reads the source of truth instead.
    func catchUp(since instant: ContinuousClock.Instant) async throws(BusError)

    /// Registers the one handler for a request type.
    /// - Throws: ``BusError/Code/duplicateHandler`` when the name already has a handler.
    @discardableResult
    func handle<Request: BusRequest>(
        _ type: Request.Type, _ handler: @escaping RequestHandler<Request>
    ) throws(BusError) -> HandlerRegistration

    /// Sends a request to its handler and waits for the reply until `deadline`.
    /// - Throws: the handler's ``BusError``; ``BusError/Code/noHandler`` at once when nobody
    ///   handles the name; ``BusError/Code/deadlineExceeded`` when the reply is late.
    func request<Request: BusRequest>(
        _ request: Request, deadline: ContinuousClock.Instant
    ) async throws(BusError) -> Request.Reply
}

/// A request handler. It may throw any error: a ``BusError`` reaches the caller as it is, anything
/// else is reported as ``BusError/Code/internal`` without its details (which may hold secrets).
public typealias RequestHandler<Request: BusRequest> =
    @Sendable (Request, BusRequestContext) async throws -> Request.Reply

/// What a handler knows about the request it answers.
public struct BusRequestContext: Sendable {
    /// The name the request travelled under.
    public var name: MessageName
    /// When the caller stops waiting; long work should check it.
    public var deadline: ContinuousClock.Instant

    public init(name: MessageName, deadline: ContinuousClock.Instant) {
        self.name = name
        self.deadline = deadline
    }
}

/// What happens when a subscriber's buffer is full and another event arrives. Either way the
/// publisher is never blocked and the loss is counted in ``EventSubscription/droppedCount``.
public struct OverflowPolicy: Sendable, Equatable {
    public enum Drop: Sendable, Equatable {
        /// Drop the oldest buffered event to make room: the subscriber sees the latest state.
        case oldest
        /// Drop the event being published: the subscriber sees an unbroken prefix.
        case newest
    }

    public var capacity: Int
    public var drop: Drop

    public init(capacity: Int, drop: Drop) {
        self.capacity = max(1, capacity)
        self.drop = drop
    }

    /// 1,024 events, dropping the oldest.
    public static let `default` = OverflowPolicy(capacity: 1024, drop: .oldest)

    /// The `AsyncStream` buffering that keeps this policy (for transports).
    public func streamBuffering<Element>(of _: Element.Type) -> AsyncStream<Element>.Continuation.BufferingPolicy {
        switch drop {
        case .oldest: .bufferingNewest(capacity)
        case .newest: .bufferingOldest(capacity)
        }
    }
}

/// Undoes a handler registration, e.g. when a plugin stops.
public struct HandlerRegistration: Sendable {
    private let onCancel: @Sendable () -> Void

    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Removes the handler. Requests sent afterwards fail with ``BusError/Code/noHandler``.
    public func cancel() { onCancel() }
}

extension MessageBus {
    /// Sends a request and waits at most `timeout` (five seconds by default) for the reply.
    public func request<Request: BusRequest>(
        _ request: Request, timeout: Duration = .seconds(5)
    ) async throws(BusError) -> Request.Reply {
        try await self.request(request, deadline: .now + timeout)
    }

    /// ``catchUp(since:)`` for the client request being served: every event settled before it
    /// arrived (``RequestTrace/arrival``), or before now outside a client request.
    public func catchUp() async throws(BusError) {
        try await catchUp(since: RequestTrace.arrival ?? .now)
    }

    /// What `read` finds in a cache that bus events keep coherent, once the bus has caught up with
    /// the request being served (``catchUp()``), so that an event settled before the request arrived
    /// has had its say. Nil when the cache has nothing, before or after, or when the bus cannot be
    /// reached: then the caller reads the source of truth. An empty cache costs no round trip.
    public func cached<Value>(_ read: () -> Value?) async -> Value? {
        guard read() != nil, (try? await catchUp()) != nil else { return nil }
        return read()
    }

    /// Subscribes with the ``OverflowPolicy/default`` policy.
    public func subscribe<Event: BusEvent>(to type: Event.Type) -> EventSubscription<Event> {
        subscribe(to: type, buffering: .default)
    }
}

/// Said by a networked bus, to this process only, when its connection is lost (`connected: false`)
/// and when it is back. Events other processes published in between never arrive: whoever keeps
/// state coherent by events (a cache) stops trusting it while away and starts afresh when back.
public struct BusConnectivity: BusEvent {
    public static let name: MessageName = "bus.connectivity.v1"
    public var connected: Bool
    public init(connected: Bool) { self.connected = connected }
}
