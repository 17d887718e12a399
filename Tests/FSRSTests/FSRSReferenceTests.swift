import FSRS
import Foundation
import SeededRandom
import Testing

/// Quire's FSRS-6 against the reference (PyPI `fsrs` 6.3.2, run by tools/acceptance/fsrs_reference.py)
/// on the same random sequences of ratings and times: every step's state, step, due time,
/// stability, difficulty and retrievability must agree.
@Suite("FSRS-6 against the reference")
struct FSRSReferenceTests {
    struct Review: Codable { var rating: Int; var at: Double }
    struct Step: Codable { var state: Int; var step: Int?; var stability: Double; var difficulty: Double; var due: Double; var retrievability: Double }
    struct Config: Codable {
        var desired_retention: Double
        var learning_steps: [Int]
        var relearning_steps: [Int]
        var maximum_interval: Int
    }

    /// Gaps between reviews from seconds to a year: same-day steps, on time, early and very late.
    static func sequences(count: Int, seed: UInt64) -> [[Review]] {
        var random = SplitMix64(seed: seed)  // the same sequences on every run: a failing one stays failing
        let gaps: [ClosedRange<Int>] = [1...90, 50...700, 500...4_000, 3_600...80_000, 86_400...260_000,
                                        250_000...1_500_000, 1_000_000...9_000_000, 9_000_000...40_000_000]
        return (0..<count).map { _ in
            var at = Double(Int.random(in: 1_700_000_000...1_800_000_000, using: &random))
            return (0..<Int.random(in: 1...16, using: &random)).map { _ in
                let review = Review(rating: Int.random(in: 1...4, using: &random), at: at)
                at += Double(Int.random(in: gaps.randomElement(using: &random) ?? 1...1, using: &random))
                return review
            }
        }
    }

    static func reference(_ config: Config, _ sequences: [[Review]]) throws -> [[Step]] {
        struct Request: Codable { var config: Config; var sequences: [[Review]] }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The request goes in as a file: a pipe each way could fill while the other is not read.
        let request = FileManager.default.temporaryDirectory.appendingPathComponent("quire-fsrs-\(UUID().uuidString).json")
        try JSONEncoder().encode(Request(config: config, sequences: sequences)).write(to: request)
        defer { try? FileManager.default.removeItem(at: request) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("tools/acceptance/fsrs_reference.py").path]
        process.standardInput = try FileHandle(forReadingFrom: request)
        let output = Pipe()
        process.standardOutput = output
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("quire-fsrs-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw TestFailure("cannot create \(errors.path)") }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let reply = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let problem = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw TestFailure("the reference failed (run tools/setup: it installs PyPI fsrs 6.3.2): \(problem)")
        }
        return try JSONDecoder().decode([[Step]].self, from: reply)
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func compare(_ config: Config, count: Int, seed: UInt64) throws {
        let sequences = Self.sequences(count: count, seed: seed)
        let expected = try Self.reference(config, sequences)
        #expect(expected.count == sequences.count)
        let scheduler = FSRSScheduler(desiredRetention: config.desired_retention,
                                      learningSteps: config.learning_steps.map { .seconds($0) },
                                      relearningSteps: config.relearning_steps.map { .seconds($0) },
                                      maximumInterval: config.maximum_interval, fuzz: false)
        var steps = 0, mismatches = 0
        for (index, (sequence, reference)) in zip(sequences, expected).enumerated() {
            var card = FSRSCard(due: Date(timeIntervalSince1970: sequence[0].at))
            for (number, (review, want)) in zip(sequence, reference).enumerated() {
                let at = Date(timeIntervalSince1970: review.at)
                card = scheduler.review(card, rating: FSRSRating(rawValue: review.rating) ?? .good, at: at)
                steps += 1
                let same = card.state.rawValue == want.state && card.step == want.step
                    && card.due.timeIntervalSince1970 == want.due
                    && close(card.stability, want.stability) && close(card.difficulty, want.difficulty)
                    && close(scheduler.retrievability(of: card, at: at.addingTimeInterval(3 * 86_400)), want.retrievability)
                if !same {
                    mismatches += 1
                    if mismatches <= 5 {
                        Issue.record("sequence \(index) (seed \(seed)), review \(number + 1): \(card) but the reference has \(want)")
                    }
                }
            }
        }
        #expect(mismatches == 0, "\(mismatches) of \(steps) steps differ")
        #expect(steps > count * 5)
    }

    /// Equal to the last bit, or within 1e-12 relative (a libm may round a power differently).
    func close(_ value: Double?, _ reference: Double) -> Bool {
        guard let value else { return false }
        return value == reference || abs(value - reference) <= 1e-12 * max(abs(reference), 1)
    }

    @Test("1,000 random sequences on the defaults (retention 0.9, steps 1 m and 10 m, relearning 10 m)")
    func defaults() throws {
        try compare(Config(desired_retention: 0.9, learning_steps: [60, 600], relearning_steps: [600], maximum_interval: 36_500),
                    count: 1_000, seed: 2026)
    }

    @Test("other settings: retention 0.8 and 0.97, one learning step, none, two relearning steps, a short maximum")
    func otherSettings() throws {
        try compare(Config(desired_retention: 0.8, learning_steps: [60], relearning_steps: [], maximum_interval: 36_500), count: 200, seed: 7)
        try compare(Config(desired_retention: 0.97, learning_steps: [], relearning_steps: [300, 1_200], maximum_interval: 180), count: 200, seed: 8)
    }
}

@Suite("FSRS-6 scheduling")
struct FSRSSchedulingTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a new card: again 1 m, hard 5.5 m, good 10 m, easy graduates to review in days")
    func firstReview() {
        let scheduler = FSRSScheduler(fuzz: false)
        let card = FSRSCard(due: start)
        #expect(card.isNew)
        let again = scheduler.review(card, rating: .again, at: start)
        #expect(again.state == .learning && again.step == 0 && again.due == start.addingTimeInterval(60))
        #expect(scheduler.review(card, rating: .hard, at: start).due == start.addingTimeInterval(330))
        let good = scheduler.review(card, rating: .good, at: start)
        #expect(good.state == .learning && good.step == 1 && good.due == start.addingTimeInterval(600))
        let easy = scheduler.review(card, rating: .easy, at: start)
        #expect(easy.state == .review && easy.step == nil && easy.due.timeIntervalSince(start) == 8 * 86_400)
        #expect(!easy.isNew)
    }

    @Test("fuzz moves a long interval within its range and never past the maximum; off, it does not move")
    func fuzz() {
        let plain = FSRSScheduler(fuzz: false)
        let fuzzed = FSRSScheduler(fuzz: true)
        var card = FSRSCard(state: .review, step: nil, stability: 100, difficulty: 5, due: start, lastReview: start.addingTimeInterval(-100 * 86_400))
        card.due = start
        let base = plain.review(card, rating: .good, at: start).due.timeIntervalSince(start) / 86_400
        let low = fuzzed.review(card, rating: .good, at: start, random: { 0 }).due.timeIntervalSince(start) / 86_400
        let high = fuzzed.review(card, rating: .good, at: start, random: { 0.999_999 }).due.timeIntervalSince(start) / 86_400
        #expect(low < base && base < high)
        #expect((high - low) / base < 0.2)
        let capped = FSRSScheduler(maximumInterval: 30, fuzz: true)
        #expect(capped.review(card, rating: .easy, at: start, random: { 0.999_999 }).due.timeIntervalSince(start) / 86_400 <= 30)
    }
}
