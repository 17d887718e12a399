public import Bus

/// A bus that forwards everything to another bus, giving every request at least `patience` to be
/// answered. Tests check what a plugin does, not how fast: under a parallel test run on a small
/// machine, a five-second deadline is a timing assertion that fails for reasons of its own.
/// Deadlines themselves are tested on the plain bus (`BusTests`).
public struct PatientBus: MessageBus {
    private let inner: any MessageBus
    private let patience: Duration

    public init(wrapping inner: any MessageBus, patience: Duration = .seconds(120)) {
        self.inner = inner
        self.patience = patience
    }

    public func publish<Event: BusEvent>(_ event: Event) async {
        await inner.publish(event)
    }

    public func subscribe<Event: BusEvent>(to type: Event.Type, buffering policy: OverflowPolicy) -> EventSubscription<Event> {
        inner.subscribe(to: type, buffering: policy)
    }

    @discardableResult
    public func handle<Request: BusRequest>(_ type: Request.Type, _ handler: @escaping RequestHandler<Request>)
        throws(BusError) -> HandlerRegistration {
        try inner.handle(type, handler)
    }

    public func request<Request: BusRequest>(_ request: Request, deadline: ContinuousClock.Instant) async throws(BusError) -> Request.Reply {
        try await inner.request(request, deadline: max(deadline, ContinuousClock.now + patience))
    }
}
