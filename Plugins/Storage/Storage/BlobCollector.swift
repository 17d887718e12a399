public import Bus
public import Foundation
public import Logging
import ServiceLifecycle
public import StorageAPI
import Synchronization

/// Deletes blobs no record holds: at once when a write releases them, and in a periodic sweep for
/// the ones a write never came for (an upload whose record write failed, a crash in between).
///
/// A blob is deleted only when it has not been put for `grace`: an upload puts its bytes first and
/// writes the record that holds them a moment later, and the same bytes may be on their way in
/// again while an old record lets go of them (see ``BlobCollecting``).
public final class BlobCollector: Sendable {
    let holds: any BlobHolds
    let blobs: any BlobCollecting
    let bus: (any MessageBus)?
    let grace: TimeInterval
    let logger: Logger
    /// While a backup copies the records and then the blobs, deletions wait (``holdDeletions()``),
    /// so that every blob the copied records hold is still there to copy.
    private let held = Mutex<(holders: Int, waiting: [String])>((0, []))

    public init(holds: any BlobHolds, blobs: any BlobCollecting, bus: (any MessageBus)?, grace: TimeInterval, logger: Logger) {
        self.holds = holds
        self.blobs = blobs
        self.bus = bus
        self.grace = grace
        self.logger = logger
    }

    /// Deletes those of `candidates` that no record holds and that were not put within the grace
    /// period; returns the deleted ones. One released but put within the grace is looked at again
    /// once the grace has passed (`retry`), so a deleted photo's bytes go within the grace of its
    /// deletion, not at the next sweep. Failures are logged: the sweep retries later.
    @discardableResult
    public func collect(_ candidates: some Collection<String>, now: Date = StoreTime.now(), retry: Bool = true) async -> [String] {
        guard !candidates.isEmpty else { return [] }
        let deferred = held.withLock { state in
            guard state.holders > 0 else { return false }
            state.waiting += candidates
            return true
        }
        if deferred { return [] }
        var deleted: [String] = []
        var waiting: [String] = []
        do {
            let held = try await holds.heldBlobs(among: Set(candidates))
            for sha256 in candidates where !held.contains(sha256) {
                if try await blobs.collect(sha256, unlessPutSince: now.addingTimeInterval(-grace)) {
                    deleted.append(sha256)
                    await bus?.publish(BlobDeleted(sha256: sha256))
                } else {
                    waiting.append(sha256)
                }
            }
        } catch {
            logger.warning("Blob collection failed; the next sweep retries", metadata: ["error": "\(error.message)"])
        }
        if retry, !waiting.isEmpty {
            // Unstructured on purpose: it outlives the request that released the blob. A restart
            // loses it, and the sweep at start takes over.
            Task { [self, waiting, grace] in
                try? await Task.sleep(for: .seconds(grace + 1))
                await collect(waiting, retry: false)
            }
        }
        return deleted
    }

    /// Deletions wait from now until ``releaseDeletions()`` (a backup in progress).
    public func holdDeletions() {
        held.withLock { $0.holders += 1 }
    }

    /// Ends one ``holdDeletions()``; when none is left, the deletions that waited are made.
    public func releaseDeletions() async {
        let waiting = held.withLock { state -> [String] in
            state.holders = max(0, state.holders - 1)
            guard state.holders == 0 else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        if !waiting.isEmpty { await collect(waiting) }
    }

    /// Every blob put before the grace period and held by no record is deleted.
    @discardableResult
    public func sweep(now: Date = StoreTime.now()) async -> [String] {
        do {
            let old = try await blobs.blobs(putBefore: now.addingTimeInterval(-grace))
            var deleted: [String] = []
            for start in stride(from: 0, to: old.count, by: 500) {
                deleted += await collect(old[start..<min(start + 500, old.count)], now: now, retry: false)
            }
            if !deleted.isEmpty { logger.info("Blob sweep: unused blobs deleted", metadata: ["deleted": "\(deleted.count)", "checked": "\(old.count)"]) }
            return deleted
        } catch {
            logger.warning("Blob sweep failed; it runs again later", metadata: ["error": "\(error.message)"])
            return []
        }
    }
}

/// Sweeps at start and then every `interval` until shutdown.
struct BlobSweepService: Service {
    let collector: BlobCollector
    let interval: Duration

    func run() async throws {
        await collector.sweep()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            await collector.sweep()
        }
    }
}
