public import Bus
import Synchronization

/// A bus that forwards everything to another bus and records what passed, for assertions.
///
/// ```swift
/// let bus = RecordingBus(wrapping: InProcessBus())
/// ...
/// #expect(bus.publishedEvents(of: NoteCreated.self).count == 1)
/// ```
public final class RecordingBus: ForwardingBus {
    /// One recorded interaction.
    public enum Entry: Sendable {
        case published(name: MessageName, event: any BusEvent)
        case requested(name: MessageName, request: any BusRequest, error: BusError?)
    }

    private let inner: any MessageBus
    public var forwardee: any MessageBus { inner }
    private let log = Mutex<[Entry]>([])

    public init(wrapping inner: any MessageBus) {
        self.inner = inner
    }

    /// Everything recorded so far, oldest first.
    public var entries: [Entry] { log.withLock { $0 } }

    /// The events of one type that were published, oldest first.
    public func publishedEvents<Event: BusEvent>(of type: Event.Type) -> [Event] {
        entries.compactMap { entry in
            if case .published(_, let event) = entry { return event as? Event }
            return nil
        }
    }

    /// The requests of one type that were sent, oldest first.
    public func sentRequests<Request: BusRequest>(of type: Request.Type) -> [Request] {
        entries.compactMap { entry in
            if case .requested(_, let request, _) = entry { return request as? Request }
            return nil
        }
    }

    /// Forgets what was recorded.
    public func reset() { log.withLock { $0.removeAll() } }

    public func publish<Event: BusEvent>(_ event: Event) async {
        log.withLock { $0.append(.published(name: Event.name, event: event)) }
        await inner.publish(event)
    }

    public func request<Request: BusRequest>(
        _ request: Request, deadline: ContinuousClock.Instant
    ) async throws(BusError) -> Request.Reply {
        do {
            let reply = try await inner.request(request, deadline: deadline)
            log.withLock { $0.append(.requested(name: Request.name, request: request, error: nil)) }
            return reply
        } catch {
            log.withLock { $0.append(.requested(name: Request.name, request: request, error: error)) }
            throw error
        }
    }
}
