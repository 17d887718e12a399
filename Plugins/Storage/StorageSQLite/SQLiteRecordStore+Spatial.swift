import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    public func spatialQuery(_ query: SpatialQuery) async throws(StorageError) -> SpatialResult {
        let area = try query.validatedArea()
        guard spatialSpecs.withLock({ $0[query.collection] }) != nil, let tree = spatialTrees.withLock({ $0[query.collection] }) else {
            throw StorageError.invalid("'\(query.collection)' has no spatial index; declare one with the collection.", field: "collection")
        }
        let (smallOwner, bandCap) = (searchTuning.spatialSmallOwner, searchTuning.spatialOwnerBandCap)
        return try await read { db in
            try SQLiteSpatial.query(db, tree: tree, query, boxes: area.boxes, from: area.from, radius: area.radius, smallOwner: smallOwner,
                                    ownerBandCap: bandCap)
        }
    }
}
