import Foundation

/// Which backups to keep, like restic's and borg's `forget --keep-*`: the newest `last`, then the
/// newest backup of each of the last `hourly` hours, `daily` days, `weekly` ISO weeks and
/// `monthly` months (UTC) that have one. A backup kept by any rule stays; the newest always does.
public struct BackupRetention: Sendable, Equatable {
    public var last: Int
    public var hourly: Int
    public var daily: Int
    public var weekly: Int
    public var monthly: Int

    public init(last: Int = 0, hourly: Int = 0, daily: Int = 7, weekly: Int = 4, monthly: Int = 6) {
        self.last = last
        self.hourly = hourly
        self.daily = daily
        self.weekly = weekly
        self.monthly = monthly
    }

    /// The names among `names` (backup names: their UTC times) to keep; the others may be deleted.
    /// Names that are not backup names are always kept (never deleted by mistake).
    public func keep(_ names: [String]) -> Set<String> {
        let dated = names.compactMap { name in BackupFiles.date(ofName: name).map { (name, $0) } }.sorted { $0.1 > $1.1 }
        var kept = Set(names.filter { BackupFiles.date(ofName: $0) == nil })
        if let newest = dated.first { kept.insert(newest.0) }
        kept.formUnion(dated.prefix(last).map(\.0))
        let calendar = BackupFiles.utcCalendar
        let rules: [(count: Int, bucket: (Date) -> String)] = [
            (hourly, { let p = calendar.dateComponents([.year, .month, .day, .hour], from: $0); return "\(p.year ?? 0)-\(p.month ?? 0)-\(p.day ?? 0)-\(p.hour ?? 0)" }),
            (daily, { let p = calendar.dateComponents([.year, .month, .day], from: $0); return "\(p.year ?? 0)-\(p.month ?? 0)-\(p.day ?? 0)" }),
            (weekly, { let p = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: $0); return "\(p.yearForWeekOfYear ?? 0)-W\(p.weekOfYear ?? 0)" }),
            (monthly, { let p = calendar.dateComponents([.year, .month], from: $0); return "\(p.year ?? 0)-\(p.month ?? 0)" }),
        ]
        for rule in rules where rule.count > 0 {
            var seen: [String] = []
            for (name, date) in dated {
                let bucket = rule.bucket(date)
                if seen.last == bucket { continue }
                seen.append(bucket)
                if seen.count > rule.count { break }
                kept.insert(name)
            }
        }
        return kept
    }
}
