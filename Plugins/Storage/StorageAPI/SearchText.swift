import Foundation

/// How text is folded, split into tokens and matched for search — the same in every backend, so
/// that "creme" finds "crème" whichever store answers, and highlights land on the same characters.
///
/// Folding: lower case, no diacritics (`é` → `e`), compatibility forms (`ﬁ` → `fi`, full-width
/// `Ａ` → `a`), `ß` → `ss`, `æ` → `ae`, `œ` → `oe`, `ø` → `o`, `ł` → `l`. A token is a run of letters
/// and digits; every Chinese or Japanese character (Han, kana) is a token of its own, so that text
/// written without spaces is found by any substring (a query's run of such characters must match
/// adjacent tokens, in order).
public enum SearchText {
    /// One token of a text: its folded form and where it is in the original (UTF-16 offsets, as
    /// JavaScript counts).
    public struct Token: Sendable, Hashable {
        public var folded: String
        public var start: Int
        public var end: Int
        /// A single Han or kana character.
        public var ideographic: Bool
    }

    /// What a query asks for: groups of tokens that must all be found. A group is one word, or a
    /// run of ideographic characters that must appear together and in order.
    public struct Terms: Sendable, Hashable {
        public var groups: [[String]]
        /// Whether the last token matches as a prefix (the user is still typing it). False when the
        /// query ends with a space.
        public var lastIsPrefix: Bool

        public var isEmpty: Bool { groups.isEmpty }
        /// The query folded as a key is: tokens joined by single spaces.
        public var foldedKey: String { groups.flatMap { $0 }.joined(separator: " ") }
    }

    /// The folded form of a whole text: its tokens joined by single spaces.
    public static func fold(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        forEachToken(text) { folded, _, _, _ in
            if !output.isEmpty { output += " " }
            output += folded
        }
        return output
    }

