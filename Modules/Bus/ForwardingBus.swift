/// A bus that wraps another and passes on everything it does not change itself. A wrapper (metrics,
/// a test double) states only what it adds, and a requirement added to ``MessageBus`` later reaches
/// the wrapped bus without a copy in every wrapper.
public protocol ForwardingBus: MessageBus {
    /// The bus whatever this one does not implement goes to.
    var forwardee: any MessageBus { get }
}

extension ForwardingBus {
    public func publish<Event: BusEvent>(_ event: Event) async {
        await forwardee.publish(event)
    }

    public func subscribe<Event: BusEvent>(to type: Event.Type, buffering policy: OverflowPolicy) -> EventSubscription<Event> {
        forwardee.subscribe(to: type, buffering: policy)
    }

    @discardableResult
    public func observe<Event: BusEvent>(_ type: Event.Type, _ observer: @escaping @Sendable (Event) -> Void) -> HandlerRegistration {
        forwardee.observe(type, observer)
    }

    public func settle() async throws(BusError) {
        try await forwardee.settle()
    }

    public func catchUp(since instant: ContinuousClock.Instant) async throws(BusError) {
        try await forwardee.catchUp(since: instant)
    }

    @discardableResult
    public func handle<Request: BusRequest>(_ type: Request.Type, _ handler: @escaping RequestHandler<Request>) throws(BusError) -> HandlerRegistration {
        try forwardee.handle(type, handler)
    }

    public func request<Request: BusRequest>(_ request: Request, deadline: ContinuousClock.Instant) async throws(BusError) -> Request.Reply {
        try await forwardee.request(request, deadline: deadline)
    }
}
