public import Bus
import BusInProcess
import Foundation
public import Logging
import NIOCore
import Synchronization

/// The ``MessageBus`` over NATS: the same messages as in-process, as JSON, between processes and machines.
///
/// - An event goes to subject `quire.event.<name>`; every subscription of every node gets it, in the
///   order each publisher sent (NATS keeps one connection's order).
/// - A request goes to `quire.request.<name>`, where every node that handles the name subscribes in
///   the queue group `quire`: NATS gives each request to exactly one of them. The reply is
///   `{"reply": …}` or `{"error": BusError}` (``ReplyEnvelope``); every payload is written by the
///   bus's ``BusPayloadCodec`` (JSON). The caller's deadline travels as the time left, in
///   milliseconds (header `Quire-Timeout-Ms`): clocks of two machines are never compared.
/// - With `localFirst` (the default), a request whose handler is in this process is answered here,
///   without a hop through NATS: a node serves its own storage and sessions, and only what it does
///   not run (a media worker's images) crosses. Off, every request crosses (the acceptance runs so).
/// - Nobody subscribed: the server answers at once (no responders), which is ``BusError/Code/noHandler``.
/// - NATS unreachable: a request fails at once with ``BusError/Code/unavailable``; events wait in the
///   connection's bounded buffer and go out on reconnect.
public final class NATSBus: MessageBus {
    public static let queueGroup = "quire"
    static let timeoutHeader = "Quire-Timeout-Ms"
    /// The client request the message is part of (``RequestTrace``), when there is one.
    static let requestHeader = "Quire-Request-Id"

    public let connection: NATSConnection
    /// The first part of every subject (`quire`): several deployments can share one NATS.
    public let subjectPrefix: String
    /// Writes and reads every payload (events, requests, replies, errors).
    public let codec: any BusPayloadCodec
    private let logger: Logger
    /// Request names this process handles (one handler each, as in-process).
    private let handlers = Mutex<[MessageName: UInt64]>([:])
    /// Whether this process's own handlers answer its requests directly.
    public let localFirst: Bool
    /// This process's handlers, for requests answered locally.
    private let local: InProcessBus
    /// Cancels a handler still running when its caller's deadline passes (the caller has given up).
    private let running = RunningHandlers()
    /// The requests of each read, started together on one cooperative thread.
    let batches: RequestBatches

    public init(connection: NATSConnection, subjectPrefix: String = "quire", localFirst: Bool = true,
                codec: any BusPayloadCodec = JSONPayloadCodec(), logger: Logger = Logger(label: "quire.bus.nats")) {
        self.connection = connection
        self.codec = codec
        self.subjectPrefix = subjectPrefix
        self.localFirst = localFirst
        self.logger = logger
        batches = RequestBatches { [connection, logger] replies in
            guard !connection.publishAll(replies) else { return }
            for reply in replies {
                do {
                    try connection.publish(subject: reply.subject, payload: reply.payload)
                } catch {
                    logger.warning("bus: a reply was not sent", metadata: ["reason": "\(error)"])
                }
            }
        }
        let local = InProcessBus(logger: logger)
        self.local = local
        // Told on the connection's thread as it happens: an observer (a cache) stops trusting
        // itself before anything else is read or asked.
        connection.onConnectivityChange { connected in local.publishNow(BusConnectivity(connected: connected)) }
        connection.onReadComplete { [batches] in batches.startGathered() }
    }

    func eventSubject(_ name: MessageName) -> String { subjectPrefix + ".event." + name.rawValue }
    func requestSubject(_ name: MessageName) -> String { subjectPrefix + ".request." + name.rawValue }

    // MARK: Events

    public func publish<Event: BusEvent>(_ event: Event) async {
        do {
            let payload = try Self.encode(event, name: Event.name, codec: codec)
            try connection.publish(subject: eventSubject(Event.name), payload: payload)
        } catch {
            logger.error("bus: an event was not published", metadata: ["event": "\(Event.name)", "reason": "\(error)"])
        }
    }

    public func subscribe<Event: BusEvent>(to type: Event.Type, buffering policy: OverflowPolicy) -> EventSubscription<Event> {
        // This process's own news of the connection, never sent over it.
        if Event.name == BusConnectivity.name { return local.subscribe(to: type, buffering: policy) }
        let feed = EventFeed<Event>(buffering: policy, logger: logger)
        let sid = deliverEvents(of: type, unreadable: feed.lose, to: feed.yield)
        feed.onEnd { [connection] in connection.unsubscribe(sid) }
        return feed.subscription
    }

