import Bus
import BusInProcess
import BusTestKit
import Synchronization
import Testing

@Suite("BusTestKit")
struct BusTestKitTests {
    @Test("a stub answers what it was told to expect")
    func stubbed() async throws {
        let bus = StubBus { Issue.record(Comment(rawValue: $0)) }
        try bus.stub(Ping.self) { Pong(value: $0.value + 1) }
        #expect(try await bus.request(Ping(value: 1)) == Pong(value: 2))
        #expect(bus.unexpectedRequests.isEmpty)
    }

    @Test("an unexpected request fails loudly: reported, recorded, and an error naming the message")
    func unexpected() async throws {
        let reports = Mutex<[String]>([])
        let bus = StubBus { message in reports.withLock { $0.append(message) } }
        do {
            _ = try await bus.request(Ping(value: 1))
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .noHandler)
            #expect(error.message.contains("test.ping.v1"))
        }
        #expect(bus.unexpectedRequests == [Ping.name])
        #expect(reports.withLock { $0.count } == 1)
        #expect(reports.withLock { $0.first?.contains("unexpected request 'test.ping.v1'") } == true)
    }

    @Test("the recording bus records events and requests, with their outcome")
    func recording() async throws {
        let bus = RecordingBus(wrapping: InProcessBus())
        try bus.handle(Ping.self) { ping, _ in Pong(value: ping.value) }
        await bus.publish(Tick(number: 3))
        _ = try await bus.request(Ping(value: 5))
        _ = try? await bus.request(Sleepy(seconds: 1))
        #expect(bus.publishedEvents(of: Tick.self).map(\.number) == [3])
        #expect(bus.sentRequests(of: Ping.self).map(\.value) == [5])
        #expect(bus.sentRequests(of: Sleepy.self).count == 1)
        guard case .requested(_, _, let error)? = bus.entries.last else {
            Issue.record("expected a request entry")
            return
        }
        #expect(error?.code == .noHandler)
    }
}
