public import Bus
import Dispatch

/// Runs blocking work (a libvips decode, a cairo render) on a dispatch queue, never on Swift's
/// cooperative threads, at most `limit` at a time; waiters queue in order. Bounds a plugin's CPU and
/// memory under a burst.
public final class BlockingGate: Sendable {
    private let semaphore: DispatchSemaphore
    private let queue: DispatchQueue

    public init(limit: Int, label: String) {
        semaphore = DispatchSemaphore(value: max(1, limit))
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> T) async throws(BusError) -> T {
        let result: Result<T, BusError> = await withCheckedContinuation { continuation in
            queue.async { [semaphore] in
                semaphore.wait()
                defer { semaphore.signal() }
                continuation.resume(returning: Result { () throws(BusError) in try work() })
            }
        }
        return try result.get()
    }
}
