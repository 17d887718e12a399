import Foundation
import Yams

/// Reads YAML text into a ``ConfigNode`` tree using Yams (libyaml underneath).
public enum YAMLLoader {
    /// Parses `text`; `file` is used in locations.
    /// - Throws: ``ConfigError`` with the location of a syntax error, or when the file is empty.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> ConfigNode {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigError([diagnostic(for: error, file: file)])
        } catch {
            throw ConfigError([ConfigDiagnostic(
                location: SourceLocation(file: file, line: 1, column: 1), path: "",
                message: "could not read YAML: \(error)")])
        }
        guard let root else {
            throw ConfigError([ConfigDiagnostic(
                location: SourceLocation(file: file, line: 1, column: 1), path: "",
                message: "the file is empty; expected a mapping with 'app', 'server', 'bus' and 'plugins'")])
        }
        return try convert(root, file: file)
    }

    /// Reads and parses a file.
    public static func load(file path: String) throws(ConfigError) -> ConfigNode {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError([ConfigDiagnostic(
                location: SourceLocation(file: path, line: 1, column: 1), path: "",
                message: "cannot read the config file (\(describe(error))); check the path and its permissions")])
        }
        return try parse(text, file: path)
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }

    private static func location(_ mark: Mark?, _ file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    private static func convert(_ node: Node, file: String) throws(ConfigError) -> ConfigNode {
        switch node {
        case .scalar(let scalar):
            return .scalar(scalar.string, isPlain: scalar.style == .plain || scalar.style == .any,
                           location(scalar.mark, file))
        case .sequence(let sequence):
            var items: [ConfigNode] = []
            for item in sequence { items.append(try convert(item, file: file)) }
            return .sequence(items, location(sequence.mark, file))
        case .mapping(let mapping):
            var pairs: [(key: String, keyLocation: SourceLocation, value: ConfigNode)] = []
            var seen: [String: SourceLocation] = [:]
            var problems: [ConfigDiagnostic] = []
            for (key, value) in mapping {
                let keyLocation = location(key.mark, file)
                guard case .scalar(let keyScalar) = key else {
                    problems.append(ConfigDiagnostic(location: keyLocation, path: "",
                                                     message: "a key must be a plain name, not a mapping or list"))
                    continue
                }
                if let first = seen[keyScalar.string] {
                    problems.append(ConfigDiagnostic(
                        location: keyLocation, path: keyScalar.string,
                        message: "duplicate key; it was already given at line \(first.line)"))
                    continue
                }
                seen[keyScalar.string] = keyLocation
                pairs.append((keyScalar.string, keyLocation, try convert(value, file: file)))
            }
            if !problems.isEmpty { throw ConfigError(problems) }
            return .mapping(pairs, location(mapping.mark, file))
        case .alias(let alias):
            throw ConfigError([ConfigDiagnostic(
                location: location(alias.mark, file), path: "",
                message: "YAML aliases (*name) are not supported in Quire configs; write the value out")])
        }
    }

    private static func diagnostic(for error: YamlError, file: String) -> ConfigDiagnostic {
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ConfigDiagnostic(location: location(mark, file), path: "", message: "YAML syntax error: \(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigDiagnostic(location: location(context.mark, file), path: "",
                                    message: "duplicate keys: \(duplicates.joined(separator: ", "))")
        default:
            return ConfigDiagnostic(location: SourceLocation(file: file, line: 1, column: 1), path: "",
                                    message: "YAML error: \(error)")
        }
    }
}
