import Foundation
import Yams

/// Reads YAML text into a ``ConfigNode`` tree using Yams (libyaml underneath).
public enum YAMLLoader {
    /// How many values (scalars, lists and mappings) a document may expand to. A real config has a
    /// few hundred; YAML aliases that repeat anchors inside anchors ("billion laughs") reach
    /// billions from a few lines, and are refused here instead of exhausting memory.
    public static let maxNodes = 100_000

    /// Parses `text`; `file` is used in locations.
    /// - Throws: ``ConfigError`` with the location of a syntax error, or when the file is empty.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> ConfigNode {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigError([diagnostic(for: error, text: text, file: file)])
        } catch {
            throw ConfigError([ConfigDiagnostic(
                location: SourceLocation(file: file, line: 1, column: 1), path: "",
                message: "could not read YAML (\(type(of: error)))")])
        }
        guard let root else {
            throw ConfigError([ConfigDiagnostic(
                location: SourceLocation(file: file, line: 1, column: 1), path: "",
                message: "the file is empty; expected a mapping with 'app', 'server', 'bus' and 'plugins'")])
        }
        var budget = maxNodes
        return try convert(root, file: file, budget: &budget)
    }

    /// Reads and parses a file.
    public static func load(file path: String) throws(ConfigError) -> ConfigNode {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigError([ConfigDiagnostic(
                location: SourceLocation(file: path, line: 1, column: 1), path: "",
                message: "cannot read the config file (\(describe(error))); check the path and its permissions")])
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            let offset = firstInvalidUTF8(in: data)
            throw ConfigError([ConfigDiagnostic(
                location: position(ofByte: offset, in: data, file: path), path: "",
                message: "the file is not valid UTF-8 (byte \(offset) starts an invalid sequence); save it as UTF-8")])
        }
        return try parse(text, file: path)
    }

    /// The offset of the first byte that does not start or continue a valid UTF-8 sequence.
    static func firstInvalidUTF8(in data: Data) -> Int {
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return index
            }
            guard index + length <= bytes.count,
                  String(validating: bytes[index..<(index + length)], as: UTF8.self) != nil else { return index }
            index += length
        }
        return bytes.count
    }

    /// Line and column (in characters) of a byte offset.
    static func position(ofByte offset: Int, in data: Data, file: String) -> SourceLocation {
        let prefix = data.prefix(max(0, offset))
        let line = prefix.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let lineStart = prefix.lastIndex(of: 0x0A).map { $0 + 1 } ?? prefix.startIndex
        let column = String(decoding: prefix[lineStart...], as: UTF8.self).count + 1
        return SourceLocation(file: file, line: line, column: column)
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }

    private static func location(_ mark: Mark?, _ file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    private static func convert(_ node: Node, file: String, budget: inout Int) throws(ConfigError) -> ConfigNode {
        budget -= 1
        guard budget >= 0 else {
            throw ConfigError([ConfigDiagnostic(
                location: location(node.mark, file), path: "",
                message: "the document expands to more than \(maxNodes) values, which no Quire config needs; "
                    + "YAML aliases (*name) repeating an anchor (&name) multiply it — write the values out")])
        }
        switch node {
        case .scalar(let scalar):
            return .scalar(scalar.string, isPlain: scalar.style == .plain || scalar.style == .any,
                           location(scalar.mark, file))
        case .sequence(let sequence):
            var items: [ConfigNode] = []
            for item in sequence { items.append(try convert(item, file: file, budget: &budget)) }
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
                pairs.append((keyScalar.string, keyLocation, try convert(value, file: file, budget: &budget)))
            }
            if !problems.isEmpty { throw ConfigError(problems) }
            return .mapping(pairs, location(mapping.mark, file))
        case .alias(let alias):
            throw ConfigError([ConfigDiagnostic(
                location: location(alias.mark, file), path: "",
                message: "YAML aliases (*name) are not supported in Quire configs; write the value out")])
        }
    }

    private static func diagnostic(for error: YamlError, text: String, file: String) -> ConfigDiagnostic {
        switch error {
        case .reader(let problem, let offset, let value, _):
            // libyaml's reader refuses characters YAML does not allow (control characters); it
            // gives a byte offset, not a line: the line and column are computed here.
            let data = Data(text.utf8)
            let at = offset.map { position(ofByte: $0, in: data, file: file) } ?? SourceLocation(file: file, line: 1, column: 1)
            let character = value >= 0 ? String(format: " (U+%04X)", value) : ""
            return ConfigDiagnostic(location: at, path: "", message: "YAML does not allow this character\(character): \(problem); remove it")
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            // The problem and context are libyaml's sentences; the offending line is not echoed.
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ConfigDiagnostic(location: location(mark, file), path: "", message: "YAML syntax error: \(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigDiagnostic(location: location(context.mark, file), path: "",
                                    message: "duplicate keys: \(duplicates.map { "\($0)" }.joined(separator: ", "))")
        default:
            return ConfigDiagnostic(location: SourceLocation(file: file, line: 1, column: 1), path: "",
                                    message: "the YAML could not be read; check that it is a UTF-8 text file")
        }
    }
}
