/// One mistake in a config file, located by file, line and column.
public struct ConfigDiagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    /// The dotted path of the key at fault, e.g. `plugins.storage.backend`.
    public var path: String
    /// What was wrong and what was expected.
    public var message: String

    public init(location: SourceLocation, path: String, message: String) {
        self.location = location
        self.path = ConfigText.printable(path)
        self.message = ConfigText.printable(message)
    }

    /// The one-line form: `file:line:column: path: message`.
    public var description: String {
        let location = SourceLocation(file: ConfigText.printable(location.file), line: location.line, column: location.column)
        return path.isEmpty ? "\(location): \(message)" : "\(location): \(path): \(message)"
    }
}

/// A config that could not be used: every mistake found, in file order.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// Stable code for tools and logs.
    public static let code = "config_invalid"

    public var diagnostics: [ConfigDiagnostic]

    public init(_ diagnostics: [ConfigDiagnostic]) {
        self.diagnostics = diagnostics.sorted {
            ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column)
        }
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Text from a config file made safe to print: a message may quote a value, and a value may hold
/// terminal escapes (ESC, BEL, NUL) or be megabytes long.
public enum ConfigText {
    /// The longest message printed whole; a longer one keeps its start and its end (where the
    /// advice is) and says how much was left out.
    public static let maxLength = 400

    /// Control characters spelt as `\u{1B}`; long text shortened in the middle.
    public static func printable(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        guard escaped.count > maxLength else { return escaped }
        let head = escaped.prefix(maxLength - 100), tail = escaped.suffix(100)
        return "\(head) … (\(escaped.count - head.count - tail.count) characters left out) … \(tail)"
    }
}
