public import Bus
public import Logging

/// A transport's end of one subscription: each event goes into the subscriber's bounded buffer,
/// and what its ``OverflowPolicy`` drops is counted and logged (the first loss, then every 1,000th,
/// so that a stuck subscriber cannot flood the log). Every transport makes its subscriptions so.
public struct EventFeed<Event: BusEvent>: Sendable {
    public let subscription: EventSubscription<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let drops = DropCounter()
    private let logger: Logger

    public init(buffering policy: OverflowPolicy, logger: Logger) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: policy.streamBuffering(of: Event.self))
        self.continuation = continuation
        self.logger = logger
        subscription = EventSubscription(stream: stream, drops: drops)
    }

    public func yield(_ event: Event) {
        guard case .dropped = continuation.yield(event) else { return }
        lose()
        if drops.value % 1000 == 1 {
            logger.warning("Subscriber buffer full; events are being dropped",
                           metadata: ["event": "\(Event.name)", "dropped": "\(drops.value)"])
        }
    }

    /// Counts an event that never reached the buffer (one that could not be read).
    public func lose() {
        drops.increment()
    }

    /// Runs `body` once the subscription ends: its task was cancelled, or it was dropped.
    public func onEnd(_ body: @escaping @Sendable () -> Void) {
        continuation.onTermination = { _ in body() }
    }
}
