@testable import FSRS
import Foundation
import SeededRandom
import Testing

/// The optimizer (FSRSOptimizer): its gradient, that a fit lowers the loss, and that it finds the
/// parameters a simulated learner's reviews were drawn with. The comparison with the reference
/// optimizer (fsrs-rs) is tools/bench.d/fsrs_optimizer.py (BENCHMARKS.md).
@Suite struct FSRSOptimizerTests {
    /// A learner whose memory follows FSRS-6 with `w` (the same simulator as
    /// tools/bench.d/fsrs_optimizer.py): first ratings, same-day learning and relearning steps,
    /// reviews at the intervals for 90 % retention, recalled with the probability the model gives.
    static func simulate(_ w: [Double], reviews wanted: Int, seed: UInt64, days: Int = 365) -> [FSRSDayReview] {
        var random = SplitMix64(seed: seed)
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        func pick(_ weights: [Double], _ values: [FSRSRating]) -> FSRSRating {
            var x = uniform() * weights.reduce(0, +)
            for (weight, value) in zip(weights, values) {
                if x < weight { return value }
                x -= weight
            }
            return values[values.count - 1]
        }
        let model = FSRSModel<Double>(w: w)
        var log: [FSRSDayReview] = []
        var card = 0
        while log.count < wanted {
            card += 1
            let id = "c\(card)"
            var day = Int(uniform() * Double(days))
            var sequence = FSRSReviewSequence(elapsedDays: [0], ratings: [pick([0.25, 0.1, 0.55, 0.1], [.again, .hard, .good, .easy])])
            log.append(FSRSDayReview(card: id, day: day, rating: sequence.ratings[0]))
            var steps = 0
            while [.again, .hard].contains(sequence.ratings.last) && steps < 3 {
                let rating: FSRSRating = uniform() < 0.85 ? .good : .again
                sequence.elapsedDays.append(0)
                sequence.ratings.append(rating)
                log.append(FSRSDayReview(card: id, day: day, rating: rating))
                steps += 1
            }
            while true {
                let stability = model.state(after: sequence).stability
                let interval = max(1, Int((nextInterval(w, stability) * (0.95 + 0.1 * uniform())).rounded()))
                day += interval
                if day >= days { break }
                let recalled = uniform() < model.retrievability(elapsed: interval, stability: stability)
                let rating = recalled ? pick([0.1, 0.8, 0.1], [.hard, .good, .easy]) : .again
                sequence.elapsedDays.append(interval)
                sequence.ratings.append(rating)
                log.append(FSRSDayReview(card: id, day: day, rating: rating))
                if rating == .again {
                    let relearned: FSRSRating = uniform() < 0.9 ? .good : .hard
                    sequence.elapsedDays.append(0)
                    sequence.ratings.append(relearned)
                    log.append(FSRSDayReview(card: id, day: day, rating: relearned))
                }
            }
        }
        return log
    }

    static func nextInterval(_ w: [Double], _ stability: Double) -> Double {
        let decay = -w[20]
        let factor = pow(0.9, 1 / decay) - 1
        return stability / factor * (pow(0.9, 1 / decay) - 1)
    }

    /// A simulated learner unlike the defaults (as in the benchmark).
    static let learner: [Double] = [0.35, 1.1, 3.2, 12.0, 6.2, 0.65, 2.4, 0.02, 1.65, 0.2, 0.9, 1.6, 0.09, 0.32, 1.8, 0.5, 2.2,
                                    0.45, 0.2, 0.1, 0.25]

