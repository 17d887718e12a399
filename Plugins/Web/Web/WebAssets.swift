import Crypto
import Foundation

/// The client's files, read once: each with its type, an ETag, and a gzip copy when that is
/// smaller. `version` is a hash of every file: asset URLs carry it (`/app/<version>/<file>`), so
/// they are cached as immutable and a new build is new URLs.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        var bytes: Data
        var gzipped: Data?
        var type: String
        var etag: String
    }

    let files: [String: Asset]
    let version: String

    /// Extensions served, and their types; anything else in the folder (tests, tsconfig) is not.
    static let types = [
        "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "svg": "image/svg+xml",
        "png": "image/png", "html": "text/html; charset=utf-8", "json": "application/json",
    ]

    /// Files of the folder that are for tools, not browsers.
    static let notServed: Set<String> = ["package.json", "tsconfig.json"]

    /// Reads `directory` (flat: a file name is one URL segment).
    init(directory: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        var files: [String: Asset] = [:]
        var hasher = SHA256()
        for name in names {
            guard let ext = name.split(separator: ".").last.map(String.init), let type = Self.types[ext], !name.hasPrefix("."),
                  !Self.notServed.contains(name) else { continue }
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            hasher.update(data: Data(name.utf8))
            hasher.update(data: bytes)
            files[name] = Self.asset(bytes, type: type)
        }
        self.files = files
        version = hasher.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    static func asset(_ bytes: Data, type: String) -> Asset {
        let digest = SHA256.hash(data: bytes).prefix(8).map { String(format: "%02x", $0) }.joined()
        let compressed = type.hasPrefix("image/png") ? nil : Gzip.compress(bytes).flatMap { $0.count < bytes.count ? $0 : nil }
        return Asset(bytes: bytes, gzipped: compressed, type: type, etag: "\"\(digest)\"")
    }

    /// The modules a page needs before its first screen: `entry` and what it imports statically, all
    /// the way down, in the order found. A screen module an app loads later with `import()` is not
    /// among them, so an app does not download another app's screens up front.
    func staticModules(from entry: String) -> [String] {
        var found: [String] = []
        var queue = [entry]
        while let name = queue.first {
            queue.removeFirst()
            guard !found.contains(name), let asset = files[name] else { continue }
            found.append(name)
            queue += Self.staticImports(in: String(decoding: asset.bytes, as: UTF8.self))
        }
        return found
    }

    /// `import … from "./x.js"` and `import "./x.js"` at the start of a line (not `import()`, not a
    /// JSDoc type).
    static func staticImports(in source: String) -> [String] {
        var names: [String] = []
        for pattern in [#"(?m)^[ \t]*import\s[^;()]*?from\s*"\./([^"/]+)""#, #"(?m)^[ \t]*import\s*"\./([^"/]+)""#] {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { continue }
            let range = NSRange(source.startIndex..., in: source)
            for match in expression.matches(in: source, range: range) {
                if let name = Range(match.range(at: 1), in: source).map({ String(source[$0]) }) { names.append(name) }
            }
        }
        return names
    }

    /// A template file with `{{KEY}}` replaced (values are HTML-escaped by the caller where needed).
    func rendered(_ name: String, _ values: [String: String]) -> Asset? {
        guard let template = files[name] else { return nil }
        var text = String(decoding: template.bytes, as: UTF8.self)
        for (key, value) in values { text = text.replacingOccurrences(of: "{{\(key)}}", with: value) }
        return Self.asset(Data(text.utf8), type: template.type)
    }
}
