public import Bus
public import Logging
import Synchronization

/// The default transport: messages are Swift values handed from task to task, never encoded.
///
/// Handlers are looked up by the message's type under one lock; a request runs its handler in its
/// own task, and a shared ``DeadlineWatchdog`` answers for it when the deadline passes, so a handler
/// that never answers cannot hold its caller past the deadline. Events are yielded into each subscriber's bounded `AsyncStream`, so publishing
/// never waits for a subscriber.
public final class InProcessBus: MessageBus {
    private struct Subscriber: Sendable {
        let deliver: @Sendable (any BusEvent) -> Void
    }

    private struct Handler: Sendable {
        let name: MessageName
        /// A `RequestHandler<R>` for the request type this entry is keyed under.
        let body: any Sendable
    }

    private struct State: Sendable {
        var handlers: [ObjectIdentifier: Handler] = [:]
        var handlerNames: [MessageName: ObjectIdentifier] = [:]
        var subscribers: [ObjectIdentifier: [UInt64: Subscriber]] = [:]
        var nextSubscriberID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let logger: Logger
    private let watchdog = DeadlineWatchdog()

    public init(logger: Logger = Logger(label: "quire.bus")) {
        self.logger = logger
    }

    // MARK: Events

    public func publish<Event: BusEvent>(_ event: Event) async {
        publishNow(event)
    }

    /// ``publish(_:)`` without suspending, for a transport's own callbacks, which cannot wait:
    /// every subscriber and observer has the event when it returns.
    public func publishNow<Event: BusEvent>(_ event: Event) {
        let key = ObjectIdentifier(Event.self)
        // Copy the subscriber list out so that delivery runs outside the lock.
        let subscribers = state.withLock { $0.subscribers[key].map { Array($0.values) } ?? [] }
        for subscriber in subscribers {
            subscriber.deliver(event)
        }
    }

    /// An observer that buffers: the subscription's feed observes the events.
    public func subscribe<Event: BusEvent>(
        to type: Event.Type, buffering policy: OverflowPolicy
    ) -> EventSubscription<Event> {
        let feed = EventFeed<Event>(buffering: policy, logger: logger)
        let registration = observe(type, feed.yield)
        feed.onEnd { registration.cancel() }
        return feed.subscription
    }

    @discardableResult
    public func observe<Event: BusEvent>(_ type: Event.Type, _ observer: @escaping @Sendable (Event) -> Void) -> HandlerRegistration {
        let key = ObjectIdentifier(Event.self)
        let subscriber = Subscriber { event in
            if let event = event as? Event { observer(event) }
        }
        let id = state.withLock { state in
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[key, default: [:]][id] = subscriber
            return id
        }
        return HandlerRegistration { [weak self] in
            self?.state.withLock { state in
                state.subscribers[key]?[id] = nil
                if state.subscribers[key]?.isEmpty == true { state.subscribers[key] = nil }
            }
        }
    }

    /// Every event was handed over when `publish` returned: nothing to wait for.
    public func settle() async throws(BusError) {}

    /// One process: every event published was handed over already.
    public func catchUp(since instant: ContinuousClock.Instant) async throws(BusError) {}

    /// How many live subscriptions an event type has; for tests and diagnostics.
    public func subscriberCount<Event: BusEvent>(for type: Event.Type) -> Int {
        state.withLock { $0.subscribers[ObjectIdentifier(Event.self)]?.count ?? 0 }
    }

    // MARK: Requests

    @discardableResult
    public func handle<Request: BusRequest>(
        _ type: Request.Type, _ handler: @escaping RequestHandler<Request>
    ) throws(BusError) -> HandlerRegistration {
        let key = ObjectIdentifier(Request.self)
        let name = Request.name
        let result: Result<Void, BusError> = state.withLock { state in
            if state.handlers[key] != nil || state.handlerNames[name] != nil {
                return .failure(BusError(
                    .duplicateHandler,
                    "A handler for '\(name)' is already registered; each request has exactly one handler. "
                        + "Check that two plugins do not both answer it.",
                    details: ["message": name.rawValue]))
            }
            state.handlers[key] = Handler(name: name, body: handler)
            state.handlerNames[name] = key
            return .success(())
        }
        try result.get()
        return HandlerRegistration { [weak self] in
            self?.state.withLock { state in
                state.handlers[key] = nil
                state.handlerNames[name] = nil
            }
        }
    }

    public func request<Request: BusRequest>(
        _ request: Request, deadline: ContinuousClock.Instant
    ) async throws(BusError) -> Request.Reply {
        let entry = state.withLock { $0.handlers[ObjectIdentifier(Request.self)] }
        guard let entry, let handler = entry.body as? RequestHandler<Request> else {
            throw BusError(
                .noHandler,
                "No handler is registered for '\(Request.name)'. Enable the plugin that answers it in the app's config.",
                details: ["message": Request.name.rawValue])
        }
        let context = BusRequestContext(name: entry.name, deadline: deadline)
        return try await run(handler, request, context).get()
    }

    /// Runs the handler in its own task and waits for whichever comes first: its reply, the deadline
    /// (the watchdog answers `deadline_exceeded` and cancels the handler) or the caller's cancellation.
    /// The caller is released at the deadline even if the handler ignores cancellation.
    private func run<Request: BusRequest>(
        _ handler: @escaping RequestHandler<Request>, _ request: Request, _ context: BusRequestContext
    ) async -> Result<Request.Reply, BusError> {
        if Task.isCancelled { return .failure(Self.cancelledError(context.name)) }
        let logger = self.logger
        let pending = PendingReply<Request.Reply>()
        var ticket: DeadlineWatchdog.Ticket?
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pending.attach(continuation)
                ticket = watchdog.add(context.deadline) {
                    pending.finish(.failure(BusError(
                        .deadlineExceeded,
                        "'\(context.name)' got no reply before its deadline. The handling plugin is slow or stuck; try again later.",
                        details: ["message": context.name.rawValue])))
                }
                pending.attach(Task.immediate {
                    let outcome: Result<Request.Reply, BusError>
                    do {
                        outcome = .success(try await handler(request, context))
                    } catch let error as BusError {
                        outcome = .failure(error)
                    } catch is CancellationError {
                        outcome = .failure(Self.cancelledError(context.name))
                    } catch {
                        logger.error("Request handler failed", metadata: [
                            "message": "\(context.name)", "error": "\(String(reflecting: type(of: error)))"])
                        outcome = .failure(BusError(
                            .internal, "The handler for '\(context.name)' failed unexpectedly; see the server log.",
                            details: ["message": context.name.rawValue]))
                    }
                    pending.finish(outcome, fromHandler: true)
                })
            }
        } onCancel: {
            pending.finish(.failure(Self.cancelledError(context.name)))
        }
        if let ticket { watchdog.remove(ticket) }
        return result
    }

    private static func cancelledError(_ name: MessageName) -> BusError {
        BusError(.cancelled, "The request '\(name)' was cancelled by its caller.",
                 details: ["message": name.rawValue])
    }
}
