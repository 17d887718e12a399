@testable import Auth
import Foundation
import Testing

@Suite("Sign-in throttle")
struct LoginThrottleTests {
    @Test("an address spraying many usernames is stopped, other addresses are not")
    func perAddress() {
        let throttle = LoginThrottle(window: .seconds(900), perAccount: 5, perAddress: 20)
        let now = Date()
        for index in 0..<20 {
            #expect(throttle.retryAfter(account: "user\(index)", address: "10.0.0.9", now: now) == nil)
            throttle.recordFailure(account: "user\(index)", address: "10.0.0.9", now: now)
        }
        #expect(throttle.retryAfter(account: "fresh", address: "10.0.0.9", now: now) != nil)
        #expect(throttle.retryAfter(account: "fresh", address: "10.0.0.10", now: now) == nil)
    }

    @Test("failures leave the window; Retry-After counts down to it")
    func window() {
        let throttle = LoginThrottle(window: .seconds(900), perAccount: 5, perAddress: 20)
        let start = Date()
        for _ in 0..<5 { throttle.recordFailure(account: "ada", address: nil, now: start) }
        #expect(throttle.retryAfter(account: "ada", address: nil, now: start) == 900)
        #expect(throttle.retryAfter(account: "ada", address: nil, now: start.addingTimeInterval(600)) == 300)
        #expect(throttle.retryAfter(account: "ada", address: nil, now: start.addingTimeInterval(901)) == nil)
    }

    @Test("a successful sign-in clears the account's failures")
    func success() {
        let throttle = LoginThrottle(window: .seconds(900), perAccount: 2, perAddress: 20)
        let now = Date()
        throttle.recordFailure(account: "ada", address: nil, now: now)
        throttle.recordSuccess(account: "ada")
        throttle.recordFailure(account: "ada", address: nil, now: now)
        #expect(throttle.retryAfter(account: "ada", address: nil, now: now) == nil)
    }
}
