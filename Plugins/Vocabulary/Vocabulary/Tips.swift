import HTTPKit
import Hummingbird
import Metrics
import PluginKit

/// Foreign Note's first-use tips (NFR 6.4.1: "success is measured by the use of help and tips"):
/// the phone says when a tip was shown and when it was dismissed, and the server counts both per
/// tip on `/metrics` as `quire_vocab_tips{tip, event}`, for the operator's Prometheus. Counts, not
/// who: nothing about the user is kept.
enum Tips {
    /// One tip per task the help screen explains, as the web client names them.
    static let names: Set<String> = ["collections", "words", "tags", "search", "review", "files", "sync"]
    static let events: Set<String> = ["viewed", "dismissed"]

    static func add(to routes: PluginRoutes) throws {
        try routes.add(.post, "tips/{tip}/{event}",
                       summary: "Count a first-use tip shown (viewed) or dismissed; 204. Counted on /metrics as quire_vocab_tips{tip,event}") {
            _, context, _ in
            let tip = context.parameters.get("tip") ?? ""
            let event = context.parameters.get("event") ?? ""
            guard names.contains(tip) else {
                throw Problem.notFound("There is no tip '\(tip.prefix(40))'; the tips are \(names.sorted().joined(separator: ", ")).")
            }
            guard events.contains(event) else {
                throw Problem.notFound("A tip is counted as viewed or dismissed, not '\(event.prefix(40))'.")
            }
            Metrics.Counter(label: "quire_vocab_tips", dimensions: [("tip", tip), ("event", event)]).increment()
            return .noContent
        }
    }
}
