import Foundation
import SeededRandom

/// One review in a log, as the optimizer reads it: which card, on which day, how it went.
public struct FSRSDayReview: Sendable, Equatable {
    public var card: String
    /// The review's day (whole days since some fixed day, the user's day boundary applied).
    public var day: Int
    public var rating: FSRSRating

    public init(card: String, day: Int, rating: FSRSRating) {
        self.card = card
        self.day = day
        self.rating = rating
    }

    /// The day number of `date` for a day that starts `offsetSeconds` after midnight UTC.
    public static func day(of date: Date, offsetSeconds: Double = 0) -> Int {
        Int(((date.timeIntervalSince1970 - offsetSeconds) / 86_400).rounded(.down))
    }
}

/// One card's reviews in time order: the first has `elapsedDays` 0, each later one the whole days
/// since the review before (0 for another review the same day).
public struct FSRSReviewSequence: Sendable, Equatable {
    public var elapsedDays: [Int]
    public var ratings: [FSRSRating]

    public init(elapsedDays: [Int], ratings: [FSRSRating]) {
        self.elapsedDays = elapsedDays
        self.ratings = ratings
    }

    /// The reviews the model predicts: each on a later day than the review before. Its loss is
    /// the sum over these; a same-day review moves the memory state but is not predicted.
    public var predictedCount: Int { elapsedDays.dropFirst().filter { $0 > 0 }.count }
}

/// Fits the 21 FSRS-6 parameters to a review log, the way `fsrs-rs` (the optimizer Anki uses) does:
///
/// - each card's reviews are one sequence; at each review on a later day, the model's predicted
///   probability of recall (from the state after the reviews before) is scored against whether it
///   was recalled (any rating but `again`) by binary cross-entropy;
/// - the initial stabilities (parameters 0 to 3) are first estimated from each card's first rating
///   and how its next review went ("pretraining"), the rest start from the defaults;
/// - then Adam (learning rate 0.04, cosine-annealed to 0) over batches of about 512 predicted
///   reviews, 5 epochs, each step followed by the parameters' clamps; the epoch with the lowest
///   loss on the whole log is kept.
///
/// The gradient is exact: the forward pass runs on ``FSRSDual`` numbers that carry their
/// derivatives by the 21 parameters (forward-mode differentiation), one pass per card.
public enum FSRSOptimizer {
    public struct Options: Sendable {
        public var epochs = 5
        public var batchSize = 512
        public var learningRate = 0.04
        public var seed: UInt64 = 2023
        /// Reviews of a card after this many are not used (as fsrs-rs's `max_seq_len`).
        public var maxSequenceLength = 256

        public init() {}
    }

    /// The result of a fit.
    public struct Fit: Sendable {
        public var parameters: [Double]
        /// Mean log loss per predicted review on the log it was fitted to, before and after.
        public var initialLoss: Double
        public var loss: Double
        public var predictedReviews: Int
    }

    /// The clamps of each parameter after every step (fsrs-rs's FSRS-6 clipper, one relearning
    /// step, short-term reviews on).
    public static let clamps: [(Double, Double)] = [
        (0.001, 100), (0.001, 100), (0.001, 100), (0.001, 100),
        (1, 10), (0.001, 4), (0.001, 4), (0.001, 0.75), (0, 4.5), (0, 0.8), (0.001, 3.5), (0.001, 5),
        (0.001, 0.25), (0.001, 0.9), (0, 4), (0, 1), (1, 6), (0, 2), (0, 2), (0.01, 0.8), (0.1, 0.8),
    ]

    /// Groups a log by card, each card's reviews in day order (reviews of one day in the log's order).
    public static func sequences(from log: [FSRSDayReview]) -> [FSRSReviewSequence] {
        var order: [String] = []
        var byCard: [String: [(index: Int, review: FSRSDayReview)]] = [:]
        for (index, review) in log.enumerated() {
            if byCard[review.card] == nil { order.append(review.card) }
            byCard[review.card, default: []].append((index, review))
        }
        return order.compactMap { card in
            guard let reviews = byCard[card]?.sorted(by: { ($0.review.day, $0.index) < ($1.review.day, $1.index) }),
                  let first = reviews.first else { return nil }
            var previous = first.review.day
            var elapsed: [Int] = []
            for (_, review) in reviews {
                elapsed.append(review.day - previous)
                previous = review.day
            }
            return FSRSReviewSequence(elapsedDays: elapsed, ratings: reviews.map(\.review.rating))
        }
    }

    /// Mean log loss per predicted review of `parameters` on `sequences` (and how many were predicted).
    public static func logLoss(parameters: [Double], sequences: [FSRSReviewSequence]) -> (loss: Double, count: Int) {
        let model = FSRSModel<Double>(w: parameters)
        var total = 0.0
        var count = 0
        for sequence in sequences {
            let result = model.loss(sequence)
            total += result.loss
            count += result.count
        }
        return (count == 0 ? 0 : total / Double(count), count)
    }

