import Bus
import StorageAPI

/// What a declared search index answers, whichever backend keeps it.
public enum SearchContract {
    public typealias Store = any RecordStore & RecordSearching

    struct Word: Codable {
        var word: String
        var definitions: [String]
        var collection: String
        var tags: [String]
    }

    static let words = "contract.words"
    static let spec = SearchIndexSpec(key: "word", text: ["definitions"], filters: ["collection", "tags"])

    static func declare(_ store: Store) async throws {
        try await store.declare(CollectionSchema(name: words, search: spec))
    }

    static func add(_ store: Store, _ id: String, _ word: String, _ definitions: [String], collection: String = "c1",
                    tags: [String] = [], owner: String = "alice") async throws {
        _ = try await store.insert(Word(word: word, definitions: definitions, collection: collection, tags: tags),
                                   into: words, id: id, owner: owner)
    }

    static func ids(_ store: Store, _ text: String, filters: [SearchFilter] = [], owner: String = "alice",
                    limit: Int = 20) async throws -> [String] {
        try await store.search(SearchQuery(collection: words, owner: owner, text: text, filters: filters, limit: limit))
            .hits.map(\.record.id)
    }

    static func seed(_ store: Store) async throws {
        try await declare(store)
        try await add(store, "creme", "crème brûlée", ["a dessert of custard"], tags: ["food", "fr"])
        try await add(store, "cream", "cream", ["the fat part of milk", "crème in French"], tags: ["food"])
        try await add(store, "strasse", "Straße", ["street"], collection: "c2", tags: ["de"])
        try await add(store, "tokyo", "東京都", ["Tokyo Metropolis"], collection: "c3", tags: ["ja"])
        try await add(store, "eat", "manger", ["to eat; to have a meal"], tags: ["fr"])
        try await add(store, "crevette", "crevette", ["shrimp"], tags: ["food", "fr"])
        try await add(store, "bob", "crème", ["bob's word"], owner: "bob")
    }

