@testable import AppHost
import NIOCore
import Testing

/// The timeouts' rules as a value, at times given by the test.
@Suite("Connection timeouts: the clock's rules")
struct ConnectionClockTests {
    static let policy = TimeoutPolicy(requestHead: .seconds(10), bodyMinRate: 1000, bodyRateGrace: .seconds(5), idle: .seconds(60),
                                      webSocketHandshake: .seconds(3))
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    func at(_ seconds: Double) -> NIODeadline {
        start + .nanoseconds(Int64(seconds * 1e9))
    }

    @Test("a connection that sends nothing (or a head that never ends) is closed request_head after it opened")
    func silent() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        #expect(clock.verdict(now: at(1)) == .at(at(10)))
        clock.bytesArrived(now: at(2))  // a byte of the head: the first head's time counts from the start
        #expect(clock.verdict(now: at(9.9)) == .at(at(10)))
        #expect(clock.verdict(now: at(10)) == .expired(.requestHead))
        #expect(clock.isEvictable)
    }

    @Test("kept alive: idle_timeout until a byte of the next request, then request_head from that byte")
    func keepAlive() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        clock.head(now: at(1), upgrade: false)
        clock.end(now: at(1))
        #expect(!clock.isEvictable)
        #expect(clock.verdict(now: at(500)) == ConnectionClock.Verdict.none)  // answering: no limit
        clock.responseEnded(now: at(2))
        #expect(clock.isEvictable)
        #expect(clock.verdict(now: at(30)) == .at(at(62)))
        #expect(clock.verdict(now: at(62)) == .expired(.idle))
        clock.bytesArrived(now: at(40))
        #expect(clock.verdict(now: at(41)) == .at(at(50)))
        clock.bytesArrived(now: at(45))  // more bytes of the same head do not extend it
        #expect(clock.verdict(now: at(50)) == .expired(.requestHead))
    }

    @Test("a body under the minimum rate is cut off once the grace is over; the time counted is the server's waiting only")
    func slowBody() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        clock.head(now: at(0), upgrade: false)
        var now = 0.0
        // 100 bytes a second: a tenth of the minimum.
        for _ in 0..<4 {
            clock.readRequested(now: at(now))
            now += 1
            clock.body(bytes: 100, now: at(now))
        }
        #expect(clock.verdict(now: at(now)) == .at(at(5)))
        clock.readRequested(now: at(now))
        #expect(clock.verdict(now: at(5)) == .expired(.slowBody))
    }

    @Test("a body at a good rate is never cut off, however long it takes")
    func goodBody() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        clock.head(now: at(0), upgrade: false)
        var now = 0.0
        // 2,000 bytes a second for an hour.
        for _ in 0..<3600 {
            clock.readRequested(now: at(now))
            now += 1
            clock.body(bytes: 2000, now: at(now))
            guard case .at = clock.verdict(now: at(now)) else {
                Issue.record("cut off at \(now) s")
                return
            }
        }
        clock.end(now: at(now))
        #expect(clock.verdict(now: at(now + 1)) == ConnectionClock.Verdict.none)
    }

    @Test("while the server holds the body back (no read asked of the socket), the client's time does not run")
    func backpressure() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        clock.head(now: at(0), upgrade: false)
        clock.readRequested(now: at(0))
        clock.body(bytes: 1000, now: at(0.5))
        // The application is busy for ten minutes before it reads on.
        #expect(clock.verdict(now: at(600)) == .at(at(600 + 4.5)))
        clock.readRequested(now: at(600))
        clock.body(bytes: 1000, now: at(600.5))
        #expect(clock.verdict(now: at(600.5)) == .at(at(600.5 + 4)))
    }

    @Test("a body drained after the response (the answer came first) is still held to the rate")
    func drainedBody() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        clock.head(now: at(0), upgrade: false)
        clock.responseEnded(now: at(0.1))
        #expect(!clock.isEvictable)
        clock.readRequested(now: at(0.1))
        #expect(clock.verdict(now: at(5.1)) == .expired(.slowBody))
    }

    @Test("no minimum rate (0): a body may take its time")
    func noMinimum() {
        var policy = Self.policy
        policy.bodyMinRate = 0
        var clock = ConnectionClock(policy: policy, now: start)
        clock.head(now: at(0), upgrade: false)
        clock.readRequested(now: at(0))
        #expect(clock.verdict(now: at(3600)) == ConnectionClock.Verdict.none)
    }

    @Test("a WebSocket upgrade has websocket_handshake_timeout until it is written; once upgraded, no limit")
    func webSocket() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        clock.head(now: at(1), upgrade: true)
        clock.end(now: at(1))
        #expect(clock.verdict(now: at(2)) == .at(at(4)))
        #expect(clock.verdict(now: at(4)) == .expired(.webSocketHandshake))
        clock.upgraded()
        #expect(clock.verdict(now: at(86_400)) == ConnectionClock.Verdict.none)
        #expect(!clock.isEvictable)
    }

    @Test("HTTP/2: the connection has no limit of its own here, and may make room while it has no stream open")
    func multiplexed() {
        var clock = ConnectionClock(policy: Self.policy, now: start)
        clock.multiplexed()
        #expect(clock.verdict(now: at(86_400)) == ConnectionClock.Verdict.none)
        #expect(clock.isEvictable)
        clock.streamOpened()
        #expect(!clock.isEvictable)
        clock.streamClosed()
        #expect(clock.isEvictable)
    }

    @Test("an HTTP/2 stream: only its body is held to the rate, its answer may take as long as it takes")
    func stream() {
        var clock = ConnectionClock(policy: Self.policy, mode: .stream, now: start)
        #expect(clock.verdict(now: at(3600)) == ConnectionClock.Verdict.none)
        clock.head(now: at(0), upgrade: true)  // no upgrades on a stream
        clock.readRequested(now: at(0))
        #expect(clock.verdict(now: at(5)) == .expired(.slowBody))
        clock.end(now: at(1))
        #expect(clock.verdict(now: at(3600)) == ConnectionClock.Verdict.none)
    }
}