    @discardableResult
    public func observe<Event: BusEvent>(_ type: Event.Type, _ observer: @escaping @Sendable (Event) -> Void) -> HandlerRegistration {
        if Event.name == BusConnectivity.name { return local.observe(type, observer) }
        let sid = deliverEvents(of: type, unreadable: {}, to: observer)
        return HandlerRegistration { [connection] in connection.unsubscribe(sid) }
    }

    /// Subscribes to the events' subject; each is read and handed to `deliver` on the connection's
    /// thread, as it arrives. One that cannot be read is logged and told to `unreadable`.
    private func deliverEvents<Event: BusEvent>(of _: Event.Type, unreadable: @escaping @Sendable () -> Void,
                                                to deliver: @escaping @Sendable (Event) -> Void) -> UInt64 {
        let logger = self.logger, codec = self.codec
        return connection.subscribe(subject: eventSubject(Event.name)) { message in
            do {
                deliver(try Self.decode(Event.self, message.payload, codec: codec))
            } catch {
                unreadable()
                logger.error("bus: an event could not be read; it was dropped", metadata: ["event": "\(Event.name)", "reason": "\(error)"])
            }
        }
    }

    /// A PING after this process's publications, answered: NATS has read them and queued them to
    /// every subscriber, ahead of anything it answers another connection later.
    public func settle() async throws(BusError) {
        do {
            try await connection.flush()
        } catch {
            throw Self.unreachable
        }
    }

    /// A PING written after `instant`, answered: what NATS had for this process came before its
    /// PONG, on the same connection, and was delivered as it came.
    public func catchUp(since instant: ContinuousClock.Instant) async throws(BusError) {
        do {
            try await connection.flush(writtenAfter: instant)
        } catch {
            throw Self.unreachable
        }
    }

    private static let unreachable = BusError(.unavailable, "The message bus (NATS) cannot be reached right now; try again shortly.",
                                              details: ["retryAfter": "2"])

    // MARK: Requests

    @discardableResult
    public func handle<Request: BusRequest>(_ type: Request.Type, _ handler: @escaping RequestHandler<Request>) throws(BusError) -> HandlerRegistration {
        let name = Request.name
        let taken = handlers.withLock { $0[name] != nil }
        if taken {
            throw BusError(.duplicateHandler,
                           "A handler for '\(name)' is already registered; each request has exactly one handler. "
                               + "Check that two plugins do not both answer it.",
                           details: ["message": name.rawValue])
        }
        let connection = self.connection
        let logger = self.logger
        let localRegistration = try local.handle(type, handler)
        let running = self.running, codec = self.codec
        // On a cooperative thread, for the requests of one read in turn (``RequestBatches``); or,
        // for a quick handler (``BusRequest/quick``), on the event loop that read it (no batch).
        let start: @Sendable (NATSMessage, RequestBatches.Batch?) -> Void = { message, batch in
            guard let replyTo = message.replyTo else { return }
            let entry = RunningHandlers.Entry(deadline: ContinuousClock.now + Self.timeLeft(message))
            // On this thread until the handler first suspends: one that does not, answers here.
            let work = Task.immediate {
                let reply = await Self.answer(message, handler: handler, name: name, deadline: entry.deadline, codec: codec, logger: logger)
                entry.finish(running.watchdog)
                // Ready while its batch is being started: it goes out with the others, in one write.
                if let batch, batch.keep(reply, for: replyTo) { return }
                do {
                    try connection.publish(subject: replyTo, payload: reply)
                } catch {
                    logger.warning("bus: a reply was not sent", metadata: ["message": "\(name)", "reason": "\(error)"])
                }
            }
            // Answered before it ever waited (the usual case): nothing left to cancel at its deadline.
            if !entry.finished { running.add(entry, work) }
        }
        let batches = self.batches
        let inPlace = Request.quick ? InPlace() : nil
        let sid = connection.subscribe(subject: requestSubject(name), queue: Self.queueGroup) { message in
            guard let inPlace, inPlace.allowed else { return batches.add(message, start) }
            let began = ContinuousClock.now
            start(message, nil)
            let took = ContinuousClock.now - began
            if inPlace.ran(took) {
                logger.warning("bus: a handler declared quick took too long on the connection's thread; it now runs on another thread",
                               metadata: ["message": "\(name)", "took": "\(took)", "budget": "\(quickBudget)"])
            }
        }
        handlers.withLock { $0[name] = sid }
        return HandlerRegistration { [weak self] in
            localRegistration.cancel()
            guard let self, let sid = self.handlers.withLock({ $0.removeValue(forKey: name) }) else { return }
            self.connection.unsubscribe(sid)
        }
    }

