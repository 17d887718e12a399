public import Bus
public import Foundation
import JSONBytes

/// A record as Quire's APIs show one: `{"id":…,"version":…,"createdAt":…,"updatedAt":…` and then
/// the members of its stored payload spliced in as they are (the payload is already JSON), `}`.
/// Timestamps are ISO 8601 UTC to the second. A payload that is not an object with members adds
/// nothing. The notes' list is written this way straight from SQLite's rows (``RecordJSONQuerying``).
public enum RecordJSON {
    /// Appends one record from its parts: `id` the id's UTF-8 bytes, `data` the payload's JSON bytes.
    public static func append(id: UnsafeRawBufferPointer, version: Int64, createdAt: Double, updatedAt: Double,
                              data: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        appendStatic("{\"id\":", to: &out)
        JSONBytes.appendString(id, to: &out)
        appendStatic(",\"version\":", to: &out)
        JSONBytes.appendInt(version, to: &out)
        appendStatic(",\"createdAt\":", to: &out)
        JSONBytes.appendTimestamp(createdAt, to: &out)
        appendStatic(",\"updatedAt\":", to: &out)
        JSONBytes.appendTimestamp(updatedAt, to: &out)
        if data.count > 2, data[0] == UInt8(ascii: "{"), data[data.count - 1] == UInt8(ascii: "}") {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[1..<(data.count - 1)]))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends one record.
    public static func append(_ record: Record, to out: inout [UInt8]) {
        var id = record.id
        id.withUTF8 { id in
            record.data.bytes.withUnsafeBytes { data in
                append(id: UnsafeRawBufferPointer(id), version: record.version, createdAt: record.createdAt.timeIntervalSince1970,
                       updatedAt: record.updatedAt.timeIntervalSince1970, data: data, to: &out)
            }
        }
    }

    /// A page of records written out (the backends without a way of their own).
    public static func page(_ page: RecordPage) -> RecordPageJSON {
        var items: [UInt8] = []
        items.reserveCapacity(page.records.reduce(0) { $0 + 128 + $1.data.bytes.count })
        for (index, record) in page.records.enumerated() {
            if index > 0 { items.append(UInt8(ascii: ",")) }
            append(record, to: &items)
        }
        return RecordPageJSON(items: items, count: page.records.count, nextCursor: page.nextCursor)
    }

    @inline(__always)
    static func appendStatic(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }
}

/// A query's page with its records already written as JSON (see ``RecordJSON``).
public struct RecordPageJSON: Codable, Sendable, Equatable {
    /// The records, each as ``RecordJSON`` writes it, separated by commas: a JSON array's contents
    /// without its brackets. Crosses a network bus as base64.
    public var items: [UInt8]
    public var count: Int
    /// As ``RecordPage/nextCursor``.
    public var nextCursor: String?

    public init(items: [UInt8], count: Int, nextCursor: String?) {
        self.items = items
        self.count = count
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey { case items, count, nextCursor }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = [UInt8](try container.decode(Data.self, forKey: .items))
        count = try container.decode(Int.self, forKey: .count)
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Data(items), forKey: .items)
        try container.encode(count, forKey: .count)
        try container.encodeIfPresent(nextCursor, forKey: .nextCursor)
    }
}

/// A backend that writes a query's page as JSON straight from its rows, without building a
/// ``Record`` per row (SQLite). The storage plugin answers ``QueryRecordsJSON`` with it when the
/// backend has it, else by ``RecordStore/query(_:)`` and ``RecordJSON/page(_:)`` — the same bytes.
public protocol RecordJSONQuerying: Sendable {
    func queryJSON(_ query: RecordQuery) async throws(StorageError) -> RecordPageJSON
}

/// ``QueryRecords`` with the page written as JSON by storage (``RecordJSON``): for a list an API
/// answers with its records as they are.
public struct QueryRecordsJSON: BusRequest {
    public static let name: MessageName = "storage.record.query-json.v1"
    public typealias Reply = RecordPageJSON
    public var query: RecordQuery
    public init(query: RecordQuery) { self.query = query }
}
