import Bus
import Foundation
import StorageAPI

/// The cards an entry can have, each with its own FSRS schedule: word → definition (`forward`, the
/// only one unless a collection turns others on), definition → word (`reverse`), and a cloze from
/// the entry's example (`cloze`: the example with the word blanked, or the `{{c1::…}}` the user wrote).
enum CardKind: String, Codable, Sendable, CaseIterable {
    case forward, reverse, cloze

    /// What a collection has when it says nothing: forward only, as before card kinds.
    static let defaults: [CardKind] = [.forward]

    /// The card's record id: the entry's for `forward` (as before card kinds), else the entry's
    /// with the kind after it.
    func cardID(entry: String) -> String {
        self == .forward ? entry : "\(entry)-\(rawValue)"
    }

    /// The kind a request names (forward when it names none).
    static func named(_ name: String?) throws(BusError) -> CardKind {
        guard let name else { return .forward }
        guard let kind = CardKind(rawValue: name) else {
            throw BusError.invalid("'kind' is forward (word → definition), reverse (definition → word) or cloze (the example with the word blanked); not '\(name)'.",
                                   field: "kind")
        }
        return kind
    }

    /// A collection's kinds as sent: known names, at least one, each once, in the usual order.
    static func list(_ names: [String]?) throws(BusError) -> [CardKind] {
        guard let names, !names.isEmpty else {
            throw BusError.invalid("Say which cards the collection's words get: 'cardKinds', one or more of forward, reverse and cloze.",
                                   field: "cardKinds")
        }
        var kinds = Set<CardKind>()
        for name in names {
            guard let kind = CardKind(rawValue: name) else {
                throw BusError.invalid("'\(name)' is not a card kind: forward (word → definition), reverse (definition → word) or cloze.",
                                       field: "cardKinds")
            }
            kinds.insert(kind)
        }
        return allCases.filter(kinds.contains)
    }
}

/// A cloze card's text: the example with the word (or the parts the user marked) blanked.
struct Cloze: Encodable, Sendable, Equatable {
    /// The sentence with a blank ("Je mange une ____.").
    var question: String
    /// What the blanks hold, in order.
    var answer: String
    /// The sentence whole, markup removed.
    var full: String
    /// The sentence as Anki's Cloze note type writes it ("Je mange une {{c1::pomme}}.").
    var markup: String

    static let blank = "_____"

    /// The cloze of an example: `{{cN::text}}` or `{{cN::text::hint}}` marks are blanked (a hint
    /// shows as "[hint]"); without marks, the word (found ignoring case and accents) is. Nil when
    /// there is no example, or it neither marks a part nor holds the word.
    init?(example: String?, word: String) {
        guard let example = example?.trimmingCharacters(in: .whitespacesAndNewlines), !example.isEmpty else { return nil }
        let marks = Self.marks(in: example)
        if !marks.isEmpty {
            var question = "", full = "", answers: [String] = []
            var cursor = example.startIndex
            for mark in marks {
                question += example[cursor..<mark.range.lowerBound]
                full += example[cursor..<mark.range.lowerBound]
                question += mark.hint.map { "[\($0)]" } ?? Self.blank
                full += mark.text
                answers.append(mark.text)
                cursor = mark.range.upperBound
            }
            question += example[cursor...]
            full += example[cursor...]
            self.init(question: question, answer: answers.joined(separator: ", "), full: full, markup: example)
            return
        }
        let needle = word.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !needle.isEmpty, let range = example.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) else { return nil }
        let found = String(example[range])
        self.init(question: example.replacingCharacters(in: range, with: Self.blank), answer: found, full: example,
                  markup: example.replacingCharacters(in: range, with: "{{c1::\(found)}}"))
    }

    init(question: String, answer: String, full: String, markup: String) {
        self.question = question
        self.answer = answer
        self.full = full
        self.markup = markup
    }

    /// `{{c<digits>::text}}` and `{{c<digits>::text::hint}}`, in order.
    static func marks(in text: String) -> [(range: Range<String.Index>, text: String, hint: String?)] {
        var found: [(range: Range<String.Index>, text: String, hint: String?)] = []
        var search = text.startIndex
        while let open = text.range(of: "{{c", range: search..<text.endIndex) {
            var index = open.upperBound
            while index < text.endIndex, text[index].isASCII, text[index].isNumber { index = text.index(after: index) }
            guard index > open.upperBound, text[index...].hasPrefix("::"),
                  let close = text.range(of: "}}", range: text.index(index, offsetBy: 2)..<text.endIndex) else {
                search = open.upperBound
                continue
            }
            let body = text[text.index(index, offsetBy: 2)..<close.lowerBound]
            let parts = body.components(separatedBy: "::")
            let answer = parts[0]
            if !answer.isEmpty {
                found.append((open.lowerBound..<close.upperBound, answer, parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil))
            }
            search = close.upperBound
        }
        return found
    }
}

extension ReviewService {
    /// The card kinds on in each of the owner's collections (by id).
    func cardKinds(owner: String) async throws(BusError) -> [String: [CardKind]] {
        var kinds: [String: [CardKind]] = [:]
        for record in try await service.collections(owner: owner) {
            kinds[record.id] = (try? record.decode(CollectionData.self))?.cardKinds ?? CardKind.defaults
        }
        return kinds
    }

    /// A collection's kinds when it says none (of those asked for).
    static func defaultKinds(_ only: Set<CardKind>?) -> [CardKind] {
        CardKind.defaults.filter { only?.contains($0) ?? true }
    }

    static func cloze(of entry: Record) -> Cloze? {
        guard let data = try? entry.decode(EntryData.self) else { return nil }
        return Cloze(example: data.example, word: data.word)
    }

    /// Turns a collection's card kinds on or off: the cards of a kind turned off keep their
    /// schedule, and come back where they were if it is turned on again.
    func setCardKinds(owner: String, collection id: String, kinds names: [String]?, expectedVersion: Int64?) async throws(BusError) -> Record {
        guard cardKindsOn else {
            throw BusError(.notFound, "Card kinds are off on this server (review_card_kinds: false): every word is reviewed word → definition.",
                           details: ["reason": "card_kinds_off"])
        }
        let kinds = try CardKind.list(names)
        let existing = try await service.collection(owner: owner, id: id)
        var data = try existing.decode(CollectionData.self)
        data.cardKinds = kinds == CardKind.defaults ? nil : kinds
        return try await store.replace(data, in: C.collections, id: id, owner: owner, expectedVersion: expectedVersion ?? existing.version)
    }
}

/// `PUT …/collections/{id}/cards`: which cards the collection's words get.
struct CardKindsInput: Decodable, Sendable {
    var cardKinds: [String]?
}