    /// Runs the handler for one request off the wire; answers the reply's bytes.
    /// The time the caller gives the request (its header), five seconds when it says nothing.
    static func timeLeft(_ message: NATSMessage) -> Duration {
        message.header(timeoutHeader).flatMap(Int64.init).map { Duration.milliseconds(max(0, $0)) } ?? .seconds(5)
    }

    private static func answer<Request: BusRequest>(_ message: NATSMessage, handler: RequestHandler<Request>, name: MessageName,
                                                    deadline: ContinuousClock.Instant, codec: any BusPayloadCodec, logger: Logger) async -> ByteBuffer {
        // No `Result<Request.Reply, BusError>` here: a generic type's metadata is looked up at run time, per request.
        let reply: Request.Reply
        do {
            let request = try Self.decode(Request.self, message.payload, codec: codec)
            let context = BusRequestContext(name: name, deadline: deadline)
            if let trace = message.header(requestHeader) {
                reply = try await RequestTrace.$id.withValue(trace) { try await handler(request, context) }
            } else {
                // A task made on the connection's thread has no trace to hide: no binding to push.
                reply = try await handler(request, context)
            }
        } catch {
            return failure(Self.busError(error, name: name, deadline: deadline, logger: logger), name: name, codec: codec, logger: logger)
        }
        do {
            return ReplyEnvelope.reply(try codec.encode(reply))
        } catch {
            return failure(encoding: error, name: name, codec: codec, logger: logger)
        }
    }

    /// What the caller is told when its handler threw `error`.
    private static func busError(_ error: any Error, name: MessageName, deadline: ContinuousClock.Instant, logger: Logger) -> BusError {
        switch error {
        case let error as BusError:
            return error
        case is DecodingError:
            return BusError(.invalid, "'\(name)' arrived in a shape this node does not read; nodes may run different versions.",
                            details: ["message": name.rawValue])
        case is CancellationError where ContinuousClock.now >= deadline:
            // Stopped by the watchdog at the caller's deadline: that is what the caller is told, even
            // when this reply reaches it before its own timer fires (a busy machine).
            return Self.late(name)
        case is CancellationError:
            return BusError(.cancelled, "The request '\(name)' was cancelled.", details: ["message": name.rawValue])
        default:
            logger.error("Request handler failed", metadata: ["message": "\(name)", "error": "\(String(reflecting: type(of: error)))"])
            return BusError(.internal, "The handler for '\(name)' failed unexpectedly; see the server log.", details: ["message": name.rawValue])
        }
    }

    private static func failure(_ error: BusError, name: MessageName, codec: any BusPayloadCodec, logger: Logger) -> ByteBuffer {
        do {
            return ReplyEnvelope.failure(try codec.encode(error))
        } catch {
            return failure(encoding: error, name: name, codec: codec, logger: logger)
        }
    }

    private static func failure(encoding error: any Error, name: MessageName, codec: any BusPayloadCodec, logger: Logger) -> ByteBuffer {
        logger.error("bus: a reply could not be encoded", metadata: ["message": "\(name)", "reason": "\(error)"])
        let failure = BusError(.internal, "The reply to '\(name)' could not be sent; see the server log.", details: ["message": name.rawValue])
        return (try? codec.encode(failure)).map(ReplyEnvelope.failure) ?? ByteBuffer()
    }

