import Bus
import BusInProcess
import Testing

@Suite("In-process bus: events")
struct InProcessBusEventTests {
    @Test("every subscriber gets every event, in publish order")
    func fanOut() async throws {
        let bus = InProcessBus()
        let first = bus.subscribe(to: Tick.self)
        let second = bus.subscribe(to: Tick.self)
        for number in 0..<500 { await bus.publish(Tick(number: number)) }
        for subscription in [first, second] {
            var received: [Int] = []
            for await tick in subscription {
                received.append(tick.number)
                if received.count == 500 { break }
            }
            #expect(received == Array(0..<500))
        }
    }

    @Test("a subscriber that does not read never blocks the publisher; drop-oldest keeps the latest")
    func dropOldest() async throws {
        let bus = InProcessBus(logger: .quiet)
        let slow = bus.subscribe(to: Tick.self, buffering: OverflowPolicy(capacity: 10, drop: .oldest))
        for number in 1...1000 { await bus.publish(Tick(number: number)) }  // returns although nobody reads
        #expect(slow.droppedCount == 990)
        var received: [Int] = []
        for await tick in slow {
            received.append(tick.number)
            if received.count == 10 { break }
        }
        #expect(received == Array(991...1000))
    }

    @Test("drop-newest keeps an unbroken prefix")
    func dropNewest() async throws {
        let bus = InProcessBus(logger: .quiet)
        let slow = bus.subscribe(to: Tick.self, buffering: OverflowPolicy(capacity: 10, drop: .newest))
        for number in 1...1000 { await bus.publish(Tick(number: number)) }
        #expect(slow.droppedCount == 990)
        var received: [Int] = []
        for await tick in slow {
            received.append(tick.number)
            if received.count == 10 { break }
        }
        #expect(received == Array(1...10))
    }

    @Test("a subscription ends when its task is cancelled, and the bus forgets it")
    func cancellation() async throws {
        let bus = InProcessBus()
        let subscription = bus.subscribe(to: Tick.self)
        #expect(bus.subscriberCount(for: Tick.self) == 1)
        let reader = Task {
            var count = 0
            for await _ in subscription { count += 1 }
            return count
        }
        await bus.publish(Tick(number: 1))
        try await Task.sleep(for: .milliseconds(20))
        reader.cancel()
        let count = await reader.value  // returns: the loop ended
        #expect(count == 1)
        #expect(bus.subscriberCount(for: Tick.self) == 0)
        await bus.publish(Tick(number: 2))  // nobody left; nothing happens
    }

    @Test("publishing with no subscribers is fine")
    func noSubscribers() async {
        let bus = InProcessBus()
        await bus.publish(Tick(number: 1))
        #expect(bus.subscriberCount(for: Tick.self) == 0)
    }
}
