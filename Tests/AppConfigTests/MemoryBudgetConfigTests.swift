import AppConfig
import Testing

@Suite("server.memory_budget")
struct MemoryBudgetConfigTests {
    func load(_ budget: String?, environment: [String: String] = [:]) throws -> AppConfig {
        let server = budget.map { "server: { memory_budget: \($0) }\n" } ?? ""
        return AppConfig(root: try YAMLLoader.parse("app: a\n\(server)plugins: {}\n", file: "app.yaml"), environment: environment)
    }

    @Test("absent or empty: the default, which fits a 1 GB machine")
    func defaults() throws {
        let absent = try load(nil)
        try absent.reader.finish()
        #expect(absent.server.memoryBudget == AppConfig.defaultMemoryBudget)
        #expect(AppConfig.defaultMemoryBudget == 320 << 20)
        let empty = try load("'${QUIRE_MEMORY_BUDGET:-}'")
        try empty.reader.finish()
        #expect(empty.server.memoryBudget == AppConfig.defaultMemoryBudget)
    }

    @Test("a size with a unit, or bytes", arguments: [
        ("512MB", 512 << 20), ("512 MiB", 512 << 20), ("1GB", 1 << 30), ("2g", 2 << 30), ("65536k", 64 << 20), ("400000000", 400_000_000),
    ])
    func sizes(_ text: String, _ bytes: Int) throws {
        let config = try load("'\(text)'")
        try config.reader.finish()
        #expect(config.server.memoryBudget == bytes)
    }

    @Test("memory_budget_wait: 20 s unless set, a duration from 100 ms to 10 minutes")
    func wait() throws {
        let absent = try load(nil)
        #expect(absent.server.memoryBudgetWait == .seconds(20))
        let set = AppConfig(root: try YAMLLoader.parse("app: a\nserver: { memory_budget_wait: 2s }\nplugins: {}\n", file: "app.yaml"), environment: [:])
        try set.reader.finish()
        #expect(set.server.memoryBudgetWait == .seconds(2))
        let wrong = AppConfig(root: try YAMLLoader.parse("app: a\nserver: { memory_budget_wait: 1h }\nplugins: {}\n", file: "app.yaml"), environment: [:])
        let error = try #require(throws: ConfigError.self) { try wrong.reader.finish() }
        #expect(error.description.contains("server.memory_budget_wait: expected a duration between"))
    }

    @Test("from the environment")
    func environment() throws {
        let config = try load("'${QUIRE_MEMORY_BUDGET:-}'", environment: ["QUIRE_MEMORY_BUDGET": "768MB"])
        try config.reader.finish()
        #expect(config.server.memoryBudget == 768 << 20)
    }

    @Test("not a size, or under 32MB: refused at start, at the value")
    func refused() throws {
        let wrong = try load("lots")
        let error = try #require(throws: ConfigError.self) { try wrong.reader.finish() }
        #expect(error.description == "app.yaml:2:26: server.memory_budget: expected a size such as 320MB, 1GB or a number of bytes, found \"lots\"")
        let small = try load("16MB")
        let tooSmall = try #require(throws: ConfigError.self) { try small.reader.finish() }
        #expect(tooSmall.description.contains("server.memory_budget: must be at least 32MB"))
        #expect(AppConfig.parseSize("12 parsecs") == nil)
        #expect(AppConfig.parseSize("99999999999999999999TB") == nil)
    }
}
