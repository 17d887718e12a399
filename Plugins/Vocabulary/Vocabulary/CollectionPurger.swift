import Bus
import Foundation
import Logging
import PluginKit
import StorageAPI
import Synchronization
import VocabularyAPI

/// Deletes the entries of deleted collections in the background: started by the delete itself,
/// and resumed by the janitor for purges a restart interrupted. One purge per collection at a
/// time in this process.
final class CollectionPurger: Sendable {
    let service: VocabularyService
    let logger: Logger
    /// Where purges run: in the host's ServiceGroup (one cut short is resumed by the janitor).
    let background: BackgroundWork
    private let running = Mutex<Set<String>>([])
    /// What this node knows of each purge it ran since it started, by collection id (the operator's jobs list).
    private let progress = Mutex<[String: CollectionPurge]>([:])

    init(service: VocabularyService, logger: Logger, background: BackgroundWork) {
        self.service = service
        self.logger = logger
        self.background = background
    }

    /// Starts purging a deleted collection unless it is being purged already.
    func start(owner: String, collection: String, name: String = "", requestedAt: Date? = nil) {
        let requestedAt = requestedAt ?? service.clock.now()
        guard running.withLock({ $0.insert(collection).inserted }) else { return }
        progress.withLock { purges in
            // Resumed after a failure, it goes on from where it stopped: the count starts again.
            purges[collection] = CollectionPurge(owner: owner, collection: collection, name: purges[collection]?.name ?? name, state: .running,
                                                 requestedAt: purges[collection]?.requestedAt ?? requestedAt)
        }
        let started = background.start { [self] in
            defer { _ = running.withLock { $0.remove(collection) } }
            do throws(BusError) {
                if name.isEmpty, let pending = try await service.pendingPurge(owner: owner, collection: collection) {
                    progress.withLock { purges in
                        purges[collection]?.name = pending.name
                        purges[collection]?.requestedAt = pending.requestedAt
                    }
                }
                let count = try await service.purge(owner: owner, collection: collection) { deleted in
                    progress.withLock { $0[collection]?.deleted = deleted }
                }
                finished(collection, deleted: count)
                logger.debug("vocabulary: a deleted collection's entries are deleted", metadata: ["collection": "\(collection)", "entries": "\(count)"])
            } catch {
                progress.withLock { purges in
                    purges[collection]?.state = .failed
                    purges[collection]?.failure = "Deleting the entries stopped (\(error.message)); it is tried again within a few seconds, from where it stopped."
                }
                logger.warning("vocabulary: deleting a deleted collection's entries stopped; the janitor resumes it",
                               metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
            }
        }
        if !started { _ = running.withLock { $0.remove(collection) } }
    }

    /// A purge done: kept (the last 100) to show as succeeded.
    private func finished(_ collection: String, deleted: Int) {
        progress.withLock { purges in
            purges[collection]?.state = .succeeded
            purges[collection]?.deleted = deleted
            purges[collection]?.finishedAt = service.clock.now()
            purges[collection]?.failure = nil
            let done = purges.values.filter { $0.state == .succeeded }.sorted { ($0.finishedAt ?? .distantPast) > ($1.finishedAt ?? .distantPast) }
            for old in done.dropFirst(100) { purges[old.collection] = nil }
        }
    }

    /// The purges in one state: pending ones from storage (running here, elsewhere, or waiting to
    /// be resumed; failed when this node's last attempt stopped), finished ones from this node's memory.
    func list(state: CollectionPurge.State) async throws(BusError) -> [CollectionPurge] {
        let known = progress.withLock { $0 }
        if state == .succeeded {
            return known.values.filter { $0.state == .succeeded }.sorted { ($0.requestedAt, $0.collection) > ($1.requestedAt, $1.collection) }
        }
        var purges: [CollectionPurge] = []
        for record in try await service.pendingPurges() {
            let data = try? record.decode(PurgeData.self)
            var purge = known[record.id] ?? CollectionPurge(owner: record.owner, collection: record.id, name: data?.name ?? "",
                                                            state: .running, requestedAt: data?.requestedAt ?? record.createdAt)
            // Finished here but its record not yet gone, or pending again: it is still to be done.
            if purge.state == .succeeded { purge.state = .running }
            if purge.state == state { purges.append(purge) }
        }
        return purges.sorted { ($0.requestedAt, $0.collection) > ($1.requestedAt, $1.collection) }
    }

    /// Starts every pending purge (after a restart, or one that failed).
    func resume() async {
        do throws(BusError) {
            for record in try await service.pendingPurges() {
                let data = try? record.decode(PurgeData.self)
                start(owner: record.owner, collection: record.id, name: data?.name ?? "", requestedAt: data?.requestedAt ?? record.createdAt)
            }
        } catch {
            logger.warning("vocabulary: pending collection deletions could not be listed; retrying shortly",
                           metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
        }
    }
}
