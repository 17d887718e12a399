import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    public func search(_ query: SearchQuery) async throws(StorageError) -> SearchResult {
        let spec = searchSpecs.withLock { $0[query.collection] }
        try query.validate(against: spec)
        guard let spec else { return SearchResult(hits: []) }
        let (ownerSizes, tuning) = (self.ownerSizes, searchTuning)
        return try await read { db in
            let rows = try ownerSizes.rows(db, collection: query.collection, owner: query.owner, upTo: tuning.bigOwner)
            return try SQLiteSearch.search(db, query, spec: spec, ownerRows: rows, tuning: tuning)
        }
    }
}
