import Bus
import Foundation
import GRDB
public import StorageAPI
import Synchronization

extension SQLiteRecordStore {
    public func declare(_ schema: CollectionSchema) async throws(StorageError) {
        try SchemaRules.validate(schema)
        var schema = schema
        let known = blobFields.withLock { $0[schema.name] ?? [] }
        schema.blobFields = known + schema.blobFields.filter { !known.contains($0) }
        let blobIndexes = schema.blobFields.map { Self.blobIndex($0) }
        let previousSearch = searchSpecs.withLock { $0[schema.name] }
        if schema.search == nil { schema.search = previousSearch }
        let previousSpatial = spatialSpecs.withLock { $0[schema.name] }
        if schema.spatial == nil { schema.spatial = previousSpatial }
        // History is as the latest declaration says (the storage plugin may turn it off); a scope stays.
        if let previous = logSpecs.withLock({ $0[schema.name] }), schema.scope == nil { schema.scope = previous.scope }
        let tree = try await run { [schema] db -> String? in
            if schema.spatial != previousSpatial {
                return try SQLiteSpatial.rebuild(db, collection: schema.name, spec: schema.spatial)
            }
            return nil
        }
        if let tree { spatialTrees.withLock { $0[schema.name] = tree } }
        try await run { [schema] db in
            if schema.search != previousSearch {
                try SQLiteSearch.rebuild(db, collection: schema.name, spec: schema.search)
            }
            // A blob field's index is only asked "which record holds this blob?" (`field = ?`): a
            // record without the blob (most notes have no photo, drawing or voice) is left out of it.
            for index in schema.indexes + blobIndexes {
                let wanted = SQLQueryBuilder.createIndex(index, collection: schema.name)
                let name = SQLQueryBuilder.indexName(collection: schema.name, index: index.name)
                // An index declared anew with another definition replaces the old one.
                if let existing = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                                                      arguments: [name]),
                   existing != wanted.replacingOccurrences(of: " IF NOT EXISTS", with: "") {
                    try db.execute(sql: "DROP INDEX \(name)")
                }
                do {
                    try db.execute(sql: wanted)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw StorageError.conflict("Index '\(index.name)' on '\(schema.name)' cannot be unique: existing records share a key.")
                }
            }
            let text = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
            try db.execute(sql: "INSERT OR REPLACE INTO collections(name, schema) VALUES (?, ?)", arguments: [schema.name, text])
        }
        if !schema.blobFields.isEmpty { blobFields.withLock { $0[schema.name] = schema.blobFields } }
        if let search = schema.search { searchSpecs.withLock { $0[schema.name] = search } }
        if let spatial = schema.spatial { spatialSpecs.withLock { $0[schema.name] = spatial } }
        let spec = LogSpec(schema)
        logSpecs.withLock { $0[schema.name] = spec }
    }

    /// The index that answers "which record holds this blob?" for one blob field.
    static func blobIndex(_ field: String) -> IndexSpec {
        IndexSpec(name: "blob_" + field, fields: [field], scope: .global, sparse: true)
    }
}
