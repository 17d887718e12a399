import Foundation
import Synchronization

/// A mapping in a config file that a plugin (or the host) reads its settings from.
///
/// Reading never throws: a wrong value is recorded as a ``ConfigDiagnostic`` pointing at its line and
/// column, and the default is returned so that reading goes on and *every* mistake in a file is
/// reported at once. Keys that nobody asked for are reported as unknown by ``ConfigReader/finish()``.
/// `${VAR}` and `${VAR:-fallback}` in a value are replaced from the environment given to the reader.
public struct ConfigSection: Sendable {
    let node: ConfigNode?
    /// Dotted path of this section, e.g. `plugins.storage`.
    public let path: String
    /// Where the section is (or, when it is absent, where its parent is).
    public let location: SourceLocation
    let reader: ConfigReader

    init(node: ConfigNode?, path: String, location: SourceLocation, reader: ConfigReader) {
        self.node = node
        self.path = path
        self.location = location
        self.reader = reader
        if let node, !node.isNull, case .mapping = node {} else if let node, !node.isNull {
            reader.report(node.location, path, "expected a mapping of settings, found \(node.kindDescription)")
        }
        reader.noteSection(path)
    }

    /// The keys present in this section, in file order, with their locations.
    public var keys: [(key: String, location: SourceLocation)] {
        guard case .mapping(let pairs, _)? = node else { return [] }
        return pairs.map { ($0.key, $0.keyLocation) }
    }

    /// Whether the file gives `key` in this section.
    public func contains(_ key: String) -> Bool {
        value(key, markUsed: false) != nil
    }

    func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func value(_ key: String, markUsed: Bool = true) -> ConfigNode? {
        if markUsed { reader.noteKey(key, in: path) }
        guard case .mapping(let pairs, _)? = node else { return nil }
        guard let node = pairs.first(where: { $0.key == key })?.value, !node.isNull else { return nil }
        return node
    }

    /// Where `key`'s value is written, or the section's location when it is absent: for mistakes
    /// found later (in a file the value names, say), reported through ``ConfigReader/report(_:_:_:)``.
    public func location(of key: String) -> SourceLocation {
        value(key, markUsed: false)?.location ?? location
    }

    /// Reports a problem with `key` (or the section itself when `key` is nil) that the caller found.
    public func report(_ key: String?, _ message: String) {
        if let key, let node = value(key, markUsed: false) {
            reader.report(node.location, childPath(key), message)
        } else {
            reader.report(location, key.map(childPath) ?? path, message)
        }
    }

    // MARK: Scalars

    /// A string; `nil` when absent and there is no default.
    public func string(_ key: String, default defaultValue: String? = nil) -> String? {
        guard let node = value(key) else { return defaultValue }
        guard case .scalar(let raw, _, let location) = node else {
            reader.report(node.location, childPath(key), "expected a string, found \(node.kindDescription)")
            return defaultValue
        }
        return reader.substitute(raw, at: location, path: childPath(key)) ?? defaultValue
    }

    /// A string that must be given.
    public func requiredString(_ key: String) -> String {
        guard let value = string(key) else {
            if value(key, markUsed: false) == nil {
                reader.report(location, childPath(key), "is required but missing")
            }
            return ""
        }
        return value
    }

    /// One of a fixed set of words.
    public func choice(_ key: String, _ options: [String], default defaultValue: String) -> String {
        guard let raw = string(key) else { return defaultValue }
        guard options.contains(raw) else {
            report(key, "expected one of \(options.joined(separator: ", ")), found \"\(raw)\"")
            return defaultValue
        }
        return raw
    }

    /// A whole number within `range`.
    public func int(_ key: String, default defaultValue: Int, in range: ClosedRange<Int> = Int.min...Int.max) -> Int {
        guard let raw = string(key) else { return defaultValue }
        guard let number = Int(raw.replacingOccurrences(of: "_", with: "")) else {
            report(key, "expected a whole number\(Self.describe(range)), found \"\(raw)\"")
            return defaultValue
        }
        guard range.contains(number) else {
            report(key, "expected a whole number\(Self.describe(range)), found \(number)")
            return defaultValue
        }
        return number
    }

