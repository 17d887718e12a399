import AppConfig
import Testing

/// `server.jobs`: the one queue of heavy jobs.
@Suite("App config: server.jobs")
struct JobsSettingTests {
    func load(_ yaml: String) throws -> AppConfig {
        AppConfig(root: try YAMLLoader.parse(yaml, file: "app.yaml"), environment: [:])
    }

    @Test("defaults: two workers, 32 jobs, 8 per user")
    func defaults() throws {
        let config = try load("app: a\nplugins: { storage: {} }\n")
        #expect(config.server.jobs == AppConfig.Jobs(workers: 2, maxJobs: 32, maxJobsPerUser: 8))
        try config.reader.finish()
    }

    @Test("the settings read, and one out of range is reported at its place")
    func read() throws {
        let config = try load("""
            app: a
            server: { jobs: { workers: 3, max_jobs: 10, max_jobs_per_user: 2 } }
            plugins: { storage: {} }
            """)
        #expect(config.server.jobs == AppConfig.Jobs(workers: 3, maxJobs: 10, maxJobsPerUser: 2))
        try config.reader.finish()
        let wrong = try load("""
            app: a
            server: { jobs: { workers: 0 } }
            plugins: { storage: {} }
            """)
        let error = try #require(throws: ConfigError.self) { try wrong.reader.finish() }
        #expect(error.description == "app.yaml:2:28: server.jobs.workers: expected a whole number between 1 and 64, found 0")
    }
}
