import Foundation
import Synchronization

/// Reads one config tree: hands out ``ConfigSection``s, substitutes `${VAR}`, collects diagnostics
/// and, at the end, reports keys that nobody asked for.
public final class ConfigReader: Sendable {
    private struct State {
        var diagnostics: [ConfigDiagnostic] = []
        /// For each section path, the keys its reader asked for.
        var askedKeys: [String: Set<String>] = [:]
        /// Section paths whose keys are not checked (free-form maps).
        var openSections: Set<String> = []
    }

    public let root: ConfigNode
    private let environment: [String: String]
    private let state = Mutex(State())

    /// - Parameters:
    ///   - root: the parsed file.
    ///   - environment: values for `${VAR}`; the composition root passes the process environment.
    public init(root: ConfigNode, environment: [String: String]) {
        self.root = root
        self.environment = environment
    }

    /// The whole file as a section.
    public var rootSection: ConfigSection {
        ConfigSection(node: root, path: "", location: root.location, reader: self)
    }

    /// Mistakes found so far.
    public var diagnostics: [ConfigDiagnostic] { state.withLock { $0.diagnostics } }

    /// Records a mistake found outside the section readers (unknown plugin, missing dependency, ...).
    public func report(_ location: SourceLocation, _ path: String, _ message: String) {
        state.withLock { $0.diagnostics.append(ConfigDiagnostic(location: location, path: path, message: message)) }
    }

    /// Marks a section whose keys are free-form (a map of names), so that they are not reported.
    public func acceptAnyKeys(in section: ConfigSection) {
        _ = state.withLock { $0.openSections.insert(section.path) }
    }

    /// Reports every key that no reader asked for, then throws if anything was wrong.
    public func finish() throws(ConfigError) {
        reportUnknownKeys(in: root, path: "")
        let diagnostics = self.diagnostics
        if !diagnostics.isEmpty { throw ConfigError(diagnostics) }
    }

    func noteSection(_ path: String) {
        state.withLock { state in
            if state.askedKeys[path] == nil { state.askedKeys[path] = [] }
        }
    }

    func noteKey(_ key: String, in path: String) {
        _ = state.withLock { $0.askedKeys[path, default: []].insert(key) }
    }

    private func reportUnknownKeys(in node: ConfigNode, path: String) {
        switch node {
        case .mapping(let pairs, _):
            let (asked, isOpen) = state.withLock { ($0.askedKeys[path], $0.openSections.contains(path)) }
            // A mapping nobody read as a section (asked == nil) was reported as the wrong kind already,
            // or lies under a key that is itself unknown.
            guard let asked else { return }
            for pair in pairs {
                let childPath = path.isEmpty ? pair.key : "\(path).\(pair.key)"
                if isOpen || asked.contains(pair.key) {
                    reportUnknownKeys(in: pair.value, path: childPath)
                } else {
                    let expected = asked.sorted().joined(separator: ", ")
                    report(pair.keyLocation, childPath,
                           expected.isEmpty ? "unknown key; this section takes no settings"
                                            : "unknown key; expected one of: \(expected)")
                }
            }
        case .sequence(let items, _):
            for (index, item) in items.enumerated() { reportUnknownKeys(in: item, path: "\(path)[\(index)]") }
        case .scalar:
            break
        }
    }

    /// Replaces `${VAR}` and `${VAR:-fallback}`; reports an unset variable without a fallback.
    func substitute(_ text: String, at location: SourceLocation, path: String) -> String? {
        guard text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                report(location, path, "unclosed ${ in \"\(text)\"; write ${NAME}")
                return nil
            }
            let expression = rest[start.upperBound..<end]
            let (name, fallback): (Substring, Substring?) =
                if let separator = expression.range(of: ":-") {
                    (expression[..<separator.lowerBound], expression[separator.upperBound...])
                } else {
                    (expression, nil)
                }
            if let value = environment[String(name)], !value.isEmpty {
                result += value
            } else if let fallback {
                result += fallback
            } else {
                report(location, path, "environment variable \(name) is not set; set it or write ${\(name):-default}")
                return nil
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