    /// Fits the parameters to `sequences`. `progress` is told the share done (0 to 1) after each
    /// batch and returns false to stop (the fit then returns nil).
    public static func fit(_ sequences: [FSRSReviewSequence], options: Options = Options(),
                           progress: (Double) -> Bool = { _ in true }) -> Fit? {
        let cards = sequences.map { sequence in
            sequence.elapsedDays.count <= options.maxSequenceLength ? sequence
                : FSRSReviewSequence(elapsedDays: Array(sequence.elapsedDays.prefix(options.maxSequenceLength)),
                                     ratings: Array(sequence.ratings.prefix(options.maxSequenceLength)))
        }.filter { $0.predictedCount > 0 }
        let predicted = cards.reduce(0) { $0 + $1.predictedCount }
        var parameters = FSRSScheduler.defaultParameters
        let initial = logLoss(parameters: parameters, sequences: cards).loss
        let stabilities = pretrainedStabilities(cards)
        for index in 0..<4 { parameters[index] = stabilities[index] }
        guard predicted > 0 else { return Fit(parameters: parameters, initialLoss: initial, loss: initial, predictedReviews: 0) }

        var random = SplitMix64(seed: options.seed)
        var order = Array(cards.indices)
        let batchesPerEpoch = max(1, Int((Double(predicted) / Double(options.batchSize)).rounded(.up)))
        let totalSteps = Double(batchesPerEpoch * options.epochs)
        var adam = Adam(count: 21)
        var step = 0
        var best = (loss: logLoss(parameters: parameters, sequences: cards).loss, parameters: parameters)
        for _ in 0..<options.epochs {
            order.shuffle(using: &random)
            var gradient = FSRSPartials.zero
            var inBatch = 0
            var position = 0
            while position < order.count {
                let model = FSRSModel<FSRSDual>(w: parameters.enumerated().map { FSRSDual.variable($1, index: $0) })
                while position < order.count && inBatch < options.batchSize {
                    let result = model.loss(cards[order[position]])
                    gradient += result.loss.partials
                    inBatch += result.count
                    position += 1
                }
                let rate = options.learningRate * 0.5 * (1 + cos(Double.pi * Double(step) / totalSteps))
                adam.step(&parameters, gradient: gradient, rate: rate)
                parameters = clamped(parameters)
                step += 1
                gradient = .zero
                inBatch = 0
                if !progress(min(1, Double(step) / totalSteps)) { return nil }
            }
            let loss = logLoss(parameters: parameters, sequences: cards).loss
            if loss < best.loss { best = (loss, parameters) }
        }
        return Fit(parameters: best.parameters, initialLoss: initial, loss: best.loss, predictedReviews: predicted)
    }

    static func clamped(_ parameters: [Double]) -> [Double] {
        var result = parameters
        for (index, (low, high)) in clamps.enumerated() {
            result[index] = min(max(result[index].isFinite ? result[index] : FSRSScheduler.defaultParameters[index], low), high)
        }
        return result
    }

    /// Initial stability per first rating: for the cards first rated `r`, the stability whose
    /// forgetting curve best predicts how each card's first review on a later day went (with a
    /// weak pull towards the default, so a rating seen on few cards stays near it); then kept in
    /// order (again ≤ hard ≤ good ≤ easy), as fsrs-rs's pretraining and `smooth_and_fill` do.
    static func pretrainedStabilities(_ cards: [FSRSReviewSequence]) -> [Double] {
        var groups: [[Int: (recalled: Double, total: Double)]] = Array(repeating: [:], count: 4)
        for card in cards {
            guard let first = card.ratings.first,
                  let next = card.elapsedDays.indices.dropFirst().first(where: { card.elapsedDays[$0] > 0 }) else { continue }
            let elapsed = card.elapsedDays[1...next].reduce(0, +)
            var bucket = groups[first.rawValue - 1][elapsed] ?? (0, 0)
            bucket.total += 1
            if card.ratings[next] != .again { bucket.recalled += 1 }
            groups[first.rawValue - 1][elapsed] = bucket
        }
        let defaults = FSRSScheduler.defaultParameters
        let decay = -defaults[20]
        let factor = Foundation.pow(0.9, 1 / decay) - 1
        var result = Array(defaults[0..<4])
        for rating in 0..<4 where !groups[rating].isEmpty {
            let group = groups[rating]
            func loss(_ logStability: Double) -> Double {
                let stability = Foundation.exp(logStability)
                var total = 0.0
                for (elapsed, counts) in group {
                    let recall = min(max(Foundation.pow(1 + factor * Double(elapsed) / stability, decay), 1e-9), 1 - 1e-9)
                    total -= counts.recalled * Foundation.log(recall) + (counts.total - counts.recalled) * Foundation.log(1 - recall)
                }
                let pull = logStability - Foundation.log(defaults[rating])
                return total + pull * pull
            }
            result[rating] = Foundation.exp(goldenSection(loss, low: Foundation.log(0.001), high: Foundation.log(100)))
        }
        for index in 1..<4 { result[index] = max(result[index], result[index - 1]) }
        return result.map { min(max($0, 0.001), 100) }
    }

