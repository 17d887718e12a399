import OrderKeys
import Testing

@Suite("Order keys")
struct OrderKeyTests {
    @Test("a key between two others sorts strictly between them, for thousands of random insertions")
    func randomInsertions() {
        var generator = SeededGenerator(seed: 42)
        var keys: [String] = []
        for _ in 0..<3000 {
            let slot = Int.random(in: 0...keys.count, using: &generator)
            let lower = slot > 0 ? keys[slot - 1] : nil
            let upper = slot < keys.count ? keys[slot] : nil
            guard let key = OrderKey.between(lower, upper) else {
                Issue.record("no key between \(lower ?? "start") and \(upper ?? "end")")
                return
            }
            #expect(OrderKey.isValid(key))
            if let lower { #expect(lower.utf8.lexicographicallyPrecedes(key.utf8)) }
            if let upper { #expect(key.utf8.lexicographicallyPrecedes(upper.utf8)) }
            keys.insert(key, at: slot)
        }
        #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(Set(keys).count == keys.count)
    }

    @Test("appending and prepending repeatedly keeps keys short")
    func appendPrepend() {
        var last: String? = nil
        var first: String? = nil
        for _ in 0..<1000 {
            last = OrderKey.between(last, nil)
            first = OrderKey.between(nil, first)
        }
        #expect((last?.count ?? 99) <= 20)
        #expect((first?.count ?? 99) <= 20)
    }

    @Test("no room: equal or inverted bounds, malformed keys")
    func noRoom() {
        #expect(OrderKey.between("V", "V") == nil)
        #expect(OrderKey.between("b", "a") == nil)
        #expect(OrderKey.between("a0", nil) == nil)
        #expect(OrderKey.between("a!", nil) == nil)
    }

    @Test("spread gives distinct increasing valid keys", arguments: [1, 2, 61, 62, 500, 5000])
    func spread(_ count: Int) {
        let keys = OrderKey.spread(count)
        #expect(keys.count == count)
        #expect(keys.allSatisfy(OrderKey.isValid))
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }
}

/// Deterministic randomness, so a failure reproduces.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