    public static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        forEachToken(text) { folded, start, end, ideographic in
            tokens.append(Token(folded: folded, start: start, end: end, ideographic: ideographic))
        }
        return tokens
    }

    public static func terms(_ query: String) -> Terms {
        var groups: [[String]] = []
        var previousEnd = -1
        var previousIdeographic = false
        forEachToken(query) { folded, start, end, ideographic in
            if ideographic, previousIdeographic, start == previousEnd, !groups.isEmpty {
                groups[groups.count - 1].append(folded)
            } else {
                groups.append([folded])
            }
            previousEnd = end
            previousIdeographic = ideographic
        }
        let endsWithSpace = query.unicodeScalars.last.map { $0.properties.isWhitespace } ?? false
        return Terms(groups: groups, lastIsPrefix: !endsWithSpace)
    }

    /// Whether every group of `terms` is found among `tokens`.
    public static func matchesAll(_ tokens: [Token], _ terms: Terms) -> Bool {
        terms.groups.indices.allSatisfy { index in
            !occurrences(of: terms.groups[index], in: tokens, prefix: terms.lastIsPrefix && index == terms.groups.count - 1).isEmpty
        }
    }

    /// The UTF-16 ranges of `text` that match some group of `terms`, merged and in order.
    public static func highlights(_ text: String, _ terms: Terms) -> [[Int]] {
        let tokens = tokens(text)
        var ranges: [(Int, Int)] = []
        for (index, group) in terms.groups.enumerated() {
            let prefix = terms.lastIsPrefix && index == terms.groups.count - 1
            for first in occurrences(of: group, in: tokens, prefix: prefix) {
                let last = tokens[first + group.count - 1]
                var end = last.end
                if prefix, let final = group.last, last.folded != final {
                    // Only the typed part of the last word: map the folded prefix back onto the
                    // original characters.
                    end = prefixEnd(of: text, token: last, foldedPrefix: final)
                }
                ranges.append((tokens[first].start, end))
            }
        }
        ranges.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        var merged: [[Int]] = []
        for (start, end) in ranges {
            if let last = merged.last, start <= last[1] {
                merged[merged.count - 1][1] = max(last[1], end)
            } else {
                merged.append([start, end])
            }
        }
        return merged
    }

    /// Indexes of tokens where `group` starts.
    private static func occurrences(of group: [String], in tokens: [Token], prefix: Bool) -> [Int] {
        guard !group.isEmpty, tokens.count >= group.count else { return [] }
        var found: [Int] = []
        for start in 0...(tokens.count - group.count) {
            var ok = true
            for (offset, term) in group.enumerated() {
                let token = tokens[start + offset].folded
                let isLast = offset == group.count - 1
                if !(token == term || (prefix && isLast && token.hasPrefix(term))) {
                    ok = false
                    break
                }
                // Inside an ideographic run, tokens must be adjacent in the text too.
                if offset > 0, tokens[start + offset].start != tokens[start + offset - 1].end { ok = false; break }
            }
            if ok { found.append(start) }
        }
        return found
    }

    private static func prefixEnd(of text: String, token: Token, foldedPrefix: String) -> Int {
        let utf16 = Array(text.utf16[text.utf16.index(text.utf16.startIndex, offsetBy: token.start)..<text.utf16.index(text.utf16.startIndex, offsetBy: token.end)])
        let scalars = String(decoding: utf16, as: UTF16.self).unicodeScalars
        var folded = ""
        var offset = token.start
        for scalar in scalars {
            if folded.count >= foldedPrefix.count, folded.hasPrefix(foldedPrefix) { break }
            folded += fold(scalar)
            offset += scalar.utf16.count
        }
        // Combining marks that follow belong to the last highlighted letter.
        var index = text.utf16.index(text.utf16.startIndex, offsetBy: offset)
        while offset < token.end, let scalar = Unicode.Scalar(text.utf16[index]), fold(scalar).isEmpty {
            offset += 1
            index = text.utf16.index(after: index)
        }
        return offset
    }

    // MARK: Tokenising

    private static func forEachToken(_ text: String, _ body: (String, Int, Int, Bool) -> Void) {
        var current = ""
        var start = 0
        var offset = 0
        var end = 0
        for scalar in text.unicodeScalars {
            let width = scalar.utf16.count
            defer { offset += width }
            if isIdeographic(scalar) {
                if !current.isEmpty { body(current, start, end, false); current = "" }
                body(String(scalar), offset, offset + width, true)
                continue
            }
            let folded = fold(scalar)
            if isWordScalar(scalar) {
                if current.isEmpty { start = offset }
                current += folded
                end = offset + width
            } else if !current.isEmpty {
                body(current, start, end, false)
                current = ""
            }
        }
        if !current.isEmpty { body(current, start, end, false) }
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (97...122).contains(value) || (65...90).contains(value) || (48...57).contains(value)
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// Han, hiragana, katakana (and their half-width forms).
    public static func isIdeographic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
             0xFF66...0xFF9F, 0x20000...0x3134F:
            return true
        default:
            return false
        }
    }

    /// The folded form of one scalar (empty for a combining mark).
    static func fold(_ scalar: Unicode.Scalar) -> String {
        let value = scalar.value
        if value < 0x80 {
            if (65...90).contains(value), let lower = Unicode.Scalar(value + 32) { return String(lower) }
            return String(scalar)
        }
        if value < foldTableLimit { return foldTable[Int(value)] }
        if (0xFF01...0xFF5E).contains(value), let ascii = Unicode.Scalar(value - 0xFEE0) {
            // Full-width Latin letters and digits.
            return fold(ascii)
        }
        return scalar.properties.lowercaseMapping
    }

    private static let foldTableLimit: UInt32 = 0x3000

    /// Folded forms of U+0000…U+2FFF (Latin, Greek, Cyrillic, combining marks, letter-like
    /// symbols), computed once with Foundation's folding.
    private static let foldTable: [String] = {
        var table = [String](repeating: "", count: Int(foldTableLimit))
        let special: [UInt32: String] = [0xDF: "ss", 0x1E9E: "ss", 0xE6: "ae", 0xC6: "ae", 0x153: "oe", 0x152: "oe",
                                         0xF8: "o", 0xD8: "o", 0x142: "l", 0x141: "l", 0x111: "d", 0x110: "d",
                                         0x131: "i", 0xFE: "th", 0xDE: "th", 0xF0: "d", 0xD0: "d"]
        for value in 0..<foldTableLimit {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if let fixed = special[value] { table[Int(value)] = fixed; continue }
            let folded = String(scalar).folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            let decomposed = folded.precomposedStringWithCompatibilityMapping
                .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            table[Int(value)] = String(String.UnicodeScalarView(decomposed.unicodeScalars.filter {
                $0.properties.generalCategory != .nonspacingMark
            }))
        }
        return table
    }()
}
