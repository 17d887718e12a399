import Bus
import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    public func spatialQuery(_ query: SpatialQuery) async throws(StorageError) -> SpatialResult {
        let area = try query.validatedArea()
        guard collections.withLock({ $0.spatial[query.collection] }) != nil else {
            throw StorageError.invalid("'\(query.collection)' has no spatial index; declare one with the collection.", field: "collection")
        }
        let statement = PostgresSpatial.select(query, area: area)
        let candidates = try await run { connection in
            var found: [(StorageAPI.Record, GeoPoint)] = []
            for try await (collection, id, owner, version, created, updated, data, latitude, longitude) in try await connection
                .query(statement.query, logger: self.logger).decode((String, String, String, Int64, Double, Double, String, Double, Double).self) {
                found.append((Self.record((collection, id, owner, version, created, updated, data)), GeoPoint(latitude: latitude, longitude: longitude)))
            }
            return found
        }
        return PostgresSpatial.answer(candidates, area: area, limit: query.limit)
    }
}