    @Test("the gradient carried by the dual numbers matches finite differences of the loss, for each of the 21 parameters")
    func gradient() {
        let sequences = FSRSOptimizer.sequences(from: Self.simulate(Self.learner, reviews: 3_000, seed: 7))
        let w = FSRSScheduler.defaultParameters
        let model = FSRSModel<FSRSDual>(w: w.enumerated().map { FSRSDual.variable($1, index: $0) })
        var gradient = FSRSPartials.zero
        for sequence in sequences { gradient += model.loss(sequence).loss.partials }
        func total(_ w: [Double]) -> Double {
            let result = FSRSOptimizer.logLoss(parameters: w, sequences: sequences)
            return result.loss * Double(result.count)
        }
        for index in 0..<21 {
            let h = 1e-6 * max(1, abs(w[index]))
            var up = w, down = w
            up[index] += h
            down[index] -= h
            let numeric = (total(up) - total(down)) / (2 * h)
            #expect(abs(numeric - gradient[index]) <= 1e-4 * max(1, abs(numeric)), "parameter \(index): \(gradient[index]) vs \(numeric)")
        }
    }

    @Test("a fit lowers the loss on the log it is fitted to, and the parameters stay within their clamps")
    func lossDecreases() throws {
        let sequences = FSRSOptimizer.sequences(from: Self.simulate(Self.learner, reviews: 5_000, seed: 11))
        let fit = try #require(FSRSOptimizer.fit(sequences))
        #expect(fit.loss < fit.initialLoss - 0.002, "\(fit.initialLoss) → \(fit.loss)")
        for (index, (low, high)) in FSRSOptimizer.clamps.enumerated() {
            #expect((low...high).contains(fit.parameters[index]), "parameter \(index) = \(fit.parameters[index])")
        }
    }

    @Test("from 60,000 reviews drawn with known parameters, the fit predicts held-out reviews as well as those parameters do, and finds the well-determined ones")
    func recoversKnownParameters() throws {
        let truth = Self.learner
        let train = FSRSOptimizer.sequences(from: Self.simulate(truth, reviews: 60_000, seed: 1))
        let test = FSRSOptimizer.sequences(from: Self.simulate(truth, reviews: 20_000, seed: 2))
        let fit = try #require(FSRSOptimizer.fit(train))
        let fitted = FSRSOptimizer.logLoss(parameters: fit.parameters, sequences: test).loss
        let best = FSRSOptimizer.logLoss(parameters: truth, sequences: test).loss
        let defaults = FSRSOptimizer.logLoss(parameters: FSRSScheduler.defaultParameters, sequences: test).loss
        #expect(fitted < best * 1.003, "fitted \(fitted), true parameters \(best)")
        #expect(fitted < defaults, "fitted \(fitted), defaults \(defaults)")
        // The initial stabilities of the common first ratings and the recall-growth terms are well
        // determined by this log; within 20 % of the truth.
        for index in [1, 2, 3, 8, 10] {
            #expect(abs(fit.parameters[index] - truth[index]) <= 0.2 * truth[index], "parameter \(index): \(fit.parameters[index]) vs \(truth[index])")
        }
    }

    @Test("a stopped fit returns nil; progress runs from above 0 to 1")
    func progressAndStop() {
        let sequences = FSRSOptimizer.sequences(from: Self.simulate(Self.learner, reviews: 3_000, seed: 3))
        var seen: [Double] = []
        _ = FSRSOptimizer.fit(sequences) { seen.append($0); return true }
        #expect(seen.first.map { $0 > 0 } == true)
        #expect(seen.last == 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(FSRSOptimizer.fit(sequences) { $0 < 0.5 } == nil)
    }

    @Test("a log becomes one sequence per card in day order, elapsed days between reviews, same-day reviews 0")
    func sequencesFromLog() {
        let log = [FSRSDayReview(card: "b", day: 10, rating: .good), FSRSDayReview(card: "a", day: 3, rating: .again),
                   FSRSDayReview(card: "a", day: 3, rating: .good), FSRSDayReview(card: "a", day: 1, rating: .hard),
                   FSRSDayReview(card: "b", day: 14, rating: .easy)]
        let sequences = FSRSOptimizer.sequences(from: log)
        #expect(sequences == [FSRSReviewSequence(elapsedDays: [0, 4], ratings: [.good, .easy]),
                              FSRSReviewSequence(elapsedDays: [0, 2, 0], ratings: [.hard, .again, .good])])
        #expect(sequences.map(\.predictedCount) == [1, 1])
    }
}