    static func goldenSection(_ function: (Double) -> Double, low: Double, high: Double) -> Double {
        let ratio = (Foundation.sqrt(5.0) - 1) / 2
        var a = low, b = high
        var c = b - ratio * (b - a), d = a + ratio * (b - a)
        var fc = function(c), fd = function(d)
        for _ in 0..<80 {
            if fc < fd {
                b = d; d = c; fd = fc
                c = b - ratio * (b - a); fc = function(c)
            } else {
                a = c; c = d; fc = fd
                d = a + ratio * (b - a); fd = function(d)
            }
        }
        return (a + b) / 2
    }
}

/// FSRS-6's memory model over one card's reviews (fsrs-rs's `model.rs`), on dual numbers.
struct FSRSModel<N: FSRSNumber> {
    let w: [N]
    let decay: N
    let factor: N
    let easyDifficulty: N

    init(w: [N]) {
        self.w = w
        decay = -w[20]
        factor = (N(Foundation.log(0.9)) / decay).exp() - 1
        easyDifficulty = w[4] - (w[5] * 3).exp() + 1
    }

    func retrievability(elapsed: Int, stability: N) -> N {
        (factor * Double(elapsed) / stability + 1).pow(decay)
    }

    /// The summed cross-entropy of the card's predicted reviews, with its partials, and how many.
    func loss(_ sequence: FSRSReviewSequence) -> (loss: N, count: Int) {
        let result = run(sequence)
        return (result.loss, result.count)
    }

    /// The memory state after all of the card's reviews.
    func state(after sequence: FSRSReviewSequence) -> (stability: N, difficulty: N) {
        let result = run(sequence)
        return (result.stability, result.difficulty)
    }

    private func run(_ sequence: FSRSReviewSequence) -> (loss: N, count: Int, stability: N, difficulty: N) {
        var total = N(0)
        var count = 0
        guard let first = sequence.ratings.first else { return (total, 0, N(0), N(0)) }
        var stability = w[first.rawValue - 1].clamped(0.001, 36_500)
        var difficulty = (w[4] - (w[5] * Double(first.rawValue - 1)).exp() + 1).clamped(1, 10)
        for index in sequence.ratings.indices.dropFirst() {
            let elapsed = sequence.elapsedDays[index]
            let rating = sequence.ratings[index]
            let grade = Double(rating.rawValue)
            if elapsed > 0 {
                let recall = retrievability(elapsed: elapsed, stability: stability)
                let safe = recall.withValue(min(max(recall.value, 1e-9), 1 - 1e-9))
                total = total - (rating == .again ? (1 - safe).log() : safe.log())
                count += 1
                if rating == .again {
                    let longTerm = w[11] * difficulty.pow(-w[12]) * ((stability + 1).pow(w[13]) - 1) * ((1 - recall) * w[14]).exp()
                    let shortTerm = stability / (w[17] * w[18]).exp()
                    stability = longTerm.value < shortTerm.value ? longTerm : shortTerm
                } else {
                    let hard = rating == .hard ? w[15] : N(1)
                    let easy = rating == .easy ? w[16] : N(1)
                    let growth = w[8].exp() * (11.0 - difficulty) * stability.pow(-w[9]) * (((1.0 - recall) * w[10]).exp() - 1.0)
                    stability = stability * (growth * hard * easy + 1.0)
                }
            } else {
                let increase = (w[17] * (w[18] + (grade - 3))).exp() * stability.pow(-w[19])
                stability = stability * (rating == .again ? increase : increase.atLeast(1))
            }
            stability = stability.clamped(0.001, 36_500)
            let delta = w[6] * (3 - grade)
            let damped = difficulty + (10.0 - difficulty) * delta / 9.0
            difficulty = (w[7] * easyDifficulty + (1 - w[7]) * damped).clamped(1, 10)
        }
        return (total, count, stability, difficulty)
    }
}

/// Adam (β₁ 0.9, β₂ 0.999, ε 1e-8).
struct Adam {
    var first: [Double]
    var second: [Double]
    var time = 0

    init(count: Int) {
        first = Array(repeating: 0, count: count)
        second = Array(repeating: 0, count: count)
    }

    mutating func step(_ parameters: inout [Double], gradient: FSRSPartials, rate: Double) {
        time += 1
        let correction1 = 1 - Foundation.pow(0.9, Double(time))
        let correction2 = 1 - Foundation.pow(0.999, Double(time))
        for index in parameters.indices {
            let g = gradient[index]
            guard g.isFinite else { continue }
            first[index] = 0.9 * first[index] + 0.1 * g
            second[index] = 0.999 * second[index] + 0.001 * g * g
            parameters[index] -= rate * (first[index] / correction1) / (Foundation.sqrt(second[index] / correction2) + 1e-8)
        }
    }
}

