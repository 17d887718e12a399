import OrderKeys
import SeededRandom
import Testing

@Suite("Order keys")
struct OrderKeyTests {
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    @Test("a key between two others sorts strictly between them, for thousands of random insertions")
    func randomInsertions() {
        var generator = SplitMix64(seed: 42)
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
            if let lower { #expect(Self.precedes(lower, key)) }
            if let upper { #expect(Self.precedes(key, upper)) }
            keys.insert(key, at: slot)
        }
        #expect(keys == keys.sorted(by: Self.precedes))
        #expect(Set(keys).count == keys.count)
    }

    @Test("random interleavings of appends, prepends, inserts between neighbours and runs of keys stay in sorted order",
          arguments: [1, 2, 3, 4, 5] as [UInt64])
    func interleavings(_ seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var keys: [String] = []
        for _ in 0..<4000 {
            let choice = Int.random(in: 0..<10, using: &generator)
            let slot: Int
            switch choice {
            case 0..<4: slot = keys.count                                   // append
            case 4..<6: slot = 0                                            // prepend
            default: slot = Int.random(in: 0...keys.count, using: &generator)  // anywhere
            }
            let lower = slot > 0 ? keys[slot - 1] : nil
            let upper = slot < keys.count ? keys[slot] : nil
            let count = choice == 9 ? Int.random(in: 1...40, using: &generator) : 1
            guard let run = OrderKey.keys(between: lower, upper, count: count) else {
                Issue.record("no \(count) keys between \(lower ?? "start") and \(upper ?? "end")")
                return
            }
            #expect(run.count == count)
            #expect(run.allSatisfy(OrderKey.isValid))
            #expect(zip(run, run.dropFirst()).allSatisfy { Self.precedes($0, $1) })
            if let lower, let first = run.first { #expect(Self.precedes(lower, first)) }
            if let upper, let last = run.last { #expect(Self.precedes(last, upper)) }
            keys.insert(contentsOf: run, at: slot)
        }
        #expect(keys == keys.sorted(by: Self.precedes))
        #expect(Set(keys).count == keys.count)
    }

    /// Key lengths after n appends, as BENCHMARKS.md records them.
    static let appendLengths = [1_000: 4, 10_000: 5, 100_000: 5, 1_000_000: 6]

    @Test("a million sequential appends stay in order with keys of at most six characters")
    func millionAppends() async {
        var last: String?
        var longest = 0
        var lengths: [Int: Int] = [:]
        for n in 1...1_000_000 {
            guard let key = OrderKey.between(last, nil) else {
                Issue.record("no key after \(last ?? "start") at append \(n)")
                return
            }
            if let last, !Self.precedes(last, key) {
                Issue.record("append \(n): \(key) does not sort after \(last)")
                return
            }
            longest = max(longest, key.utf8.count)
            if Self.appendLengths[n] != nil { lengths[n] = longest }
            last = key
            // Let the other suites' tasks run: this one is pure CPU for a few seconds.
            if n % 20_000 == 0 { await Task.yield() }
        }
        #expect(last.map(OrderKey.isValid) == true)
        print("order keys: longest key after n sequential appends:", lengths.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        #expect(lengths == Self.appendLengths)
        #expect(longest <= 6)
    }

    @Test("a million notes imported 100 to a batch after a user's notes stay in order with short keys")
    func millionImported() async {
        // The user's list already holds notes appended one at a time.
        var last: String? = OrderKey.keys(after: nil, count: 250)?.last
        var longest = 0
        var lengths: [Int: Int] = [:]
        var imported = 0
        while imported < 1_000_000 {
            guard let batch = OrderKey.keys(after: last, count: 100), let first = batch.first else {
                Issue.record("no keys after \(last ?? "start") at note \(imported)")
                return
            }
            if let last, !Self.precedes(last, first) {
                Issue.record("batch at \(imported) starts at \(first), not after \(last)")
                return
            }
            guard zip(batch, batch.dropFirst()).allSatisfy({ Self.precedes($0, $1) }) else {
                Issue.record("batch at \(imported) is not increasing")
                return
            }
            for key in batch { longest = max(longest, key.utf8.count) }
            imported += batch.count
            if imported % 20_000 == 0 { await Task.yield() }
            if Self.appendLengths[imported] != nil { lengths[imported] = longest }
            last = batch.last
        }
        print("order keys: longest key after n notes imported in batches of 100:", lengths.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        #expect(longest <= 6)
        #expect(lengths.values.allSatisfy { $0 <= 6 })
    }

    @Test("a hundred thousand prepends keep keys short too, and sort before every earlier key")
    func prepends() async {
        var first: String?
        var longest = 0
        for n in 1...100_000 {
            guard let key = OrderKey.between(nil, first) else {
                Issue.record("no key before \(first ?? "end") at prepend \(n)")
                return
            }
            if let first, !Self.precedes(key, first) {
                Issue.record("prepend \(n): \(key) does not sort before \(first)")
                return
            }
            longest = max(longest, key.utf8.count)
            first = key
            if n % 20_000 == 0 { await Task.yield() }
        }
        #expect(longest <= 6)
        #expect(OrderKey.keys(before: first, count: 1000)?.last.map { Self.precedes($0, first ?? "") } == true)
    }

    @Test("keys written by the earlier scheme (one character more every 61 appends) sort before new appends")
    func earlierKeys() {
        // The earlier scheme, as stored lists hold it: "V", "W", …, "z", "z1", …, "zz", "zz1", …
        var legacy: [String] = ["V"]
        for _ in 0..<5000 { legacy.append(Self.legacyIncrement(legacy[legacy.count - 1])) }
        // An earlier import's keys: a prefix then two spread characters.
        let prefix = Self.legacyIncrement(legacy[legacy.count - 1])
        legacy += OrderKey.spread(100).map { prefix + $0 }
        #expect(legacy == legacy.sorted(by: Self.precedes))
        let longest = legacy.map(\.utf8.count).max() ?? 0
        #expect(longest > 80)
        // New appends after the stored list: after every earlier key, and growing slowly again.
        guard let appended = OrderKey.keys(after: legacy.last, count: 100_000) else {
            Issue.record("no keys after the earlier list")
            return
        }
        let all = legacy + appended
        #expect(all == all.sorted(by: Self.precedes))
        #expect((appended.map(\.utf8.count).max() ?? 0) <= longest + 6)
        // Prepends before the earlier list's first key and inserts between its keys work as before.
        #expect(OrderKey.between(nil, legacy[0]).map { Self.precedes($0, legacy[0]) } == true)
        #expect(OrderKey.between(legacy[3000], legacy[3001]).map { Self.precedes(legacy[3000], $0) && Self.precedes($0, legacy[3001]) } == true)
        // Respacing the whole stretch gives short keys again.
        let respaced = OrderKey.keys(between: nil, appended.last, count: all.count) ?? []
        #expect(respaced.count == all.count && (respaced.map(\.utf8.count).max() ?? 99) <= 6)
        #expect(respaced == respaced.sorted(by: Self.precedes) && Self.precedes(respaced[respaced.count - 1], appended[appended.count - 1]))
    }

    @Test("the length cap: a key after 512 z's cannot be made, and says so with nil")
    func cap() {
        let full = String(repeating: "z", count: OrderKey.maxLength)
        #expect(OrderKey.isValid(full))
        #expect(OrderKey.between(full, nil) == nil)
        #expect(OrderKey.keys(after: full, count: 3) == nil)
        #expect(!OrderKey.isValid(full + "1"))
        // But there is room before it, and a respaced run below it is short.
        #expect(OrderKey.between(nil, full).map(OrderKey.isValid) == true)
        #expect((OrderKey.keys(between: nil, full, count: 500)?.map(\.utf8.count).max() ?? 99) <= 4)
    }

    @Test("runs of keys between two neighbours: increasing, strictly inside, short for near neighbours")
    func runsBetween() {
        let lower = "z2Aa", upper = "z2Ab"
        let run = OrderKey.keys(between: lower, upper, count: 500) ?? []
        #expect(run.count == 500)
        #expect(zip(run, run.dropFirst()).allSatisfy { Self.precedes($0, $1) })
        #expect(run.allSatisfy { Self.precedes(lower, $0) && Self.precedes($0, upper) && OrderKey.isValid($0) })
        #expect((run.map(\.utf8.count).max() ?? 99) <= lower.count + 3)
        #expect(OrderKey.keys(between: upper, lower, count: 1) == nil)
        #expect(OrderKey.keys(between: lower, upper, count: 0) == [])
    }

    @Test("appending and prepending repeatedly keeps keys short")
    func appendPrepend() {
        var last: String? = nil
        var first: String? = nil
        for _ in 0..<1000 {
            last = OrderKey.between(last, nil)
            first = OrderKey.between(nil, first)
        }
        #expect((last?.count ?? 99) <= 5)
        #expect((first?.count ?? 99) <= 5)
    }

    @Test("no room: equal or inverted bounds, malformed keys")
    func noRoom() {
        #expect(OrderKey.between("V", "V") == nil)
        #expect(OrderKey.between("b", "a") == nil)
        #expect(OrderKey.between("a0", nil) == nil)
        #expect(OrderKey.between("a!", nil) == nil)
        #expect(OrderKey.keys(after: "a!", count: 2) == nil)
    }

    @Test("spread gives distinct increasing valid keys", arguments: [1, 2, 61, 62, 500, 5000])
    func spread(_ count: Int) {
        let keys = OrderKey.spread(count)
        #expect(keys.count == count)
        #expect(keys.allSatisfy(OrderKey.isValid))
        #expect(zip(keys, keys.dropFirst()).allSatisfy { Self.precedes($0, $1) })
    }

    /// The earlier scheme's append: bump the first digit that can be bumped, else add a digit.
    static func legacyIncrement(_ key: String) -> String {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var bytes = Array(key.utf8)
        for position in bytes.indices where bytes[position] != digits[61] {
            let value = digits.firstIndex(of: bytes[position]) ?? 0
            bytes = Array(bytes[..<position]) + [digits[value + 1]]
            return String(decoding: bytes, as: UTF8.self)
        }
        return key + "1"
    }
}
