import Bus
import Foundation

/// The rules every backend applies identically, and their error messages (`package`: for the
/// backends in this package). Plugins pass these messages on to clients, so they name the client's
/// ids and never storage's own collections.
package enum RecordRules {
    package static func notFound(collection: String, id: String) -> StorageError {
        StorageError(.notFound, "'\(id)' does not exist; it may have been deleted.", details: ["id": id])
    }

    package static func duplicateID(collection: String, id: String) -> StorageError {
        StorageError(.conflict, "'\(id)' already exists.", details: ["id": id])
    }

    package static func check(expectedVersion: Int64?, actual: Int64, id: String) throws(StorageError) {
        if let expectedVersion, expectedVersion != actual {
            throw StorageError(.preconditionFailed,
                               "'\(id)' changed since you read it (it is at version \(actual), not \(expectedVersion)). Reload it and retry.",
                               details: ["id": id, "version": String(actual)])
        }
    }
}

package enum IdempotencyRules {
    package static func mismatch(_ claim: IdempotencyClaim) -> StorageError {
        StorageError(.conflict, "This Idempotency-Key was already used for a different request; use a new key for a new request.",
                     details: ["reason": "idempotency_key_reused"])
    }
}

package enum SchemaRules {
    package static func validate(_ schema: CollectionSchema) throws(StorageError) {
        guard StorageNames.isValidCollection(schema.name) else {
            throw StorageError.invalid("'\(schema.name)' is not a valid collection name.", field: "name")
        }
        if let spatial = schema.spatial {
            guard [spatial.latitude, spatial.longitude].allSatisfy({ StorageNames.isValidField($0) && !$0.hasPrefix("@") }) else {
                throw StorageError.invalid("The spatial index on '\(schema.name)' names two payload fields (latitude, longitude).", field: "spatial")
            }
        }
        for index in schema.indexes {
            guard !index.fields.isEmpty, index.fields.count <= 4,
                  index.fields.allSatisfy({ StorageNames.isValidField($0) && !$0.hasPrefix("@") }),
                  StorageNames.isValidField(index.name) else {
                throw StorageError.invalid("Index '\(index.name)' on '\(schema.name)' must name 1 to 4 payload fields.", field: "indexes")
            }
        }
        for field in schema.blobFields where !(StorageNames.isValidField(field) && !field.contains(".") && !field.hasPrefix("@")) {
            throw StorageError.invalid("Blob field '\(field)' on '\(schema.name)' must be a top-level payload field.", field: "blobFields")
        }
        if let search = schema.search {
            let fields = search.fields + search.filters
            guard search.text.count <= 8, search.filters.count <= 8,
                  fields.allSatisfy({ StorageNames.isValidField($0) && !$0.hasPrefix("@") }) else {
                throw StorageError.invalid("The search index on '\(schema.name)' takes a key, up to 8 text fields and up to 8 filters, all payload fields.",
                                           field: "search")
            }
        }
    }
}

/// The blobs a record holds through its collection's blob fields.
package enum BlobFieldRules {
    /// The SHA-256 values of `fields` in `payload`; null or absent holds nothing.
    /// - Throws: `invalid` when a blob field holds anything but a SHA-256 or null.
    package static func blobs(in payload: JSONValue, fields: [String], collection: String) throws(StorageError) -> Set<String> {
        var held: Set<String> = []
        for field in fields {
            switch payload.value(at: [Substring(field)]) {
            case .null: continue
            case .string(let sha256) where BlobRef.isValidHash(sha256): held.insert(sha256)
            default:
                throw StorageError.invalid("'\(field)' in '\(collection)' names a blob: a lowercase hex SHA-256 or null.", field: field)
            }
        }
        return held
    }
}

/// Record ids the stores choose: 128 random bits, lowercase hex.
package enum RecordIDs {
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// The time the stores stamp records with (`createdAt`, `updatedAt`) and blobs with when they are
/// put: the system's, as a database's `now()` is. A plugin compares a record's stamps with this (is a
/// job's heartbeat stale?), never with its own clock, which a test may have moved; everything else
/// a plugin times reads its context's clock. This file is the one place storage reads the time.
public enum StoreTime {
    public static func now() -> Date { Date() }
}

/// Record timestamps: seconds since 1970 in whole milliseconds, created from the stored number in
/// every backend, so that a timestamp reads back exactly as it was returned at write time.
package enum Timestamps {
    package static func now() -> Double {
        (StoreTime.now().timeIntervalSince1970 * 1000).rounded() / 1000
    }
}

/// The sort-key values of a record, as every backend compares them: meta fields from the record,
/// payload paths as the contract orders them (objects and arrays as their JSON text).
package enum CursorKeys {
    package static func values(of record: Record, parsed: JSONValue, order: [SortKey]) -> [JSONValue] {
        order.map { value(of: $0.field, record: record, parsed: parsed) }
    }

    package static func value(of field: String, record: Record, parsed: JSONValue) -> JSONValue {
        switch MetaField(rawValue: field) {
        case .id: return .string(record.id)
        case .created: return .number(record.createdAt.timeIntervalSince1970)
        case .updated: return .number(record.updatedAt.timeIntervalSince1970)
        case .version: return .number(Double(record.version))
        case nil:
            let value = parsed.value(at: field.split(separator: "."))
            switch value {
            case .array, .object: return .string(value.canonicalJSONText)
            default: return value
            }
        }
    }

    /// The cursor that continues after `record`; the payload is parsed once per page, here.
    package static func cursor(after record: Record, order: [SortKey]) -> String {
        let parsed = order.allSatisfy({ MetaField(rawValue: $0.field) != nil }) ? JSONValue.null : ((try? record.data.parsed()) ?? .null)
        return QueryCursor(values: values(of: record, parsed: parsed, order: order), id: record.id).encoded()
    }
}

/// Where an idempotent batch's records are, to replay it.
package struct RecordReference: Codable, Sendable {
    package var collection: String
    package var id: String

    package init(collection: String, id: String) {
        self.collection = collection
        self.id = id
    }
}

/// A collection's settings that the change log follows.
package struct LogSpec: Sendable {
    package var history: Bool
    package var scope: String?
    package var forgetsOnDelete: Bool

    package init?(_ schema: CollectionSchema) {
        guard schema.history || schema.scope != nil || schema.forgetsOnDelete else { return nil }
        history = schema.history
        scope = schema.scope
        forgetsOnDelete = schema.forgetsOnDelete
    }

    package func scope(id: String, _ data: JSONDocument) throws -> String? {
        guard let scope else { return nil }
        return ScopeRules.scope(field: scope, id: id, data: try data.parsed())
    }
}
