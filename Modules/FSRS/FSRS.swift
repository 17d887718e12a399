import Foundation

/// FSRS-6, the spaced-repetition scheduler Anki uses: given a card's memory state and how well it
/// was recalled, when to show it next.
///
/// A translation of the reference implementation, PyPI `fsrs` 6.3.2 (`fsrs/scheduler.py`), step for
/// step, so that the same ratings at the same times give the same states and intervals: powers of
/// *e* are `pow(e, x)` as Python's `math.e ** x` is, and whole days round half to even as Python's
/// `round` does. `Tests/FSRSTests` runs the reference on the same sequences and compares each step.
///
/// A card starts in `learning` at step 0 with no memory state ("new"); short learning steps
/// (1 and 10 minutes by default) lead to `review`, where intervals are whole days; a lapse goes to
/// `relearning` (10 minutes by default) and back.
public struct FSRSScheduler: Sendable {
    /// The 21 default parameters of FSRS-6 (`DEFAULT_PARAMETERS`).
    public static let defaultParameters: [Double] = [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
        1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ]
    static let minStability = 0.001
    static let minDifficulty = 1.0
    static let maxDifficulty = 10.0
    static let e = 2.718281828459045  // Python's math.e

    public let parameters: [Double]
    /// The probability of recall a review is scheduled for (0.9: nine in ten remembered).
    public let desiredRetention: Double
    public let learningSteps: [Duration]
    public let relearningSteps: [Duration]
    /// Days; the longest review interval.
    public let maximumInterval: Int
    /// Whether review intervals of 3 days and more are moved a little at random, so that cards
    /// learned together do not stay due together.
    public let fuzz: Bool
    private let decay: Double
    private let factor: Double

    public init(parameters: [Double] = FSRSScheduler.defaultParameters, desiredRetention: Double = 0.9,
                learningSteps: [Duration] = [.seconds(60), .seconds(600)], relearningSteps: [Duration] = [.seconds(600)],
                maximumInterval: Int = 36_500, fuzz: Bool = true) {
        precondition(parameters.count == 21, "FSRS-6 has 21 parameters")
        self.parameters = parameters
        self.desiredRetention = desiredRetention
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.maximumInterval = maximumInterval
        self.fuzz = fuzz
        decay = -parameters[20]
        factor = Foundation.pow(0.9, 1 / decay) - 1
    }

    /// The predicted probability that `card` is recalled at `date` (0 for a card never reviewed).
    public func retrievability(of card: FSRSCard, at date: Date) -> Double {
        guard let lastReview = card.lastReview, let stability = card.stability else { return 0 }
        let elapsed = max(0, Self.wholeDays(from: lastReview, to: date))
        return Foundation.pow(1 + factor * Double(elapsed) / stability, decay)
    }

    /// The card after a review rated `rating` at `date`. `random` (in 0..<1) draws the fuzz.
    public func review(_ card: FSRSCard, rating: FSRSRating, at date: Date,
                       random: () -> Double = { Double.random(in: 0..<1) }) -> FSRSCard {
        var card = card
        let daysSinceLast = card.lastReview.map { Self.wholeDays(from: $0, to: date) }
        let sameDay = daysSinceLast.map { $0 < 1 } ?? false
        let interval: Interval
        switch card.state {
        case .learning, .relearning:
            let steps = card.state == .learning ? learningSteps : relearningSteps
            let step = card.step ?? 0
            if let stability = card.stability, let difficulty = card.difficulty {
                card.stability = sameDay ? shortTermStability(stability, rating)
                    : nextStability(difficulty: difficulty, stability: stability, retrievability: retrievability(of: card, at: date), rating)
                card.difficulty = nextDifficulty(difficulty, rating)
            } else {
                card.stability = initialStability(rating)
                card.difficulty = clampDifficulty(initialDifficulty(rating))
            }
            if steps.isEmpty || (step >= steps.count && rating != .again) {
                interval = graduate(&card)
            } else {
                switch rating {
                case .again:
                    card.step = 0
                    interval = .exact(steps[0])
                case .hard:
                    if step == 0 && steps.count == 1 {
                        interval = .exact(steps[0] * 1.5)
                    } else if step == 0 {
                        interval = .exact((steps[0] + steps[1]) / 2)
                    } else {
                        interval = .exact(steps[step])
                    }
                case .good:
                    if step + 1 == steps.count {
                        interval = graduate(&card)
                    } else {
                        card.step = step + 1
                        interval = .exact(steps[step + 1])
                    }
                case .easy:
                    interval = graduate(&card)
                }
            }
        case .review:
            let stability = card.stability ?? Self.minStability
            let difficulty = card.difficulty ?? clampDifficulty(initialDifficulty(.good))
            card.stability = sameDay ? shortTermStability(stability, rating)
                : nextStability(difficulty: difficulty, stability: stability, retrievability: retrievability(of: card, at: date), rating)
            card.difficulty = nextDifficulty(difficulty, rating)
            if rating == .again && !relearningSteps.isEmpty {
                card.state = .relearning
                card.step = 0
                interval = .exact(relearningSteps[0])
            } else {
                interval = .days(nextInterval(card.stability ?? Self.minStability))
            }
        }
        switch interval {
        case .exact(let duration):
            card.due = date.addingTimeInterval(Self.seconds(duration))
        case .days(let days):
            let fuzzed = fuzz && card.state == .review ? fuzzedInterval(days, random: random) : days
            card.due = date.addingTimeInterval(Double(fuzzed) * 86_400)
        }
        card.lastReview = date
        return card
    }

