public import Bus
import Foundation
import JSONBytes

/// A record as Quire's APIs show one: `{"id":…,"version":…,"createdAt":…,"updatedAt":…` and then
/// the members of its stored payload spliced in as they are (the payload is already JSON), `}`.
/// Timestamps are ISO 8601 UTC to the second. A payload that is not an object with members adds
/// nothing. The notes' list is written this way straight from SQLite's rows (``RecordJSONQuerying``).
public enum RecordJSON {
    /// Appends one record from its parts: `id` the id's UTF-8 bytes, `data` the payload's JSON bytes.
    public static func append(id: UnsafeRawBufferPointer, version: Int64, createdAt: Double, updatedAt: Double,
                              data: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var stamps = Timestamps()
        append(id: id, version: version, createdAt: createdAt, updatedAt: updatedAt, data: data, to: &out, stamps: &stamps)
    }

    /// ``append(id:version:createdAt:updatedAt:data:to:)`` with the last timestamp written kept in
    /// `stamps`: a page's records mostly share their second (updatedAt is createdAt until an edit;
    /// notes made together), and the calendar arithmetic was 5 % of an uncached list's CPU.
    public static func append(id: UnsafeRawBufferPointer, version: Int64, createdAt: Double, updatedAt: Double,
                              data: UnsafeRawBufferPointer, to out: inout [UInt8], stamps: inout Timestamps) {
        appendStatic("{\"id\":", to: &out)
        JSONBytes.appendString(id, to: &out)
        appendStatic(",\"version\":", to: &out)
        JSONBytes.appendInt(version, to: &out)
        appendStatic(",\"createdAt\":", to: &out)
        stamps.append(createdAt, to: &out)
        appendStatic(",\"updatedAt\":", to: &out)
        stamps.append(updatedAt, to: &out)
        if data.count > 2, data[0] == UInt8(ascii: "{"), data[data.count - 1] == UInt8(ascii: "}") {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[1..<(data.count - 1)]))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends one record.
    public static func append(_ record: Record, to out: inout [UInt8]) {
        var stamps = Timestamps()
        append(record, to: &out, stamps: &stamps)
    }

    static func append(_ record: Record, to out: inout [UInt8], stamps: inout Timestamps) {
        var id = record.id
        id.withUTF8 { id in
            record.data.bytes.withUnsafeBytes { data in
                append(id: UnsafeRawBufferPointer(id), version: record.version, createdAt: record.createdAt.timeIntervalSince1970,
                       updatedAt: record.updatedAt.timeIntervalSince1970, data: data, to: &out, stamps: &stamps)
            }
        }
    }

    /// A page of records written out (the backends without a way of their own).
    public static func page(_ page: RecordPage) -> RecordPageJSON {
        var items: [UInt8] = []
        items.reserveCapacity(page.records.reduce(0) { $0 + 128 + $1.data.bytes.count })
        var stamps = Timestamps()
        for (index, record) in page.records.enumerated() {
            if index > 0 { items.append(UInt8(ascii: ",")) }
            append(record, to: &items, stamps: &stamps)
        }
        return RecordPageJSON(items: items, count: page.records.count, nextCursor: page.nextCursor)
    }

    /// The last timestamp written (its whole second and its bytes), reused while the second is the same.
    public struct Timestamps {
        private var second = Double.nan
        private var bytes: [UInt8] = []

        public init() {}

        /// Appends `seconds` as ``JSONBytes/appendTimestamp(_:to:)`` writes it.
        mutating func append(_ seconds: Double, to out: inout [UInt8]) {
            // The text depends on the whole second alone (NaN is never equal: written afresh).
            let whole = seconds.rounded(.down)
            if whole != second {
                bytes.removeAll(keepingCapacity: true)
                JSONBytes.appendTimestamp(seconds, to: &bytes)
                second = whole
            }
            bytes.withUnsafeBufferPointer { out.append(contentsOf: $0) }
        }
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
