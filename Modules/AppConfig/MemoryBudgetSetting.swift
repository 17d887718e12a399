import Foundation

extension AppConfig {
    /// `server.memory_budget`'s default: the request work (uploads and their decodes) a 1 GB
    /// machine can hold beside the server's own ~100 MB, its database's cache and the system.
    public static let defaultMemoryBudget = 320 << 20
    /// `server.memory_budget_wait`'s default: how long an upload waits for room before its 503.
    public static let defaultMemoryBudgetWait: Duration = .seconds(20)
    /// The smallest budget: one 25 MB photo and its decode must fit.
    public static let minimumMemoryBudget = 32 << 20

    /// `server.memory_budget`: bytes, or a number with a unit (`320MB`, `1GB`, `512MiB`; powers of
    /// 1024). Empty or absent: the default. Checked at start: a value that is neither, or below the
    /// minimum, is a config error naming the line.
    static func readMemoryBudget(_ server: ConfigSection) -> Int {
        guard let raw = server.string("memory_budget"), !raw.trimmingCharacters(in: .whitespaces).isEmpty else { return defaultMemoryBudget }
        guard let bytes = parseSize(raw) else {
            server.report("memory_budget", "expected a size such as 320MB, 1GB or a number of bytes, found \"\(raw)\"")
            return defaultMemoryBudget
        }
        guard bytes >= minimumMemoryBudget else {
            server.report("memory_budget", "must be at least 32MB (one photo and its decode), found \"\(raw)\"")
            return defaultMemoryBudget
        }
        return bytes
    }

    /// Bytes (`335544320`) or a number with a unit (`320MB`, `320 MiB`, `1GB`, `512k`; units are
    /// powers of 1024). Nil when it is neither.
    public static func parseSize(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: "")
        let digits = trimmed.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        let shift: Int
        switch trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces) {
        case "", "b": shift = 0
        case "k", "kb", "kib": shift = 10
        case "m", "mb", "mib": shift = 20
        case "g", "gb", "gib": shift = 30
        case "t", "tb", "tib": shift = 40
        default: return nil
        }
        guard number <= (Int.max >> shift) else { return nil }
        return number << shift
    }
}
