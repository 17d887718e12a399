import Foundation
import Testing

/// The house rule, checked on the sources: a plugin imports other plugins' `…API` targets only, and
/// the core (`Modules/`) imports no plugin at all. (The build enforces declared dependencies with
/// `--explicit-target-dependency-import-check error`; this test also catches a dependency someone
/// *declared* in Package.swift against the rule.)
@Suite("Architecture")
struct ImportRulesTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// Plugin modules by feature: `Plugins/<Feature>/<Module>/`.
    static func pluginModules() throws -> [String: String] {
        var modules: [String: String] = [:]
        let plugins = root.appendingPathComponent("Plugins")
        for feature in try FileManager.default.contentsOfDirectory(atPath: plugins.path) {
            let featureURL = plugins.appendingPathComponent(feature)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: featureURL.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            for module in try FileManager.default.contentsOfDirectory(atPath: featureURL.path)
            where FileManager.default.fileExists(atPath: featureURL.appendingPathComponent(module).path, isDirectory: &isDirectory)
                && isDirectory.boolValue {
                modules[module] = feature
            }
        }
        return modules
    }

    static func imports(under directory: URL) throws -> [(file: String, module: String)] {
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var found: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                      words[..<index].allSatisfy({ ["public", "package", "internal", "@testable", "@_exported"].contains($0) })
                else { continue }
                found.append((file, String(words[index + 1])))
            }
        }
        return found
    }

    @Test("a plugin imports other plugins' API targets only")
    func pluginsImportAPIsOnly() throws {
        let modules = try Self.pluginModules()
        #expect(modules.count >= 6, "found the plugin modules: \(modules.keys.sorted())")
        for (module, feature) in modules where module != "PluginCatalog" {
            let directory = Self.root.appendingPathComponent("Plugins/\(feature)/\(module)")
            for (file, imported) in try Self.imports(under: directory) {
                guard let importedFeature = modules[imported], importedFeature != feature else { continue }
                #expect(imported.hasSuffix("API"), "\(feature)/\(module)/\(file) imports \(imported), another plugin's implementation")
            }
        }
    }

    @Test("the core knows no plugin")
    func coreImportsNoPlugin() throws {
        let modules = try Self.pluginModules()
        for (file, imported) in try Self.imports(under: Self.root.appendingPathComponent("Modules")) {
            #expect(modules[imported] == nil, "Modules/\(file) imports the plugin module \(imported)")
        }
    }

    @Test("no force-try and no fatalError in shipped code")
    func noCrashingShortcuts() throws {
        for folder in ["Modules", "Plugins", "tools"] {
            guard let files = FileManager.default.enumerator(atPath: Self.root.appendingPathComponent(folder).path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: Self.root.appendingPathComponent("\(folder)/\(file)"), encoding: .utf8)
                #expect(!text.contains("try!"), "\(folder)/\(file) uses try!")
                #expect(!text.contains("fatalError("), "\(folder)/\(file) calls fatalError")
            }
        }
    }
}
