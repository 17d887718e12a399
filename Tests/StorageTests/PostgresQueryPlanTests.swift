import Bus
import Foundation
import StorageAPI
@testable import StoragePostgres
import Testing

/// Which index PostgreSQL answers the common queries from: a plan that sorts every match instead
/// of reading an index in order is correct but grows with the collection (the album's folders,
/// searched as you type).
@Suite("PostgreSQL query plans", .enabled(if: TestPostgres.available, "no PostgreSQL server: run tools/test, or tools/postgres start"))
struct PostgresQueryPlanTests {
    struct Posting: Codable {
        var tag: String
        var sortKey: String?
    }

    struct Entry: Codable {
        var word: String
    }

    static let postings = "plan.postings"

    /// `count` records made by `make`, written in full batches.
    static func insert(_ store: PostgresRecordStore, into collection: String, count: Int, _ make: (Int) -> any Encodable) async throws {
        for start in stride(from: 0, to: count, by: WriteBatch.maxOperations) {
            let operations = try (start..<min(count, start + WriteBatch.maxOperations)).map { index in
                WriteOperation.insert(collection: collection, id: nil, owner: "alice", data: try JSONDocument(encoding: make(index)))
            }
            _ = try await store.write(WriteBatch(operations))
        }
    }

    static func seed(_ store: PostgresRecordStore) async throws {
        try await store.declare(CollectionSchema(name: postings, indexes: [IndexSpec(name: "tag_time", fields: ["tag", "sortKey"])]))
        try await insert(store, into: postings, count: 5000) { index in
            Posting(tag: "t\(index % 30)", sortKey: index % 97 == 0 ? nil : String(format: "2024-%05d", index))
        }
    }

    /// The plan's nodes that sort rows, but for an incremental sort (ties by id within one key).
    static func fullSorts(_ plan: String) -> [Substring] {
        plan.split(separator: "\n").filter { $0.contains("Sort") && !$0.contains("Incremental Sort") && !$0.contains("Sort Key") }
    }

    @Test("an ordered query reads its index in order, both ways, nulls where the contract puts them")
    func orderedQueries() async throws {
        try await TestPostgres.withStore { store in
            try await Self.seed(store)
            for descending in [false, true] {
                let query = RecordQuery(collection: Self.postings, owner: "alice", filters: [Filter("tag", .eq, .string("t7"))],
                                        order: [SortKey("sortKey", descending: descending)], limit: 20)
                let plan = try await store.plan(PostgresSQL.select(query, cursor: nil))
                #expect(plan.contains(PostgresSQL.indexName(collection: Self.postings, index: "tag_time")), "\(plan)")
                #expect(Self.fullSorts(plan).isEmpty, "descending: \(descending)\n\(plan)")
            }
        }
    }

    @Test("a key prefix search reads the key's B-tree in order and each record by its key")
    func keySearch() async throws {
        try await TestPostgres.withStore { store in
            try await store.declare(CollectionSchema(name: "plan.words", search: SearchIndexSpec(key: "word")))
            try await Self.insert(store, into: "plan.words", count: 5000) { Entry(word: "a\($0)") }
            let query = SearchQuery(collection: "plan.words", owner: "alice", text: "a1", limit: 20)
            let plan = try await store.plan(PostgresSearch.keyMatches(query, terms: SearchText.terms(query.text)))
            #expect(plan.contains("search_by_key") && plan.contains("records_pkey"), "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
        }
    }
}

@Suite("PostgreSQL search index rebuild", .enabled(if: TestPostgres.available, "no PostgreSQL server: run tools/test, or tools/postgres start"))
struct PostgresSearchRebuildTests {
    @Test("an index declared on a collection of thousands covers every record (it is built a page at a time)")
    func rebuildsInPages() async throws {
        try await TestPostgres.withStore { store in
            try await store.declare(CollectionSchema(name: "rebuild.words"))
            try await PostgresQueryPlanTests.insert(store, into: "rebuild.words", count: 2500) { PostgresQueryPlanTests.Entry(word: "w\($0)") }
            try await store.declare(CollectionSchema(name: "rebuild.words", search: SearchIndexSpec(key: "word")))
            for word in ["w0", "w999", "w1000", "w2499"] {
                let hits = try await store.search(SearchQuery(collection: "rebuild.words", owner: "alice", text: word + " ", limit: 5)).hits
                #expect(hits.map { try? $0.record.decode(PostgresQueryPlanTests.Entry.self).word } == [word], "\(word)")
            }
        }
    }
}

/// What PostgreSQL's search writes and asks for: "in the key" is a lexeme of its own (`=hund`),
/// never a weight, so a GIN match needs no re-read of the rows to check weights.
@Suite("PostgreSQL search lexemes")
struct PostgresSearchLexemeTests {
    @Test("a record's words: every word as it is, the key's once more marked, each with its two- and three-letter beginnings")
    func rowLexemes() {
        let spec = SearchIndexSpec(key: "word", text: ["definitions"])
        let row = PostgresSearch.Row(spec: spec, data: .object(["word": .string("Hund"), "definitions": .array([.string("dog, a hound"), .string("hund")])]))
        #expect(row.key == "hund")
        #expect(row.terms == "'=hund' '=^hu' '=^hun' 'hund' '^hu' '^hun' 'dog' '^do' '^dog' 'a' 'hound' '^ho' '^hou'")
        #expect(!row.terms.contains(":"))
    }

    @Test("a query asks the key alone (marked words) or any field (words as they are): one lexeme a word; the last as a beginning or a prefix")
    func queries() {
        let typing = SearchText.terms("etw ha")
        #expect(PostgresSearch.tsquery(typing, keyOnly: true) == "'=etw' & '=^ha'")
        #expect(PostgresSearch.tsquery(typing, keyOnly: false) == "'etw' & '^ha'")
        let longer = SearchText.terms("etw habe")
        #expect(PostgresSearch.tsquery(longer, keyOnly: true) == "'=etw' & '=habe':*")
        #expect(PostgresSearch.tsquery(longer, keyOnly: false) == "'etw' & 'habe':*")
    }

    @Test("a quote or a backslash in a word is escaped")
    func quoting() {
        #expect(PostgresSearch.lexeme("it's") == "'it''s'")
        #expect(PostgresSearch.lexeme("a\\b") == "'a\\\\b'")
    }
}
