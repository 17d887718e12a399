import Foundation

/// A card's state from its review log: every review applied in time order, as Anki's sync keeps
/// both devices' logs and a card is what its log says.
///
/// FSRS is deterministic but for the fuzz, so the fuzz of each review is drawn from a number seeded
/// by the card's id and the review's id (``FSRSScheduler/seededRandom(card:review:)``): the same
/// log gives the same card whatever order its reviews arrived in, on any server.
public struct FSRSLoggedReview: Sendable, Equatable {
    /// The review's id (the client's): the tie-break between reviews made in the same second.
    public var id: String
    public var rating: FSRSRating
    public var at: Date

    public init(id: String, rating: FSRSRating, at: Date) {
        self.id = id
        self.rating = rating
        self.at = at
    }
}

/// One review as replayed: the card before it and after it.
public struct FSRSReplayedStep: Sendable, Equatable {
    public var review: FSRSLoggedReview
    public var before: FSRSCard
    public var after: FSRSCard
}

extension FSRSScheduler {
    /// The order reviews are applied in: by time, then by id.
    public static func logOrder(_ a: FSRSLoggedReview, _ b: FSRSLoggedReview) -> Bool {
        a.at == b.at ? a.id < b.id : a.at < b.at
    }

    /// A number in 0..<1 fixed by the card and the review (FNV-1a over both ids): the fuzz of that
    /// review, the same every time it is replayed.
    public static func seededRandom(card: String, review: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(card.utf8) + [0x1F] + Array(review.utf8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        // SplitMix64's finaliser spreads the bits before the top 53 make the fraction.
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return Double(hash >> 11) / Double(UInt64(1) << 53)
    }

    /// One review of card `cardID`, its fuzz seeded by the card and the review.
    public func review(_ card: FSRSCard, _ review: FSRSLoggedReview, cardID: String) -> FSRSCard {
        self.review(card, rating: review.rating, at: review.at, random: { Self.seededRandom(card: cardID, review: review.id) })
    }

    /// `start` (a new card, or where an import left it) after every review of `log`, applied in
    /// ``logOrder(_:_:)`` whatever order `log` is in; each step with the card before and after.
    public func replay(_ log: [FSRSLoggedReview], from start: FSRSCard, cardID: String) -> [FSRSReplayedStep] {
        var card = start
        var steps: [FSRSReplayedStep] = []
        for logged in log.sorted(by: Self.logOrder) {
            let before = card
            card = review(card, logged, cardID: cardID)
            steps.append(FSRSReplayedStep(review: logged, before: before, after: card))
        }
        return steps
    }
}