    /// A finite number within `range`.
    public func double(_ key: String, default defaultValue: Double, in range: ClosedRange<Double>) -> Double {
        guard let raw = string(key) else { return defaultValue }
        guard let number = Double(raw.replacingOccurrences(of: "_", with: "")), number.isFinite else {
            report(key, "expected a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()), found \"\(raw)\"")
            return defaultValue
        }
        guard range.contains(number) else {
            report(key, "expected a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()), found \(raw)")
            return defaultValue
        }
        return number
    }

    /// `true` or `false`.
    public func bool(_ key: String, default defaultValue: Bool) -> Bool {
        guard let raw = string(key) else { return defaultValue }
        switch raw.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            report(key, "expected true or false, found \"\(raw)\"")
            return defaultValue
        }
    }

    /// A duration such as `15m`, `30s`, `12h`, `7d` or `250ms`, within `range`.
    public func duration(_ key: String, default defaultValue: Duration,
                         in range: ClosedRange<Duration> = .zero ... .seconds(Int64.max / 2)) -> Duration {
        guard let raw = string(key) else { return defaultValue }
        guard let duration = Self.parseDuration(raw) else {
            report(key, "expected a duration such as 30s, 15m, 12h or 7d, found \"\(raw)\"")
            return defaultValue
        }
        guard range.contains(duration) else {
            report(key, "expected a duration between \(range.lowerBound) and \(range.upperBound), found \(raw)")
            return defaultValue
        }
        return duration
    }

    /// A list of words, each one of `allowed` when that is given. With `commaSeparated`, one string
    /// such as `"${QUIRE_REMOTE:-}"` is read as its comma-separated words (none when empty), so
    /// that the environment can give a list.
    public func stringList(_ key: String, default defaultValue: [String], allowed: [String]? = nil, commaSeparated: Bool = false) -> [String] {
        guard let node = value(key) else { return defaultValue }
        if commaSeparated, case .scalar(let raw, _, let location) = node {
            guard let text = reader.substitute(raw, at: location, path: childPath(key)) else { return defaultValue }
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        guard case .sequence(let items, _) = node else {
            reader.report(node.location, childPath(key), "expected a list such as [a, b], found \(node.kindDescription)")
            return defaultValue
        }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(childPath(key))[\(index)]"
            guard case .scalar(let raw, _, let location) = item,
                  let text = reader.substitute(raw, at: location, path: itemPath) else {
                reader.report(item.location, itemPath, "expected a string, found \(item.kindDescription)")
                continue
            }
            if let allowed, !allowed.contains(text) {
                reader.report(item.location, itemPath,
                              "expected one of \(allowed.joined(separator: ", ")), found \"\(text)\"")
                continue
            }
            result.append(text)
        }
        return result
    }

    // MARK: Nested

    /// A nested mapping; an absent one reads as empty, so its defaults apply.
    public func section(_ key: String) -> ConfigSection {
        ConfigSection(node: value(key), path: childPath(key), location: value(key, markUsed: false)?.location ?? location,
                      reader: reader)
    }

    /// A list of mappings, e.g. `thumbnails: [{name: list, width: 44}]`.
    public func sectionList(_ key: String) -> [ConfigSection] {
        guard let node = value(key) else { return [] }
        guard case .sequence(let items, _) = node else {
            reader.report(node.location, childPath(key), "expected a list of mappings, found \(node.kindDescription)")
            return []
        }
        return items.enumerated().map { index, item in
            ConfigSection(node: item, path: "\(childPath(key))[\(index)]", location: item.location, reader: reader)
        }
    }

    // MARK: Helpers

    static func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound, range.upperBound) {
        case (Int.min, Int.max): ""
        case (let low, Int.max): " of at least \(low)"
        case (Int.min, let high): " of at most \(high)"
        case (let low, let high): " between \(low) and \(high)"
        }
    }

    /// Parses `250ms`, `30s`, `15m`, `12h`, `7d`.
    public static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (suffix, millis) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            // "ms" also ends in "s": only accept digits before the unit.
            guard !number.isEmpty, number.allSatisfy(\.isNumber), let value = Int64(number),
                  value <= Int64.max / 1000 / millis else { continue }
            return .milliseconds(value * millis)
        }
        return nil
    }
}