    public static let cases: [ContractCase<Store>] = [
        ContractCase("case and accents fold both ways; ß finds ss") { store in
            try await seed(store)
            try expectEqual(try await ids(store, "creme brulee"), ["creme"], "creme brulee")
            try expectEqual(try await ids(store, "CRÈME BRÛLÉE"), ["creme"], "upper case with accents")
            try expectEqual(try await ids(store, "strasse"), ["strasse"], "strasse")
            try expectEqual(try await ids(store, "straß"), ["strasse"], "straß")
        },
        ContractCase("exact, then key prefix in key order, then words in the key, then in the text") { store in
            try await seed(store)
            try await add(store, "cr", "cr", ["abbreviation"])
            try await add(store, "ice", "ice cream", ["frozen dessert"])
            // "cr": exact first, then key prefixes in folded order (cream < creme brulee < crevette),
            // then a key with "cr…" not at its start (ice cream), then text only (shrimp? no).
            let hits = try await store.search(SearchQuery(collection: words, owner: "alice", text: "cr")).hits
            try expectEqual(hits.map(\.record.id), ["cr", "cream", "creme", "crevette", "ice"], "order for cr")
            try expectEqual(hits.map(\.tier), [.exact, .prefix, .prefix, .prefix, .key], "tiers for cr")
            let text = try await store.search(SearchQuery(collection: words, owner: "alice", text: "dessert")).hits
            try expectEqual(Set(text.map(\.record.id)), ["creme", "ice"], "dessert is in two definitions")
            try expect(text.allSatisfy { $0.tier == .text }, "definition matches are the text tier")
        },
        ContractCase("every word must match, the last one as a prefix unless the query ends with a space") { store in
            try await seed(store)
            try expectEqual(try await ids(store, "to ea"), ["eat"], "two words, last a prefix")
            try expectEqual(try await ids(store, "to ea "), [], "a finished word is not a prefix")
            try expectEqual(try await ids(store, "to eat "), ["eat"], "a finished word matches whole")
            try expectEqual(try await ids(store, "milk fat"), ["cream"], "words in any order")
            try expectEqual(try await ids(store, "milk xyz"), [], "one word missing")
        },
        ContractCase("a word being typed matches from its first letter on, after whole words too") { store in
            try await seed(store)
            for typed in ["the f", "the fa", "the fat", "the fat p", "the fat pa", "the fat par", "the fat part", "part of mi", "part of milk"] {
                try expectEqual(try await ids(store, typed), ["cream"], typed)
            }
            try expectEqual(try await ids(store, "the fx"), [], "a beginning no word has")
            try expectEqual(try await ids(store, "the fatt"), [], "longer than the word")
            try expectEqual(Set(try await ids(store, "crè")), ["cream", "creme", "crevette"], "three letters, folded")
            try expectEqual(try await ids(store, "to ha"), ["eat"], "two letters, in the text")
        },
        ContractCase("Chinese and Japanese are found by any substring") { store in
            try await seed(store)
            try expectEqual(try await ids(store, "京"), ["tokyo"], "one character inside")
            try expectEqual(try await ids(store, "京都"), ["tokyo"], "two characters inside")
            try expectEqual(try await ids(store, "東都"), [], "not adjacent")
        },
        ContractCase("matched parts are marked in UTF-16 offsets of the original text") { store in
            try await seed(store)
            let hit = try await store.search(SearchQuery(collection: words, owner: "alice", text: "crem")).hits
            let creme = hit.first { $0.record.id == "creme" }
            try expectEqual(creme?.highlights, [SearchHighlight(field: "word", ranges: [[0, 4]])], "crèm of crème brûlée")
            let cream = hit.first { $0.record.id == "cream" }
            try expectEqual(cream?.tier, .text, "cream is found by its definition only")
            try expectEqual(cream?.highlights, [SearchHighlight(field: "definitions.1", ranges: [[0, 4]])],
                            "crèm in the second definition")
            let tokyo = try await store.search(SearchQuery(collection: words, owner: "alice", text: "京都")).hits.first
            try expectEqual(tokyo?.highlights, [SearchHighlight(field: "word", ranges: [[1, 3]])], "京都 in 東京都")
        },
        ContractCase("filters: any of, all of, none of") { store in
            try await seed(store)
            try expectEqual(try await ids(store, "cr", filters: [SearchFilter("tags", .all, ["food", "fr"])]),
                            ["creme", "crevette"], "all of food, fr")
            try expectEqual(try await ids(store, "cr", filters: [SearchFilter("tags", .none, ["fr"])]), ["cream"], "none of fr")
            try expectEqual(try await ids(store, "str", filters: [SearchFilter("tags", .any, ["de", "ja"])]), ["strasse"], "any of de, ja")
            try expectEqual(try await ids(store, "cr", filters: [SearchFilter("collection", .any, ["c2"])]), [], "another collection")
            try expectEqual(try await ids(store, "dessert", filters: [SearchFilter("tags", .none, ["fr"])]), [], "none of, in the text tier")
        },
        ContractCase("no words browses: every record passing the filters, in folded-key order, in keyset pages") { store in
            try await seed(store)
            try expectEqual(try await ids(store, ""), ["cream", "creme", "crevette", "eat", "strasse", "tokyo"], "all of alice's, by folded key")
            try expectEqual(try await ids(store, "  ", filters: [SearchFilter("tags", .any, ["food"])]), ["cream", "creme", "crevette"],
                            "the words of a tag")
            try expectEqual(try await ids(store, "", filters: [SearchFilter("tags", .none, ["fr"]), SearchFilter("collection", .any, ["c1"])]),
                            ["cream"], "none of fr in c1")
            var pages: [[String]] = []
            var after: SearchCursor?
            repeat {
                let result = try await store.search(SearchQuery(collection: words, owner: "alice", text: "", limit: 4, after: after))
                try expect(result.hits.allSatisfy { $0.tier == .listed && $0.highlights.isEmpty }, "listed, without highlights")
                pages.append(result.hits.map(\.record.id))
                after = result.next
            } while after != nil && pages.count < 5
            try expectEqual(pages, [["cream", "creme", "crevette", "eat"], ["strasse", "tokyo"]], "pages of 4, then the rest and no cursor")
            try expectEqual(try await ids(store, "", owner: "bob"), ["bob"], "bob browses his own only")
        },
        ContractCase("another owner's records are never found") { store in
            try await seed(store)
            try expectEqual(try await ids(store, "crème", owner: "bob"), ["bob"], "bob finds his own")
            try expectEqual(try await ids(store, "bob"), [], "alice does not find bob's")
            try expectEqual(try await ids(store, "cr", owner: "carol"), [], "carol has nothing")
        },
        ContractCase("the index follows replaces and deletes") { store in
            try await seed(store)
            _ = try await store.replace(Word(word: "crêpe", definitions: ["thin pancake"], collection: "c1", tags: []),
                                        in: words, id: "crevette", owner: "alice")
            try expectEqual(try await ids(store, "crev"), [], "old word gone")
            try expectEqual(try await ids(store, "pancake"), ["crevette"], "new definition found")
            try await store.delete(from: words, id: "crevette", owner: "alice")
            try expectEqual(try await ids(store, "crep"), [], "deleted")
        },
        ContractCase("an index declared on existing records covers them; limit is honoured") { store in
            try await store.declare(CollectionSchema(name: words))
            for index in 0..<30 {
                _ = try await store.insert(Word(word: "word\(index)", definitions: [], collection: "c1", tags: []),
                                           into: words, id: "w\(index)", owner: "alice")
            }
            try await declare(store)
            try expectEqual(try await ids(store, "word", limit: 5), ["w0", "w1", "w10", "w11", "w12"], "first five in key order")
            try expectEqual(try await ids(store, "word2").count, 11, "word2 and word20…word29")
        },
        ContractCase("bad queries are refused") { store in
            try await seed(store)
            try await expectError(.invalid, "unknown filter") {
                try await ids(store, "a", filters: [SearchFilter("colour", .any, ["red"])])
            }
            try await expectError(.invalid, "limit 0") { try await ids(store, "a", limit: 0) }
            try await expectError(.invalid, "no index") {
                try await store.search(SearchQuery(collection: "contract.none", owner: "alice", text: "a"))
            }
        },
    ]
}
