import Foundation
import Testing

/// Time and ids come from a plugin's context (`PluginContext.clock`, `PluginContext.ids`), never
/// from the world, so a test moves a manual clock instead of sleeping and can seed the ids.
@Suite("Architecture: one clock")
struct ClockRulesTests {
    /// The few plugin sources that may still read the world, each for a reason.
    static let allowed: [String: Set<String>] = [
        // Storage's own time: the stamps it puts on records and blobs, as a database's `now()`,
        // which a plugin compares a record's `updatedAt` with (`StoreTime`). Its SQL backends do not
        // depend on PluginKit, and a moved test clock must not make every record look old. And the
        // ids a store chooses for a record inserted without one.
        "Plugins/Storage/StorageAPI/RecordRules.swift": ["Date()", "SystemRandomNumberGenerator()"],
        // Scratch names of files and tables storage writes and renames or drops at once; never
        // an id anyone sees or stores.
        "Plugins/Storage/Storage/BlobStores.swift": ["UUID()"],
        "Plugins/Storage/Storage/StorageBackup.swift": ["UUID()"],
        "Plugins/Storage/StoragePostgres/PostgresBackup.swift": ["UUID()"],
        // The salt that seals a backup's keys under the operator's passphrase: it must be the
        // system's cryptographic randomness, never a seeded test id.
        "Plugins/Storage/Storage/SealedKeys.swift": ["SystemRandomNumberGenerator()"],
    ]

    /// Plugin sources that ship: every `Plugins/` file but the test kits (which compare with the
    /// store's own time, as a store's tests must), and PluginKit's.
    static func shippedSources() throws -> [String] {
        var files: [String] = []
        for folder in ["Plugins", "Modules/PluginKit"] {
            guard let names = FileManager.default.enumerator(atPath: ImportRulesTests.root.appendingPathComponent(folder).path) else { continue }
            for case let name as String in names where name.hasSuffix(".swift") && !name.contains("TestKit/") {
                files.append("\(folder)/\(name)")
            }
        }
        return files
    }

    @Test("no plugin reads the time or makes an id but through its context")
    func timeAndIDsFromTheContext() throws {
        let files = try Self.shippedSources()
        #expect(files.count > 100, "the sources were found")
        for file in files where file != "Modules/PluginKit/PluginClock.swift" {
            let text = try String(contentsOf: ImportRulesTests.root.appendingPathComponent(file), encoding: .utf8)
            for call in ["Date()", "UUID()", "SystemRandomNumberGenerator()"] where text.contains(call) {
                #expect(Self.allowed[file]?.contains(call) == true, "\(file) calls \(call): read `context.clock` or `context.ids` instead")
            }
        }
    }
}
