import Bus
import Foundation
import Logging
import PluginKit
import StorageAPI
import Synchronization

/// Deletes the entries of deleted collections in the background: started by the delete itself,
/// and resumed by the janitor for purges a restart interrupted. One purge per collection at a
/// time in this process.
final class CollectionPurger: Sendable {
    let service: VocabularyService
    let logger: Logger
    /// Where purges run: in the host's ServiceGroup (one cut short is resumed by the janitor).
    let background: BackgroundWork
    private let running = Mutex<Set<String>>([])

    init(service: VocabularyService, logger: Logger, background: BackgroundWork) {
        self.service = service
        self.logger = logger
        self.background = background
    }

    /// Starts purging a deleted collection unless it is being purged already.
    func start(owner: String, collection: String) {
        guard running.withLock({ $0.insert(collection).inserted }) else { return }
        let started = background.start { [self] in
            defer { _ = running.withLock { $0.remove(collection) } }
            do throws(BusError) {
                let count = try await service.purge(owner: owner, collection: collection)
                logger.debug("vocabulary: a deleted collection's entries are deleted", metadata: ["collection": "\(collection)", "entries": "\(count)"])
            } catch {
                logger.warning("vocabulary: deleting a deleted collection's entries stopped; the janitor resumes it",
                               metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
            }
        }
        if !started { _ = running.withLock { $0.remove(collection) } }
    }

    /// Starts every pending purge (after a restart, or one that failed).
    func resume() async {
        do throws(BusError) {
            for record in try await service.pendingPurges() { start(owner: record.owner, collection: record.id) }
        } catch {
            logger.warning("vocabulary: pending collection deletions could not be listed; retrying shortly",
                           metadata: ["code": "\(error.code.rawValue)", "error": "\(error.message)"])
        }
    }
}
