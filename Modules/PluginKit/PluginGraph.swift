public import AppConfig

/// Resolves an app's `plugins:` map against the compiled-in catalog: unknown ids, missing
/// dependencies and cycles are reported at the line and column of the plugin's key; the result is in
/// dependency order (a plugin after everything it needs), ties kept in file order.
public enum PluginGraph {
    public static func resolve(_ config: AppConfig, catalog: [PluginFactory]) -> [ConfiguredPlugin] {
        let byID = Dictionary(catalog.map { ($0.descriptor.id, $0) }, uniquingKeysWith: { first, _ in first })
        var configured: [String: ConfiguredPlugin] = [:]
        var order: [String] = []
        var locations: [String: SourceLocation] = [:]
        for entry in config.plugins {
            guard let factory = byID[entry.id] else {
                let known = byID.keys.sorted().joined(separator: ", ")
                config.reader.report(entry.keyLocation, "plugins.\(entry.id)",
                                     "unknown plugin; the plugins compiled in are: \(known)")
                continue
            }
            configured[entry.id] = factory.configure(entry.section)
            order.append(entry.id)
            locations[entry.id] = entry.keyLocation
        }
        // Missing dependencies.
        for id in order {
            for dependency in byID[id]?.descriptor.dependencies ?? [] where configured[dependency] == nil {
                if let location = locations[id] {
                    config.reader.report(location, "plugins.\(id)",
                                         "plugin '\(id)' needs plugin '\(dependency)', which is not enabled; add '\(dependency): {}' under plugins")
                }
            }
        }
        // Topological order by depth-first search; a grey node met again is a cycle.
        var state: [String: Bool] = [:]  // false = in progress, true = done
        var sorted: [String] = []
        var reportedCycle = false
        func visit(_ id: String, _ stack: [String]) {
            if state[id] == true { return }
            if state[id] == false {
                if !reportedCycle, let start = stack.firstIndex(of: id), let location = locations[id] {
                    let cycle = (stack[start...] + [id]).joined(separator: " → ")
                    config.reader.report(location, "plugins.\(id)", "dependency cycle: \(cycle)")
                    reportedCycle = true
                }
                return
            }
            state[id] = false
            for dependency in byID[id]?.descriptor.dependencies ?? [] where configured[dependency] != nil {
                visit(dependency, stack + [id])
            }
            state[id] = true
            sorted.append(id)
        }
        for id in order { visit(id, []) }
        checkNames(order.compactMap { configured[$0] })
        return sorted.compactMap { configured[$0] }
    }

    /// Every setting that names another plugin's thing must name one that plugin declares: what
    /// `serve` would otherwise find only at the first request (every shared picture a 404).
    private static func checkNames(_ plugins: [ConfiguredPlugin]) {
        var declared: [String: Set<String>] = [:]
        var references: [(ConfiguredPlugin, NameReference)] = []
        for plugin in plugins {
            let names = plugin.factory.names(plugin.config)
            for (kind, values) in names.declared { declared[kind, default: []].formUnion(values) }
            references += names.references.map { (plugin, $0) }
        }
        for (plugin, reference) in references where !(declared[reference.kind]?.contains(reference.name) ?? false) {
            let known = (declared[reference.kind] ?? []).sorted()
            let list = known.isEmpty ? "it declares none" : "it declares \(known.map { "\"\($0)\"" }.joined(separator: ", "))"
            plugin.section.report(reference.setting,
                                  "names the \(reference.kind) \"\(reference.name)\", which plugin '\(reference.declaredIn)' does not declare (\(list)); "
                                      + "add it under plugins.\(reference.declaredIn) or name one of those")
        }
    }
}
