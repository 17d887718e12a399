import AppConfig
import AppHost
import ArgumentParser
import AuthAPI
import Bus
import Foundation
import Logging
import PluginCatalog
import VocabularyAPI

/// `quire-bench vocab`: search-as-you-type latency in-process — through the app's real plugins and
/// bus, on the app's SQLite — for a file of queries (one per line, `LENGTH<TAB>QUERY`), grouped by
/// the label. `tools/bench.d/vocab.py` builds the million-entry set, imports it with quire-vocab,
/// runs this, then the same queries over HTTP and against plain sqlite3 FTS5.
struct VocabBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vocab", abstract: "Vocabulary search latency per query group, in-process (p50/p99/max).")

    @Option(help: "The app's YAML file.") var config: String
    @Option(help: "The user whose vocabulary is searched.") var user: String
    @Option(help: "Queries: LABEL<TAB>QUERY per line.") var queries: String
    @Option(help: "Times each query is run.") var rounds = 3

    func run() async throws {
        var logger = Logger(label: "quire-bench") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let environment = ProcessInfo.processInfo.environment
        let lines = try String(contentsOfFile: queries, encoding: .utf8).split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "\t", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
        let appConfig = try AppConfig.load(file: config, environment: environment)
        let host = try await AppHost.build(config: appConfig, catalog: PluginCatalog.all, environment: environment, logger: logger)
        let user = self.user
        let rounds = self.rounds
        let samples = try await host.withServices { () async throws -> [String: [Double]] in
            let owner = try await host.bus.request(FindAccount(username: user)).accountID
            var samples: [String: [Double]] = [:]
            // Warm-up: one pass, not measured.
            for (_, query) in lines { _ = try await host.bus.request(SearchVocabulary(owner: owner, query: query)) }
            let clock = ContinuousClock()
            for _ in 0..<rounds {
                for (label, query) in lines {
                    let start = clock.now
                    let result = try await host.bus.request(SearchVocabulary(owner: owner, query: query))
                    let elapsed = clock.now - start
                    _ = result.hits.count
                    samples[label, default: []].append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
                }
            }
            return samples
        }
        print("{")
        for (index, label) in samples.keys.sorted().enumerated() {
            let sorted = (samples[label] ?? []).sorted()
            func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            let comma = index == samples.count - 1 ? "" : ","
            print(String(format: "  \"%@\": {\"n\": %d, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f}%@",
                         label, sorted.count, percentile(0.5), percentile(0.99), sorted.last ?? 0, comma))
        }
        print("}")
    }
}
