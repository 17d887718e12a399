import Foundation
import VocabularyFormats

// Anki's scheduling columns read into FSRS's state and written back (AnkiPackage.swift reads and
// writes the package itself).
extension AnkiPackage {

    /// A card's scheduling columns (schema 11) and its `data` JSON, where Anki 23.10 and later keep
    /// FSRS's memory state (`s` stability, `d` difficulty) and 24.11 and later the last review's
    /// time (`lrt`).
    struct AnkiCard: Equatable {
        /// 0 new, 1 learning, 2 review, 3 relearning.
        var type: Int
        /// 0 new, 1 learning (due in epoch seconds), 2 review and 3 day-learning (due in days since
        /// the collection's creation), below 0 suspended or buried.
        var queue: Int
        var due: Int64
        /// Days (review and relearning).
        var interval: Int
        /// Ease × 1000 (2500 by default).
        var factor: Int
        var reps: Int
        var lapses: Int
        var data: String
    }

    /// Where Anki's card is in its schedule: nil for a new card, or for one whose columns do not
    /// describe a time (it imports as new). Stability and difficulty come from the card's FSRS
    /// memory state when Anki kept one; otherwise stability is the interval (what it is at 90 %
    /// retention) and difficulty follows the ease (2.5 → 5, 1.3 → 10).
    static func schedule(_ card: AnkiCard, created: Int64) -> ImportedSchedule? {
        let memory = (try? JSONSerialization.jsonObject(with: Data(card.data.utf8))) as? [String: Any]
        let stability = (memory?["s"] as? NSNumber)?.doubleValue.flatMapFinite { (0.001...36_500).contains($0) ? $0 : nil }
        let difficulty = (memory?["d"] as? NSNumber)?.doubleValue.flatMapFinite { (1...10).contains($0) ? $0 : nil }
        // Anki 24.11 and later also keep the last review's time (`lrt`, epoch seconds).
        let lastReviewed = (memory?["lrt"] as? NSNumber)?.doubleValue.flatMapFinite { (0...4_102_444_800).contains($0) ? $0 : nil }
            .map { Date(timeIntervalSince1970: $0) }
        let byDay = card.queue == 2 || card.queue == 3 || (card.queue < 0 && card.type == 2)
        let seconds = byDay ? Double(created) + Double(card.due) * 86_400 : Double(card.due)
        guard (0...4_102_444_800).contains(seconds) else { return nil }  // before 2100
        let due = Date(timeIntervalSince1970: seconds)
        let ease = card.factor > 0 ? Double(card.factor) / 1000 : 2.5
        let easeDifficulty = min(max(5 + (2.5 - ease) * 5 / 1.2, 1), 10)
        let reps = max(0, card.reps), lapses = max(0, card.lapses)
        switch card.type {
        case 2:
            let days = max(1, card.interval)
            return ImportedSchedule(state: "review", stability: stability ?? Double(days), difficulty: difficulty ?? easeDifficulty, due: due,
                                    lastReview: lastReviewed ?? due.addingTimeInterval(-Double(days) * 86_400), reps: reps, lapses: lapses)
        case 1:
            let known = stability != nil && difficulty != nil
            return ImportedSchedule(state: "learning", stability: known ? stability : nil, difficulty: known ? difficulty : nil, due: due,
                                    lastReview: known ? lastReviewed : nil, reps: reps, lapses: lapses)
        case 3:
            return ImportedSchedule(state: "relearning", stability: stability ?? Double(max(1, card.interval)), difficulty: difficulty ?? easeDifficulty,
                                    due: due, lastReview: lastReviewed, reps: reps, lapses: lapses)
        default:
            return nil
        }
    }

    /// The columns a card with this schedule gets in a package whose collection was created at
    /// `created` (a day start): Anki reads the state, the due time, the interval and the ease, and
    /// FSRS's memory state from `data`.
    static func ankiCard(_ schedule: ImportedSchedule, created: Int64) -> AnkiCard {
        var data = ""
        var memory: [String: Any] = [:]
        if let s = schedule.stability, let d = schedule.difficulty { memory = ["s": s, "d": d] }
        if let last = schedule.lastReview, !memory.isEmpty { memory["lrt"] = Int64(last.timeIntervalSince1970.rounded(.down)) }
        if !memory.isEmpty, let json = try? JSONSerialization.data(withJSONObject: memory, options: [.sortedKeys]) {
            data = String(decoding: json, as: UTF8.self)
        }
        let ease = schedule.difficulty.map { 2.5 - ($0 - 5) * 1.2 / 5 } ?? 2.5
        let factor = Int((min(max(ease, 1.3), 5) * 1000).rounded())
        let dueSeconds = Int64(schedule.due.timeIntervalSince1970.rounded(.down))
        switch schedule.state {
        case "review":
            let interval = schedule.lastReview.map { max(1, Int((schedule.due.timeIntervalSince($0) / 86_400).rounded())) } ?? 1
            return AnkiCard(type: 2, queue: 2, due: (dueSeconds - created).floorDivided(by: 86_400), interval: interval, factor: factor,
                            reps: schedule.reps, lapses: schedule.lapses, data: data)
        case "relearning":
            return AnkiCard(type: 3, queue: 1, due: dueSeconds, interval: max(1, Int((schedule.stability ?? 1).rounded())), factor: factor,
                            reps: schedule.reps, lapses: schedule.lapses, data: data)
        default:
            return AnkiCard(type: 1, queue: 1, due: dueSeconds, interval: 0, factor: factor, reps: schedule.reps, lapses: schedule.lapses, data: data)
        }
    }
}

extension Double {
    /// The value when finite and `accept` keeps it.
    fileprivate func flatMapFinite(_ accept: (Double) -> Double?) -> Double? { isFinite ? accept(self) : nil }
}

extension Int64 {
    /// Division rounded towards minus infinity (a time before the collection's creation is day -1, not 0).
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
