import Dispatch
import Foundation
import PluginKit
import Synchronization
import Testing

@Suite("Sliding windows under concurrency")
struct SlidingWindowTests {
    @Test("concurrent takes never pass the limit together: the check and the count are one step")
    func concurrentTakes() {
        for _ in 0..<20 {
            let window = SlidingWindow(limit: 5, window: 60)
            let allowed = Atomic<Int>(0)
            let now = Date()
            DispatchQueue.concurrentPerform(iterations: 200) { _ in
                if window.take("198.51.100.7", now: now) == nil { allowed.add(1, ordering: .relaxed) }
            }
            #expect(allowed.load(ordering: .relaxed) == 5)
        }
    }
}
