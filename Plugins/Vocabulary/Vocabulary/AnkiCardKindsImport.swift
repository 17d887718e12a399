import Bus
import Foundation
import StorageAPI
import VocabularyFormats

/// Card kinds read back from an `.apkg` (AnkiCardKinds.swift writes them): each Anki card goes to
/// the card kind it is, with its own place in the schedule.
/// - A note's card 1 (ord 0) is word → definition, its card 2 (ord 1) definition → word: Quire's
///   "Quire Word (and reversed card)" and Anki's own Basic (and reversed card), or any note type of
///   Anki's standard kind with a second card.
/// - A "Quire Cloze" note's card is the cloze of the word note whose guid is its own without `-cloze`.
/// - A note of one of Anki's own cloze note types (Anki's Cloze) is a word of its own: the word is
///   what its `{{c1::…}}` hides, the example its Text (the marks kept), the definition its Back Extra
///   (the sentence when that is empty), and its card 1 (c1) is the word's cloze card; c2 and later
///   are left out, as Quire blanks every mark of a sentence at once.
/// The collections an import makes get the kinds their notes have on; a collection that was there
/// keeps its kinds (the cards are kept, and come back in place if the kind is turned on).
extension AnkiCardKinds {
    /// What a package holds beyond its notes' first cards, read as it is opened.
    struct Found {
        /// Card 2 (ord 1) of a note, by note id.
        var reverse: [Int64: ImportedCard] = [:]
        /// The card of each Quire Cloze note, by its guid.
        var cloze: [String: ImportedCard] = [:]
        /// Quire's cloze note types (their notes repeat a word note) and Anki's own (their notes are words).
        var quireClozeModels: Set<Int64> = [AnkiCardKinds.clozeModelID]
        var ankiClozeModels: Set<Int64> = []

        /// Reads which note types are cloze types from the collection's `models` JSON.
        mutating func read(models: [String: Any]) {
            for (key, value) in models {
                guard let id = Int64(key), let model = value as? [String: Any], (model["type"] as? NSNumber)?.intValue == 1 else { continue }
                let fields = (model["flds"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                if model["name"] as? String == clozeModelName && fields == clozeFieldNames {
                    quireClozeModels.insert(id)
                } else {
                    ankiClozeModels.insert(id)
                }
            }
        }

        /// The note types whose notes are not read as words (SQL, numbers only).
        var skippedModels: String { quireClozeModels.sorted().map(String.init).joined(separator: ", ") }

        /// The reverse and cloze cards of the word note `id` with `guid` and note type `model`.
        func cards(note id: Int64, guid: String, model: Int64) -> [ImportedCard] {
            var cards: [ImportedCard] = []
            if !ankiClozeModels.contains(model), let reverse = reverse[id] { cards.append(reverse) }
            if !guid.isEmpty, let cloze = cloze[guid + "-cloze"] { cards.append(cloze) }
            return cards
        }
    }

    /// The word of a note of Anki's own Cloze type (`fields` its Text and Back Extra as HTML); nil
    /// when its Text marks no `{{c1::…}}` (then it reads as any other note, by position).
    static func clozeRow(number: Int, fields: [String], tags: [String], collection: String?, schedule: ImportedSchedule?) -> ImportRow? {
        let text = AnkiMedia.strippingSounds(AnkiPackage.plainText(fields.first ?? ""))
        guard let cloze = Cloze(example: text, word: ""), !cloze.answer.isEmpty else { return nil }
        let extra = fields.count > 1 ? AnkiPackage.plainText(fields[1]).split(whereSeparator: \.isNewline).map(String.init) : []
        var row = ImportRow(number: number, word: cloze.answer, definitions: extra.isEmpty ? [cloze.full] : extra, tags: tags, collection: collection)
        row.example = text
        row.cards = [ImportedCard(kind: CardKind.cloze.rawValue, schedule: schedule)]
        return row
    }
}

extension ImportExport {
    /// The writes of an imported entry's reverse and cloze cards that have a place in the schedule,
    /// and the kinds the row has (scheduled or new).
    static func kindCards(_ row: ImportRow, entry: String, collection: String, owner: String, job: String) throws(BusError) -> (writes: [WriteOperation], kinds: Set<CardKind>) {
        var writes: [WriteOperation] = []
        var kinds = Set<CardKind>()
        for card in row.cards {
            guard let kind = CardKind(rawValue: card.kind), kind != .forward else { continue }
            kinds.insert(kind)
            guard let schedule = card.schedule else { continue }
            var data = CardData(entry: entry, collection: collection, schedule: schedule, importJob: job)
            data.kind = kind
            writes.append(.insert(collection: VocabularyCollections.cards, id: kind.cardID(entry: entry), owner: owner, data: try JSONDocument(encoding: data)))
        }
        return (writes, kinds)
    }

    /// Turns on, in each collection this import made, the kinds its notes have.
    func turnOn(_ kinds: [String: Set<CardKind>], created: Set<String>, owner: String) async throws(BusError) {
        for (id, found) in kinds.sorted(by: { $0.key < $1.key }) where created.contains(id) && !found.isEmpty {
            let record = try await service.collection(owner: owner, id: id)
            var data = try record.decode(CollectionData.self)
            data.cardKinds = CardKind.allCases.filter { $0 == .forward || found.contains($0) }
            _ = try await store.replace(data, in: VocabularyCollections.collections, id: id, owner: owner, expectedVersion: record.version)
        }
    }
}
