import Foundation
public import Logging
public import PluginKit
import Synchronization

/// Log lines on standard error, as swift-log's `StreamLogHandler` writes them
/// (`2026-11-25T01:00:00+0000 info quire: key=value [Module] message`), with the metadata rendered
/// only when a line is written.
///
/// `StreamLogHandler` renders its metadata each time a key is set. Hummingbird sets the request id
/// on every request's logger, so the server paid for a sorted, joined string per request that no
/// line ever used (1.5 % of a cached list's CPU).
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata = Logger.Metadata()
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Where warnings and errors are kept as well (the operator's recent problems); nil: nowhere.
    public var recent: RecentLog? = .shared

    public func log(event: LogEvent) {
        let (line, fields) = render(event)
        Self.write(line)
        if event.level >= .warning, let recent {
            var fields = fields
            let request = fields.removeValue(forKey: "request")
            recent.append(RecentLog.Entry(at: Date(), level: "\(event.level)", message: "\(event.message)", requestID: request, fields: fields))
        }
    }

    /// The line for an event: the handler's metadata, then the provider's, then the event's own
    /// (a later one wins for the same key), sorted by key.
    func line(for event: LogEvent) -> String { render(event).line }

    private func render(_ event: LogEvent) -> (line: String, fields: [String: String]) {
        var all = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            all.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            all.merge(explicit) { _, explicit in explicit }
        }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let fields = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(Self.timestamp()) \(event.level)\(label.isEmpty ? "" : " ")\(label):\(fields) [\(event.source)] \(event.message)\n"
        guard event.level >= .warning else { return (line, [:]) }
        return (line, all.mapValues { "\($0)" })
    }

    /// One line at a time, whole: lines from several threads never interleave.
    private static let output = Mutex(())

    private static func write(_ line: String) {
        var line = line
        output.withLock { _ in
            line.withUTF8 { bytes in
                var rest = UnsafeRawBufferPointer(bytes)
                while !rest.isEmpty {
                    let written = Foundation.write(STDERR_FILENO, rest.baseAddress, rest.count)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return }
                    rest = UnsafeRawBufferPointer(rebasing: rest[written...])
                }
            }
        }
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "<unknown>" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard let base = buffer.baseAddress, strftime(base, 64, "%Y-%m-%dT%H:%M:%S%z", &parts) > 0 else { return "<unknown>" }
            return String(cString: base)
        }
    }
}