    /// The interval in whole days a review-state card of this stability gets (before fuzz).
    public func nextInterval(_ stability: Double) -> Int {
        let days = (stability / factor) * (Foundation.pow(desiredRetention, 1 / decay) - 1)
        return min(max(Int(days.rounded(.toNearestOrEven)), 1), maximumInterval)
    }

    private enum Interval {
        case exact(Duration)
        case days(Int)
    }

    private func graduate(_ card: inout FSRSCard) -> Interval {
        card.state = .review
        card.step = nil
        return .days(nextInterval(card.stability ?? Self.minStability))
    }

    private func clampDifficulty(_ difficulty: Double) -> Double {
        min(max(difficulty, Self.minDifficulty), Self.maxDifficulty)
    }

    private func initialStability(_ rating: FSRSRating) -> Double {
        max(parameters[rating.rawValue - 1], Self.minStability)
    }

    private func initialDifficulty(_ rating: FSRSRating) -> Double {
        parameters[4] - Foundation.pow(Self.e, parameters[5] * Double(rating.rawValue - 1)) + 1
    }

    private func shortTermStability(_ stability: Double, _ rating: FSRSRating) -> Double {
        var increase = Foundation.pow(Self.e, parameters[17] * (Double(rating.rawValue) - 3 + parameters[18]))
            * Foundation.pow(stability, -parameters[19])
        if rating != .again { increase = max(increase, 1.0) }
        return max(stability * increase, Self.minStability)
    }

    private func nextDifficulty(_ difficulty: Double, _ rating: FSRSRating) -> Double {
        let easy = initialDifficulty(.easy)
        let delta = -(parameters[6] * Double(rating.rawValue - 3))
        let damped = difficulty + (10.0 - difficulty) * delta / 9.0
        return clampDifficulty(parameters[7] * easy + (1 - parameters[7]) * damped)
    }

    private func nextStability(difficulty: Double, stability: Double, retrievability: Double, _ rating: FSRSRating) -> Double {
        let next: Double
        if rating == .again {
            let longTerm = parameters[11] * Foundation.pow(difficulty, -parameters[12])
                * (Foundation.pow(stability + 1, parameters[13]) - 1)
                * Foundation.pow(Self.e, (1 - retrievability) * parameters[14])
            let shortTerm = stability / Foundation.pow(Self.e, parameters[17] * parameters[18])
            next = min(longTerm, shortTerm)
        } else {
            let hardPenalty = rating == .hard ? parameters[15] : 1
            let easyBonus = rating == .easy ? parameters[16] : 1
            next = stability * (1 + Foundation.pow(Self.e, parameters[8]) * (11 - difficulty)
                * Foundation.pow(stability, -parameters[9])
                * (Foundation.pow(Self.e, (1 - retrievability) * parameters[10]) - 1)
                * hardPenalty * easyBonus)
        }
        return max(next, Self.minStability)
    }

    /// The reference's `_get_fuzzed_interval`: intervals under 2.5 days stay; longer ones move by
    /// up to 15 % (less for long ones), drawn uniformly in whole days.
    private func fuzzedInterval(_ days: Int, random: () -> Double) -> Int {
        guard Double(days) >= 2.5 else { return days }
        var delta = 1.0
        for (start, end, share) in [(2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, Double.infinity, 0.05)] {
            delta += share * max(min(Double(days), end) - start, 0)
        }
        var low = max(2, Int((Double(days) - delta).rounded(.toNearestOrEven)))
        let high = min(Int((Double(days) + delta).rounded(.toNearestOrEven)), maximumInterval)
        low = min(low, high)
        let drawn = random() * Double(high - low + 1) + Double(low)
        return min(Int(drawn.rounded(.toNearestOrEven)), maximumInterval)
    }

    /// Python's `timedelta.days`: whole days, rounded down (so a moment earlier is day -1).
    static func wholeDays(from start: Date, to end: Date) -> Int {
        Int((end.timeIntervalSince(start) / 86_400).rounded(.down))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// How well a card was recalled.
public enum FSRSRating: Int, Codable, Sendable, CaseIterable {
    case again = 1, hard, good, easy

    /// `again`, `hard`, `good` or `easy`.
    public var name: String {
        switch self {
        case .again: "again"
        case .hard: "hard"
        case .good: "good"
        case .easy: "easy"
        }
    }

    public init?(name: String) {
        guard let rating = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = rating
    }
}

/// Where a card is in its life (the reference's `State`; a new card is `learning` at step 0 with
/// no stability yet).
public enum FSRSState: Int, Codable, Sendable {
    case learning = 1, review, relearning
}

/// A card's memory state and schedule.
public struct FSRSCard: Codable, Sendable, Equatable {
    public var state: FSRSState
    /// The learning or relearning step; nil in review.
    public var step: Int?
    public var stability: Double?
    public var difficulty: Double?
    public var due: Date
    public var lastReview: Date?

    /// A new card, due at `due`.
    public init(due: Date) {
        self.init(state: .learning, step: 0, stability: nil, difficulty: nil, due: due, lastReview: nil)
    }

    public init(state: FSRSState, step: Int?, stability: Double?, difficulty: Double?, due: Date, lastReview: Date?) {
        self.state = state
        self.step = step
        self.stability = stability
        self.difficulty = difficulty
        self.due = due
        self.lastReview = lastReview
    }

    /// Never reviewed.
    public var isNew: Bool { lastReview == nil }
}
