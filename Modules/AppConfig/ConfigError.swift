/// One mistake in a config file, located by file, line and column.
public struct ConfigDiagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    /// The dotted path of the key at fault, e.g. `plugins.storage.backend`.
    public var path: String
    /// What was wrong and what was expected.
    public var message: String

    public init(location: SourceLocation, path: String, message: String) {
        self.location = location
        self.path = path
        self.message = message
    }

    /// The one-line form: `file:line:column: path: message`.
    public var description: String {
        path.isEmpty ? "\(location): \(message)" : "\(location): \(path): \(message)"
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
