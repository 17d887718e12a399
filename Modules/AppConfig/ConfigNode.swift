/// A position in a config file, 1-based.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// A YAML node with where it came from. Quire converts libyaml's tree into this small, `Sendable`
/// value once, so that everything after parsing can point at the line and column of a mistake.
public indirect enum ConfigNode: Sendable {
    case scalar(String, isPlain: Bool, SourceLocation)
    case mapping([(key: String, keyLocation: SourceLocation, value: ConfigNode)], SourceLocation)
    case sequence([ConfigNode], SourceLocation)

    public var location: SourceLocation {
        switch self {
        case .scalar(_, _, let location), .mapping(_, let location), .sequence(_, let location):
            location
        }
    }

    /// A short name of the node's kind for messages: "a mapping", "a list", "a scalar".
    var kindDescription: String {
        switch self {
        case .scalar(let value, let isPlain, _):
            isPlain && (value.isEmpty || value == "~" || value == "null") ? "nothing (null)" : "the value \"\(value)\""
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }

    /// Whether this is an explicit or implicit YAML null (`key:` with nothing after it).
    var isNull: Bool {
        if case .scalar(let value, true, _) = self { return value.isEmpty || value == "~" || value == "null" }
        return false
    }
}
