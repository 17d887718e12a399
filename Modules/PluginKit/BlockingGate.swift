public import Bus
import Dispatch
import Foundation

/// Runs blocking work (a libvips decode, a cairo render) off Swift's cooperative threads, at most
/// `limit` at a time per gate and no more than the machine has cores across every gate of the
/// process; waiters queue in order, without holding any thread. Bounds a plugin's CPU and memory
/// under a burst, and keeps two plugins' bursts from each taking every core.
///
/// Each slot is a serial dispatch queue: those run on dispatch's overcommitting threads. A blocked
/// or busy worker of the shared pool (which a concurrent queue uses, and which Swift's cooperative
/// threads draw from on Linux) stalled every other task of the process until dispatch noticed.
public final class BlockingGate: Sendable {
    private let slots: SlotPool
    private let queues: [DispatchQueue]

    public init(limit: Int, label: String) {
        let count = max(1, limit)
        slots = SlotPool(count: count)
        queues = (0..<count).map { DispatchQueue(label: "\(label).\($0)") }
    }

    /// Every gate's work together: one slot per core.
    static let cores = SlotPool(count: ProcessInfo.processInfo.activeProcessorCount)

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws(BusError) -> T) async throws(BusError) -> T {
        let slot = await slots.acquire()
        let core = await Self.cores.acquire()
        let result: Result<T, BusError> = await withCheckedContinuation { continuation in
            queues[slot].async { continuation.resume(returning: Result { () throws(BusError) in try work() }) }
        }
        await Self.cores.release(core)
        await slots.release(slot)
        return try result.get()
    }
}

/// Free slot numbers, and the tasks waiting for one in arrival order.
actor SlotPool {
    private var free: [Int]
    private var waiting: [CheckedContinuation<Int, Never>] = []

    init(count: Int) { free = Array((0..<count).reversed()) }

    func acquire() async -> Int {
        if let slot = free.popLast() { return slot }
        return await withCheckedContinuation { waiting.append($0) }
    }

    func release(_ slot: Int) {
        if waiting.isEmpty {
            free.append(slot)
        } else {
            waiting.removeFirst().resume(returning: slot)
        }
    }
}
