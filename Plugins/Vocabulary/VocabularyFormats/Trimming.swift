extension Substring {
    /// The text without white space (line breaks included) at either end.
    ///
    /// Foundation's `trimmingCharacters(in:)` goes through `NSString` and UTF-16 on Linux: it was a
    /// tenth of a CSV import's time. This walks the Unicode scalars from both ends instead.
    public var trimmed: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        if first == scalars.startIndex, last == scalars.index(before: scalars.endIndex) { return String(self) }
        return String(scalars[first...last])
    }
}

extension String {
    /// The text without white space (line breaks included) at either end.
    public var trimmed: String { self[...].trimmed }
}
