/// Keys that order a user's list, where an item can always be placed between two others by writing
/// only its own key (fractional indexing).
///
/// A key is a non-empty string over `0-9A-Za-z` (compared by bytes), at most ``maxLength`` long, that
/// never ends in `0`, so there is always room before it. Two clients inserting at the same spot at
/// once may pick the same key; lists sort by key and then by record id, so both still see the same,
/// stable order.
///
/// Appending and prepending count rather than halve, so a list that only grows at its ends keeps
/// keys whose length grows with the logarithm of its size (six characters for a million appends):
///
/// - After the last key `L`: `z…z` (as many `z` as `L` starts with), a *width* character `1`…`y`
///   (1…60 digits follow), then that many base-62 digits: an integer that each append increments.
///   When the digits are all `z` the width grows by one; a key that is not of this form (any key
///   written before this scheme) is followed by one more `z` and a fresh counter `11`, which sorts
///   after it whatever it is — so keys stored by earlier versions keep sorting correctly.
/// - Before the first key: the mirror image, `0…0`, a width character `z` (1 digit), `y` (2), …,
///   then digits counted down.
///
/// A counter never ends in digit `0` (that value is skipped), so every key keeps room before it.
public enum OrderKey {
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    static let base = digits.count
    /// The longest key.
    public static let maxLength = 512
    /// Keys longer than this show a crowded stretch of a list (many moves into one gap, or keys written
    /// before appends counted); a list holding one is respaced around it in the background.
    public static let rebalanceLength = 24
    /// Widest counter (the width characters `1`…`y` and `z`…`2`).
    static let maxWidth = 60
    /// The digit of each byte, or -1.
    static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (value, byte) in digits.enumerated() { table[Int(byte)] = Int8(value) }
        return table
    }()

    /// Whether `key` is a well-formed order key.
    public static func isValid(_ key: String) -> Bool {
        guard let last = key.utf8.last, last != digits[0], key.utf8.count <= maxLength else { return false }
        return key.utf8.allSatisfy { values[Int($0)] >= 0 }
    }

    /// Whether `a` sorts before `b` (byte order, as every store compares them).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// A key strictly between `lower` and `upper`; nil bounds mean the start and the end of the list.
    /// Returns nil when `lower >= upper`, a bound is malformed, or the key would be longer than
    /// ``maxLength`` (there is no room: respace that stretch of the list).
    public static func between(_ lower: String?, _ upper: String?) -> String? {
        guard let (a, b) = bounds(lower, upper) else { return nil }
        let key: [Int]?
        switch (a, b) {
        case (nil, nil): key = [base / 2]
        case (let a?, nil): key = next(from: a, toward: .last)
        case (nil, let b?): key = next(from: b, toward: .first)
        case (let a?, let b?): key = midpoint(a, b)
        }
        return key.flatMap(string)
    }

    /// `count` increasing keys after `lower` (nil: an empty list), each the next append: what an
    /// import writes at the end of a list. Nil when `lower` is malformed or the keys would pass the
    /// length cap.
    public static func keys(after lower: String?, count: Int) -> [String]? {
        guard count > 0 else { return [] }
        guard let (a, _) = bounds(lower, nil) else { return nil }
        return run(from: a, toward: .last, count: count)
    }

    /// `count` increasing keys before `upper` (nil: an empty list), as repeated prepends would give.
    public static func keys(before upper: String?, count: Int) -> [String]? {
        guard count > 0 else { return [] }
        guard let (_, b) = bounds(nil, upper) else { return nil }
        return run(from: b, toward: .first, count: count)?.reversed()
    }

    /// `count` keys each one step further toward `end` than the one before, starting one step from
    /// `key` (nil: an empty list, starting from the middle key), in the order they were made.
    private static func run(from key: [Int]?, toward end: End, count: Int) -> [String]? {
        var result: [String] = []
        result.reserveCapacity(count)
        var current: [Int]
        if let key {
            guard let first = next(from: key, toward: end) else { return nil }
            current = first
        } else {
            current = [base / 2]
        }
        while true {
            guard let text = string(current) else { return nil }
            result.append(text)
            if result.count == count { return result }
            guard let following = next(from: current, toward: end) else { return nil }
            current = following
        }
    }

    /// `count` increasing keys strictly between `lower` and `upper`, spread over the room between them
    /// (nil bounds: the start and the end). What respacing a stretch of a list writes. Nil when there
    /// is no room (bounds inverted or malformed, or keys past the length cap).
    public static func keys(between lower: String?, _ upper: String?, count: Int) -> [String]? {
        guard count > 0 else { return [] }
        guard let (a, b) = bounds(lower, upper) else { return nil }
        switch (a, b) {
        case (nil, nil): return spread(count)
        case (_?, nil): return keys(after: lower, count: count)
        case (nil, _?): return keys(before: upper, count: count)
        case (let a?, let b?):
            var result: [String] = []
            result.reserveCapacity(count)
            return fill(a, b, count, into: &result) ? result : nil
        }
    }

    /// `count` evenly spread keys in increasing order, for building or respacing a whole list.
    public static func spread(_ count: Int) -> [String] {
        guard count > 0 else { return [] }
        // Width enough that every key gets its own prefix: base^width > count.
        var width = 1
        var capacity = base - 1
        while capacity < count {
            width += 1
            capacity *= base
        }
        let step = max(1, capacity / (count + 1))
        return (1...count).map { ordinal in
            var value = ordinal * step
            var key = [Int](repeating: 0, count: width)
            for position in stride(from: width - 1, through: 0, by: -1) {
                key[position] = value % base
                value /= base
            }
            while key.last == 0 { key.removeLast() }
            return String(decoding: key.map { digits[$0] }, as: UTF8.self)
        }
    }

    // MARK: Digits

    /// The bounds as digit strings, checked: well-formed and in order.
    private static func bounds(_ lower: String?, _ upper: String?) -> ([Int]?, [Int]?)? {
        if let lower, !isValid(lower) { return nil }
        if let upper, !isValid(upper) { return nil }
        let a = lower.map(digitValues)
        let b = upper.map(digitValues)
        if let a, let b, !a.lexicographicallyPrecedes(b) { return nil }
        return (a, b)
    }

    private static func digitValues(_ key: String) -> [Int] {
        key.utf8.map { Int(values[Int($0)]) }
    }

    /// The key's text, or nil past the length cap.
    private static func string(_ key: [Int]) -> String? {
        guard !key.isEmpty, key.count <= maxLength else { return nil }
        return String(decoding: key.map { digits[$0] }, as: UTF8.self)
    }

    /// The end of a list a key is made toward. Prepending is appending seen in a mirror: the run is
    /// of `0` instead of `z`, the width characters count down from `z` instead of up from `1`, and the
    /// counter counts down from all-`z` instead of up from 1 (see the type's documentation).
    enum End {
        /// After the last key: appending.
        case last
        /// Before the first key: prepending.
        case first

        /// The digit a leading run repeats; one more of it sorts past any key with a shorter run.
        var outer: Int { self == .last ? OrderKey.base - 1 : 0 }
        /// How the counter moves with each key: up after the last key, down before the first.
        var delta: Int { self == .last ? 1 : -1 }

        /// The counter width a width character stands for (outside `1...maxWidth`: not a counter).
        func width(of digit: Int) -> Int { self == .last ? digit : OrderKey.base - digit }

        /// The width character for a counter `width` digits wide.
        func digit(ofWidth width: Int) -> Int { self == .last ? width : OrderKey.base - width }

        /// The first counter of a width: 1 counting up, all `z` counting down (never ending in `0`).
        func firstCounter(width: Int) -> [Int] {
            self == .last ? Array(repeating: 0, count: width - 1) + [1] : Array(repeating: OrderKey.base - 1, count: width)
        }
    }

    /// The next append after `a` (`.last`) or prepend before it (`.first`): its counter stepped, or a
    /// wider counter, or a fresh one after one more leading `outer` digit (see the type's
    /// documentation). Always sorts past `a` toward `end`.
    static func next(from a: [Int], toward end: End) -> [Int]? {
        var run = 0
        while run < a.count, a[run] == end.outer { run += 1 }
        if run < a.count {
            let width = end.width(of: a[run])
            if (1...maxWidth).contains(width), a.count >= run + 1 + width {
                // Same run and width, the counter stepped: past `a` at the same length.
                var key = Array(a[0..<(run + 1 + width)])
                if step(&key, from: run + 1, by: end.delta) { return key.count <= maxLength ? key : nil }
                if width < maxWidth {
                    // A wider counter: its width character sorts past the narrower one's.
                    key = Array(repeating: end.outer, count: run) + [end.digit(ofWidth: width + 1)]
                        + end.firstCounter(width: width + 1)
                    return key.count <= maxLength ? key : nil
                }
            }
        }
        // Not a counter (or an exhausted one): one more `outer` digit than `a` starts with sorts past it.
        let key = Array(repeating: end.outer, count: run + 1) + [end.digit(ofWidth: 1)] + end.firstCounter(width: 1)
        return key.count <= maxLength ? key : nil
    }

    /// Adds `delta` (±1) to the counter in `key[start...]`, skipping a value that ends in 0. False
    /// when the counter has no next value at its width.
    private static func step(_ key: inout [Int], from start: Int, by delta: Int) -> Bool {
        for _ in 0..<2 {
            var position = key.count - 1
            var carry = delta
            while carry != 0 {
                guard position >= start else { return false }
                let sum = key[position] + carry
                key[position] = (sum + base) % base
                carry = sum >= base ? 1 : (sum < 0 ? -1 : 0)
                position -= 1
            }
            if key.last != 0 { return true }
        }
        return true
    }

    /// Fills `result` with `count` increasing keys strictly between `a < b`, halving the room.
    private static func fill(_ a: [Int], _ b: [Int], _ count: Int, into result: inout [String]) -> Bool {
        guard count > 0 else { return true }
        guard let middle = midpoint(a, b), let text = string(middle) else { return false }
        let left = (count - 1) / 2
        guard fill(a, middle, left, into: &result) else { return false }
        result.append(text)
        return fill(middle, b, count - 1 - left, into: &result)
    }

    /// Midpoint of digit strings `a < b` (b nil: the end), never ending in digit 0.
    private static func midpoint(_ a: [Int], _ b: [Int]?) -> [Int]? {
        if let b {
            // Skip a common prefix (a padded with zeros).
            var n = 0
            while n < b.count, (n < a.count ? a[n] : 0) == b[n] { n += 1 }
            if n > 0 {
                guard let rest = midpoint(Array(a.dropFirst(min(n, a.count))), Array(b.dropFirst(n))) else { return nil }
                let key = Array(b.prefix(n)) + rest
                return key.count <= maxLength ? key : nil
            }
        }
        let digitA = a.first ?? 0
        let digitB = b?.first ?? base
        if digitB - digitA > 1 {
            return [(digitA + digitB) / 2]
        }
        // Adjacent first digits.
        if let b, b.count > 1 {
            return [b[0]]
        }
        guard a.count < maxLength, let rest = midpoint(Array(a.dropFirst()), nil) else { return nil }
        return [digitA] + rest
    }
}
