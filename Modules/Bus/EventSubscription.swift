import Synchronization

/// The events of one type, in publish order, as an `AsyncSequence`.
///
/// Iterate it in a task; cancelling that task (or dropping the subscription) ends it and removes the
/// subscriber from the bus.
public struct EventSubscription<Event: BusEvent>: AsyncSequence, Sendable {
    public typealias Element = Event

    private let stream: AsyncStream<Event>
    private let drops: DropCounter

    /// Creates a subscription over a stream; transports use this.
    public init(stream: AsyncStream<Event>, drops: DropCounter) {
        self.stream = stream
        self.drops = drops
    }

    /// How many events this subscriber lost to its buffer's overflow policy so far.
    public var droppedCount: Int { drops.value }

    /// The counter itself, for whoever reports drops (metrics) without holding the stream.
    public var dropCounter: DropCounter { drops }

    public func makeAsyncIterator() -> AsyncStream<Event>.Iterator {
        stream.makeAsyncIterator()
    }
}

/// Counts events a subscriber lost; shared between the transport and the subscription.
public final class DropCounter: Sendable {
    private let count = Atomic<Int>(0)
    public init() {}
    public var value: Int { count.load(ordering: .relaxed) }
    public func increment() { count.add(1, ordering: .relaxed) }
}
