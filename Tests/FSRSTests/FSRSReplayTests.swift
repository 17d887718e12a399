import FSRS
import Foundation
import Testing

/// A card's state is its log replayed in time order, the fuzz of each review seeded by the card and
/// the review: the same log in any arrival order gives the same card.
@Suite("FSRS: a card from its review log")
struct FSRSReplayTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func log() -> [FSRSLoggedReview] {
        let days: [(String, FSRSRating, Double)] = [
            ("a1", .good, 0), ("b1", .again, 0.001), ("a2", .good, 0.01), ("b2", .good, 2), ("a3", .easy, 5), ("b3", .hard, 21),
            ("a4", .good, 40), ("b4", .again, 90), ("a5", .good, 90.01), ("b5", .good, 95), ("a6", .good, 130),
        ]
        return days.map { FSRSLoggedReview(id: $0.0, rating: $0.1, at: start.addingTimeInterval($0.2 * 86_400)) }
    }

    @Test("any arrival order of two phones' reviews replays to the same card, fuzz on")
    func anyOrder() {
        let scheduler = FSRSScheduler(fuzz: true)
        let reviews = log()
        let inOrder = scheduler.replay(reviews, from: FSRSCard(due: start), cardID: "e_1")
        #expect(inOrder.count == reviews.count)
        // Applied one at a time as they happened: the same as the replay.
        var card = FSRSCard(due: start)
        for review in reviews { card = scheduler.review(card, review, cardID: "e_1") }
        #expect(inOrder.last?.after == card)
        let phoneB = reviews.filter { $0.id.hasPrefix("b") }, phoneA = reviews.filter { $0.id.hasPrefix("a") }
        for arrival in [phoneB + phoneA, phoneA + phoneB, reviews.reversed()] {
            #expect(scheduler.replay(arrival, from: FSRSCard(due: start), cardID: "e_1") == inOrder)
        }
        // Fuzz is on and seeded: another card with the same log may differ, the same card never does.
        #expect(scheduler.replay(reviews, from: FSRSCard(due: start), cardID: "e_1") == inOrder)
    }

    @Test("the seeded fuzz is in 0..<1, fixed by card and review, and spread")
    func seeded() {
        var values: [Double] = []
        for card in 0..<20 {
            for review in 0..<50 {
                let value = FSRSScheduler.seededRandom(card: "e_\(card)", review: "r_\(review)")
                #expect((0..<1).contains(value))
                #expect(value == FSRSScheduler.seededRandom(card: "e_\(card)", review: "r_\(review)"))
                values.append(value)
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        #expect(abs(mean - 0.5) < 0.05)
        #expect(Set(values).count == values.count)
        #expect(FSRSScheduler.seededRandom(card: "ab", review: "c") != FSRSScheduler.seededRandom(card: "a", review: "bc"))
    }

    @Test("reviews in the same second are applied in id order")
    func ties() {
        let scheduler = FSRSScheduler(fuzz: false)
        let a = FSRSLoggedReview(id: "r_a", rating: .again, at: start), b = FSRSLoggedReview(id: "r_b", rating: .easy, at: start)
        let steps = scheduler.replay([b, a], from: FSRSCard(due: start), cardID: "e")
        #expect(steps.map(\.review.id) == ["r_a", "r_b"])
    }
}
