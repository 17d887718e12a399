import Foundation
import Testing

/// Dependencies point inward, checked on Package.swift and the sources: the core depends on no
/// plugin (not even through the catalog), and sync knows no plugin by name — the kinds a client
/// syncs are declared by the plugins that own them, in their descriptors' `offers`, so a new kind
/// needs nothing outside its own plugin.
@Suite("Architecture: dependencies point inward")
struct DependencyDirectionTests {
    static let root = ImportRulesTests.root

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The Swift sources under a folder of the repository, by path from the root.
    static func sources(under folder: String) throws -> [String: String] {
        guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path) else { return [:] }
        var found: [String: String] = [:]
        for case let file as String in files where file.hasSuffix(".swift") {
            found["\(folder)/\(file)"] = try text("\(folder)/\(file)")
        }
        return found
    }

    static func matches(_ pattern: String, in text: String) throws -> [[String]] {
        let expression = try NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        let whole = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: whole).map { match in
            (0..<match.numberOfRanges).map { index in Range(match.range(at: index), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    /// Every module that is part of a plugin: `Plugins/<Feature>/<Module>` and the catalog of them all.
    static func pluginModules() throws -> Set<String> {
        Set(try ImportRulesTests.pluginModules().keys).union(["PluginCatalog"])
    }

    /// Targets declared in Package.swift with their dependencies and path.
    static func packageTargets() throws -> [(name: String, dependencies: [String], path: String)] {
        let package = try text("Package.swift")
        var targets: [(String, [String], String)] = []
        // `module("Name", [deps])`: a core module at Modules/Name.
        for match in try matches(#"\bmodule\("(\w+)"(?:,\s*\[(.*?)\])?\)"#, in: package) {
            targets.append((match[1], try quoted(match[2]), "Modules/\(match[1])"))
        }
        // `.target(name: "Name", dependencies: [deps], path: "…")`: a target with a path of its own.
        for match in try matches(#"\.target\(name:\s*"(\w+)",\s*dependencies:\s*\[(.*?)\],\s*path:\s*"([^"]+)""#, in: package) {
            targets.append((match[1], try quoted(match[2]), match[3]))
        }
        return targets
    }

    /// The target names in a dependency list (products of other packages name their package too;
    /// `.product(name:package:)` is never one of ours).
    static func quoted(_ list: String) throws -> [String] {
        let withoutProducts = list.replacingOccurrences(of: #"\.product\([^)]*\)"#, with: "", options: .regularExpression)
        return try matches(#""(\w+)""#, in: withoutProducts).map { $0[1] }
    }

    @Test("no module under Modules/ depends on a plugin, in Package.swift or in its imports")
    func coreDependsOnNoPlugin() throws {
        let plugins = try Self.pluginModules()
        let targets = try Self.packageTargets()
        let core = targets.filter { $0.path.hasPrefix("Modules/") }
        #expect(core.count >= 10, "found the core modules in Package.swift: \(core.map(\.name))")
        for target in core {
            for dependency in target.dependencies where plugins.contains(dependency) {
                Issue.record("Package.swift: the core module \(target.name) depends on the plugin module \(dependency)")
            }
        }
        // Every folder under Modules/ is a core module declared as one (none hides elsewhere).
        let package = try Self.text("Package.swift")
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Modules").path)
        for folder in folders where !folder.hasPrefix(".") {
            let declared = core.contains { $0.path == "Modules/\(folder)" } || package.contains("\"Modules/\(folder)\"")
            #expect(declared, "Modules/\(folder) is not a core target of Package.swift")
        }
        for (file, imported) in try ImportRulesTests.imports(under: Self.root.appendingPathComponent("Modules")) where plugins.contains(imported) {
            Issue.record("Modules/\(file) imports the plugin module \(imported)")
        }
    }

    /// Types that conform to `SyncKind`, with the file that declares each.
    static func syncKinds() throws -> [(type: String, file: String, id: String?, collection: String?)] {
        var kinds: [(String, String, String?, String?)] = []
        for (file, text) in try sources(under: "Plugins") {
            for match in try matches(#"(?:enum|struct|class)\s+(\w+)\s*:\s*[\w\s,]*\bSyncKind\b[^{]*\{(.*?)\n\}"#, in: text) {
                let id = try matches(#"static let id = "([^"]+)""#, in: match[2]).first?[1]
                let collection = try matches(#"static let collection = "([^"]+)""#, in: match[2]).first?[1]
                kinds.append((match[1], file, id, collection))
            }
        }
        return kinds
    }

    @Test("sync imports no domain plugin and names no other plugin's kind or collection")
    func syncKnowsNoPlugin() throws {
        let modules = try ImportRulesTests.pluginModules()
        // What sync runs on: storage's change log and auth's sessions. Nothing of a domain.
        let allowed: Set<String> = ["StorageAPI", "AuthAPI"]
        for module in ["SyncAPI", "Sync"] {
            for (file, imported) in try ImportRulesTests.imports(under: Self.root.appendingPathComponent("Plugins/Sync/\(module)"))
            where modules[imported] != nil && modules[imported] != "Sync" {
                #expect(allowed.contains(imported), "Sync/\(module)/\(file) imports \(imported), a domain plugin's module")
            }
        }
        let kinds = try Self.syncKinds()
        #expect(kinds.count >= 11, "found the plugins' sync kinds: \(kinds.map(\.type))")
        let sync = try Self.sources(under: "Plugins/Sync")
        for kind in kinds {
            #expect(!kind.file.hasPrefix("Plugins/Sync/"), "\(kind.file) declares the kind \(kind.type) inside sync; its plugin owns it")
        }
        var names = Set(kinds.flatMap { [$0.id, $0.collection].compactMap { $0 } })
        // Other plugins' ids as the prefix of a name (`notes.`, `album.`): sync names none.
        let descriptors = try Self.sources(under: "Plugins").values.flatMap { try Self.matches(#"PluginDescriptor\(\s*id:\s*"([^"]+)""#, in: $0) }
        let pluginIDs = Set(descriptors.map { $0[1] }).subtracting(["sync"])
        #expect(pluginIDs.count >= 10, "found the plugins' ids: \(pluginIDs.sorted())")
        names.formUnion(pluginIDs.map { $0 + "." })
        for (file, text) in sync {
            for name in names where text.contains("\"" + name) {
                Issue.record("\(file) names \"\(name)…\", another plugin's")
            }
            for kind in kinds where text.range(of: "\\b\(kind.type)\\b", options: .regularExpression) != nil {
                Issue.record("\(file) names \(kind.type), another plugin's kind")
            }
        }
    }

    @Test("a new kind needs only its own plugin: declared in its API target, listed in its descriptor's offers, named nowhere else")
    func kindsBelongToTheirPlugin() throws {
        let modules = try ImportRulesTests.pluginModules()
        let shipped = try ["Plugins", "Modules", "tools"].reduce(into: [String: String]()) { all, folder in
            all.merge(try Self.sources(under: folder)) { first, _ in first }
        }
        for kind in try Self.syncKinds() {
            let parts = kind.file.split(separator: "/").map(String.init)
            guard parts.count >= 3, let feature = modules[parts[2]] else {
                Issue.record("\(kind.file): \(kind.type) is not in a plugin's module")
                continue
            }
            #expect(parts[2] == feature + "API", "\(kind.type) is declared in \(parts[2]); other plugins may import only \(feature)API")
            #expect(kind.id != nil && kind.collection != nil, "\(kind.type) names its feed id and its collection as literals")
            let own = shipped.filter { $0.key.hasPrefix("Plugins/\(feature)/") }
            let offered = try own.values.contains { text in
                try Self.matches(#"offers:\s*\[([^\]]*)\]"#, in: text).contains { $0[1].range(of: "\\b\(kind.type)\\.self\\b", options: .regularExpression) != nil }
            }
            #expect(offered, "\(kind.type) is not in the offers of \(feature)'s descriptor, so sync never learns it")
            for (file, text) in shipped where !file.hasPrefix("Plugins/\(feature)/")
            && text.range(of: "\\b\(kind.type)\\b", options: .regularExpression) != nil {
                Issue.record("\(file) names \(kind.type), \(feature)'s kind: nothing outside its plugin should need to")
            }
        }
    }
}
