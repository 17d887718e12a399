public import Logging
import Synchronization

/// Every line an app logs while a test runs it (``TestApp/run(yaml:catalog:clock:ids:logs:_:)``),
/// at every level, with its metadata: for tests that a secret is never written to a log.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// What was logged so far, a line each: level, message and metadata.
    public var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// A logger writing here.
    public func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let error = event.error.map { " error=\(String(describing: $0))" } ?? ""
            capture.append("\(event.level) \(event.message) \(all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))\(error)")
        }
    }
}
