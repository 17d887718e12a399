/// Keys that order a user's list, where an item can always be placed between two others by writing
/// only its own key (fractional indexing).
///
/// A key is a non-empty string over `0-9A-Za-z` (compared by bytes) that never ends in `0`, so there
/// is always room before it. Two clients inserting at the same spot at once may pick the same key;
/// lists sort by key and then by record id, so both still see the same, stable order.
public enum OrderKey {
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    static let base = digits.count

    /// Whether `key` is a well-formed order key.
    public static func isValid(_ key: String) -> Bool {
        guard let last = key.utf8.last, last != digits[0], key.utf8.count <= 512 else { return false }
        return key.utf8.allSatisfy { digits.contains($0) }
    }

    /// A key strictly between `lower` and `upper`; nil bounds mean the start and the end of the list.
    /// Returns nil when `lower >= upper` or a bound is malformed (there is no room: respace the list).
    public static func between(_ lower: String?, _ upper: String?) -> String? {
        if let lower, !isValid(lower) { return nil }
        if let upper, !isValid(upper) { return nil }
        let a = lower.map { Array($0.utf8).map(index) } ?? []
        let b = upper.map { Array($0.utf8).map(index) }
        if let b, !(a.lexicographicallyPrecedes(b)) { return nil }
        // At the ends, step rather than halve: appending (the common case) then grows a key by one
        // character per 61 appends instead of one per six.
        let key: [Int]
        switch (a.isEmpty, b) {
        case (false, nil): key = increment(a)
        case (true, let b?): key = decrement(b)
        default: key = midpoint(a, b)
        }
        return String(decoding: key.map { digits[$0] }, as: UTF8.self)
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

    /// The shortest change that sorts after `a`: bump the first digit that can be bumped.
    private static func increment(_ a: [Int]) -> [Int] {
        for position in a.indices where a[position] < base - 1 {
            return Array(a[..<position]) + [a[position] + 1]
        }
        return a + [1]
    }

    /// A key that sorts before `b` (which never ends in 0), stepping down its first digit.
    private static func decrement(_ b: [Int]) -> [Int] {
        guard let first = b.first else { return [base / 2] }
        if first > 1 { return [first - 1] }
        if first == 1 { return [0, base - 1] }
        return [0] + decrement(Array(b.dropFirst()))
    }

    private static func index(_ byte: UInt8) -> Int {
        digits.firstIndex(of: byte) ?? 0
    }

    /// Midpoint of digit strings `a < b` (b nil: the end), never ending in digit 0.
    private static func midpoint(_ a: [Int], _ b: [Int]?) -> [Int] {
        if let b {
            // Skip a common prefix (a padded with zeros).
            var n = 0
            while n < b.count, (n < a.count ? a[n] : 0) == b[n] { n += 1 }
            if n > 0 {
                let rest = midpoint(Array(a.dropFirst(min(n, a.count))), Array(b.dropFirst(n)))
                return Array(b.prefix(n)) + rest
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
        return [digitA] + midpoint(Array(a.dropFirst()), nil)
    }
}
