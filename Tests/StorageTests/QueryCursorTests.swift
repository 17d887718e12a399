import Bus
import StorageAPI
import Testing

@Suite("Query cursors")
struct QueryCursorTests {
    @Test("a cursor decodes to what was encoded", arguments: [
        QueryCursor(values: [], id: "plain"),
        QueryCursor(values: [.null, .number(3), .number(-2.5), .bool(true)], id: "n_1"),
        QueryCursor(values: [.string("quote \" backslash \\ tab\t newline\n"), .string("é 漢字 🙂 \u{01}")], id: "x:y.z"),
        QueryCursor(values: [.string("")], id: "a-b_c"),
    ])
    func roundTrip(_ cursor: QueryCursor) throws {
        let text = cursor.encoded()
        #expect(text.utf8.allSatisfy { $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) },
                "URL-safe: \(text)")
        let decoded = try QueryCursor.decode(text, keyCount: cursor.values.count)
        #expect(decoded.id == cursor.id)
        #expect(decoded.values.count == cursor.values.count)
        for (a, b) in zip(decoded.values, cursor.values) {
            if case .same = JSONValue.compare(a, b) {} else { Issue.record("\(a) != \(b)") }
        }
    }

    @Test("a cursor for another query shape is refused")
    func wrongShape() {
        let text = QueryCursor(values: [.number(1)], id: "a").encoded()
        #expect(throws: BusError.self) { try QueryCursor.decode(text, keyCount: 2) }
    }
}