    public func request<Request: BusRequest>(_ request: Request, deadline: ContinuousClock.Instant) async throws(BusError) -> Request.Reply {
        let name = Request.name
        if localFirst, handlers.withLock({ $0[name] != nil }) {
            return try await local.request(request, deadline: deadline)
        }
        let payload = try Self.encode(request, name: name, codec: codec)
        // A repeatable request gets half its time, then the rest from whichever node the queue
        // group picks next: a node that died holding it (a worker killed mid-thumbnail) never
        // answers, and NATS does not say so.
        if Request.repeatable, deadline - .now >= Self.shortestSplit {
            let first = ContinuousClock.now + (deadline - .now) / 2
            do {
                return try await send(payload, of: Request.self, deadline: first)
            } catch where error.code == .deadlineExceeded {
                logger.warning("bus: a repeatable request got no reply in half its time; asking again",
                               metadata: ["message": "\(name)"])
            }
        }
        return try await send(payload, of: Request.self, deadline: deadline)
    }

    /// A repeatable request with less time than this is sent once.
    static let shortestSplit: Duration = .seconds(1)

    private func send<Request: BusRequest>(_ payload: ByteBuffer, of type: Request.Type,
                                           deadline: ContinuousClock.Instant) async throws(BusError) -> Request.Reply {
        let name = Request.name
        let left = deadline - .now
        guard left > .zero else { throw Self.late(name) }
        let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
        let message: NATSMessage
        do {
            var headers = [(Self.timeoutHeader, String(milliseconds))]
            if let trace = RequestTrace.id { headers.append((Self.requestHeader, trace)) }
            message = try await connection.request(subject: requestSubject(name), headers: headers, payload: payload, deadline: deadline)
        } catch {
            switch error.kind {
            case .timedOut: throw Self.late(name)
            case .tooLarge:
                throw BusError(.tooLarge, "'\(name)' is too large to cross the bus (\(error.message)); large bytes travel by blob reference.",
                               details: ["message": name.rawValue])
            default:
                if Task.isCancelled {
                    throw BusError(.cancelled, "The request '\(name)' was cancelled by its caller.", details: ["message": name.rawValue])
                }
                throw BusError(.unavailable, "The message bus (NATS) cannot be reached right now, so '\(name)' was not sent; try again shortly.",
                               details: ["message": name.rawValue, "retryAfter": "2"])
            }
        }
        if message.status == 503 {
            throw BusError(.noHandler, "No handler is registered for '\(name)' on any node. Enable the plugin that answers it in the app's config.",
                           details: ["message": name.rawValue])
        }
        do {
            return try ReplyEnvelope.value(Request.Reply.self, from: message.payload, codec: codec)
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError(.internal, "The reply to '\(name)' could not be read; nodes may run different versions.", details: ["message": name.rawValue])
        }
    }

    private static func late(_ name: MessageName) -> BusError {
        BusError(.deadlineExceeded, "'\(name)' got no reply before its deadline. The handling plugin is slow or stuck; try again later.",
                 details: ["message": name.rawValue])
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ payload: ByteBuffer, codec: any BusPayloadCodec) throws -> Value {
        try payload.withUnsafeReadableBytes { try codec.decode(type, from: $0) }
    }

    static func encode<Value: Encodable>(_ value: Value, name: MessageName, codec: any BusPayloadCodec) throws(BusError) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try codec.encode(value))
        } catch {
            throw BusError(.internal, "'\(name)' cannot be encoded to cross the bus: \(error)", details: ["message": name.rawValue])
        }
    }
}

/// Whether a quick handler (``BusRequest/quick``) still runs on the connection's thread: until it
/// takes longer there than ``quickBudget`` three times in a row. (Once is not enough: on a loaded
/// machine the thread is sometimes descheduled for milliseconds in the middle of a quick handler.)
final class InPlace: Sendable {
    static let strikes = 3
    private let revoked = Atomic<Bool>(false)
    /// Overruns in a row; written by the event loop alone.
    private let overruns = Atomic<Int>(0)

    var allowed: Bool { !revoked.load(ordering: .relaxed) }

    /// Counts a run that took `took`; true when this one stops it (to log once).
    func ran(_ took: Duration) -> Bool {
        guard took > quickBudget else {
            if overruns.load(ordering: .relaxed) != 0 { overruns.store(0, ordering: .relaxed) }
            return false
        }
        guard overruns.wrappingAdd(1, ordering: .relaxed).newValue >= Self.strikes else { return false }
        return !revoked.exchange(true, ordering: .relaxed)
    }
}
