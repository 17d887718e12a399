import Bus
import Foundation
import Logging
import PostgresNIO
public import StorageAPI
import Synchronization

extension PostgresRecordStore {
    public func heldBlobs(among blobs: Set<String>) async throws(StorageError) -> Set<String> {
        let fields = collections.withLock { $0.blobFields }
        return try await run { connection in
            try await Self.held(among: blobs, fields: fields, connection: connection, logger: self.logger)
        }
    }

    static func held(among blobs: Set<String>, fields: [String: [String]], connection: PostgresConnection,
                             logger: Logger) async throws -> Set<String> {
        var held: Set<String> = []
        for (collection, names) in fields.sorted(by: { $0.key < $1.key }) {
            for field in names {
                // The collection and field are validated names, written as the blob index's literals;
                // the hashes still unaccounted for go in as one array, each looked up in the blob index
                // until its first holder (a blob a hundred thousand photos share is one probe).
                let pending = blobs.subtracting(held).sorted()
                guard !pending.isEmpty else { return held }
                let expression = PostgresSQL.expression(field)
                let sql = """
                    SELECT b FROM unnest($1::text[]) AS b WHERE EXISTS (
                        SELECT 1 FROM records WHERE collection = \(PostgresSQL.literal(collection)) AND \(expression) = to_jsonb(b))
                    """
                var binds = PostgresBindings()
                binds.append(pending)
                for try await blob in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(String.self) {
                    held.insert(blob)
                }
            }
        }
        return held
    }

    public func usage(owner: String) async throws(StorageError) -> (recordBytes: Int, blobs: Set<String>) {
        let fields = collections.withLock { $0.blobFields }
        return try await run { connection in
            var bytes = 0
            for try await value in try await connection.query("SELECT COALESCE(SUM(octet_length(data::text)), 0)::bigint FROM records WHERE owner = \(owner)",
                                                               logger: self.logger).decode(Int64.self) {
                bytes = Int(value)
            }
            var blobs: Set<String> = []
            for (collection, names) in fields {
                for field in names {
                    let sql = "SELECT DISTINCT \(PostgresSQL.expression(field)) #>> '{}' FROM records WHERE collection = $1 AND owner = $2"
                    for try await sha in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.binds(collection, owner)),
                                                                     logger: self.logger).decode(String?.self) {
                        if let sha { blobs.insert(sha) }
                    }
                }
            }
            return (bytes, blobs)
        }
    }
}
