/// The stable, versioned name a message travels under, such as `media.thumbnail.v1`.
///
/// Names are part of the wire contract: a networked transport routes on them, so a message keeps its
/// name for as long as its shape is compatible and gets a new version suffix when it is not.
/// A valid name is two or more dot-separated lowercase segments (`a-z`, `0-9`, `_`, `-`), the last
/// one being `v` followed by a number.
public struct MessageName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// Creates a name, or returns `nil` when `rawValue` is not of the form `segment.….vN`.
    public init?(validating rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a name from a literal. Literals are written by programmers, and `BusTests` checks every
    /// message compiled into Quire against `isValid`, so an ill-formed literal fails the test suite.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }

    /// Whether `name` has the shape `segment(.segment)*.vN`.
    public static func isValid(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, let version = segments.last, version.first == "v",
              version.count > 1, version.dropFirst().allSatisfy(\.isASCIIDigitCharacter)
        else { return false }
        return segments.dropLast().allSatisfy { segment in
            !segment.isEmpty && segment.allSatisfy { $0.isNameCharacter }
        }
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
    fileprivate var isNameCharacter: Bool {
        ("a"..."z").contains(self) || isASCIIDigitCharacter || self == "_" || self == "-"
    }
}
