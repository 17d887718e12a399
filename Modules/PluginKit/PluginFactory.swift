public import AppConfig

/// A type-erased ``Plugin`` type, as the catalog lists it and the host builds it.
public struct PluginFactory: Sendable {
    public let descriptor: PluginDescriptor
    private let configureBody: @Sendable (ConfigSection) -> any Sendable
    private let namesBody: @Sendable (any Sendable) -> (declared: [String: Set<String>], references: [NameReference])
    private let makeBody: @Sendable (any Sendable, PluginContext) async throws -> any Plugin
    private let featuresBody: @Sendable (any Sendable) -> [String]

    public init<P: Plugin>(_ type: P.Type) {
        self.descriptor = P.descriptor
        self.configureBody = { P.configure($0) }
        self.namesBody = { config in
            guard let config = config as? P.Config else { return ([:], []) }
            return (P.declaredNames(config), P.references(config))
        }
        self.featuresBody = { config in (config as? P.Config).map { P.features(for: $0) } ?? [] }
        self.makeBody = { config, context in
            guard let config = config as? P.Config else {
                throw PluginSetupError("internal: config of the wrong type given to plugin '\(P.descriptor.id)'")
            }
            return try await P(config: config, context: context)
        }
    }

    /// Reads the plugin's section (pure).
    public func configure(_ section: ConfigSection) -> ConfiguredPlugin {
        ConfiguredPlugin(factory: self, config: configureBody(section), section: section)
    }

    func names(_ config: any Sendable) -> (declared: [String: Set<String>], references: [NameReference]) {
        namesBody(config)
    }

    func make(config: any Sendable, context: PluginContext) async throws -> any Plugin {
        try await makeBody(config, context)
    }

    func features(_ config: any Sendable) -> [String] {
        featuresBody(config)
    }
}

/// A plugin whose config has been read, ready to be built.
public struct ConfiguredPlugin: Sendable {
    public let factory: PluginFactory
    public let config: any Sendable
    /// Where the plugin's settings are, for checks across plugins.
    let section: ConfigSection

    public var id: String { factory.descriptor.id }

    public func make(context: PluginContext) async throws -> any Plugin {
        try await factory.make(config: config, context: context)
    }

    /// What the plugin offers, from its config alone (for one another process runs).
    public var features: [String] { factory.features(config) }
}

/// A plugin could not be built or started; the message says why and what to do.
public struct PluginSetupError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
