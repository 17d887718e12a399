import Foundation
import GRDB
import StorageAPI
import VocabularyFormats

/// Card kinds in an `.apkg`: a collection with definition → word on exports its words with the
/// note type "Quire Word (and reversed card)" (Anki's Basic (and reversed card): the same fields as
/// "Quire Word", a second template asking the word for the definition, each card with its own
/// schedule); a word with a cloze card is also a note of "Quire Cloze" (Anki's Cloze note type:
/// `Text` holds the example with `{{c1::…}}`, `Back Extra` the definitions, `Word` the word; its
/// GUID is the entry's id with `-cloze`). An import reads each card back to its kind with its
/// schedule, and reads the cloze notes as their word's cloze card (AnkiCardKindsImport.swift).
enum AnkiCardKinds {
    static let reversedModelName = "Quire Word (and reversed card)"
    static let reversedModelID: Int64 = 1_700_000_000_002
    static let clozeModelName = "Quire Cloze"
    static let clozeModelID: Int64 = 1_700_000_000_003
    static let clozeFieldNames = ["Text", "Back Extra", "Word"]

    /// The word's reverse and cloze cards, as its collection has them on.
    struct Extra {
        var reverse = false
        var reverseSchedule: ImportedSchedule?
        /// The cloze text with `{{c1::…}}`.
        var cloze: String?
        var clozeSchedule: ImportedSchedule?
    }

    /// Each collection's kinds, by name (the deck an export writes).
    static func kinds(of collections: [StorageAPI.Record]) -> [String: [CardKind]] {
        var kinds: [String: [CardKind]] = [:]
        for record in collections {
            guard let data = try? record.decode(CollectionData.self) else { continue }
            kinds[data.name] = data.cardKinds ?? CardKind.defaults
        }
        return kinds
    }

    /// What an entry's note carries beyond its word → definition card. `schedules` are the cards'
    /// schedules by card id.
    static func extra(entry: String, data: EntryData, kinds: [CardKind]?, schedules: [String: ImportedSchedule]) -> Extra {
        var extra = Extra()
        let kinds = kinds ?? CardKind.defaults
        if kinds.contains(.reverse) {
            extra.reverse = true
            extra.reverseSchedule = schedules[CardKind.reverse.cardID(entry: entry)]
        }
        if kinds.contains(.cloze), let cloze = Cloze(example: data.example, word: data.word) {
            extra.cloze = cloze.markup
            extra.clozeSchedule = schedules[CardKind.cloze.cardID(entry: entry)]
        }
        return extra
    }

    /// The note types an export declares besides "Quire Word" (`base`, its model).
    static func models(base: [String: Any]) -> [String: Any] {
        var reversed = base
        reversed["id"] = String(reversedModelID)
        reversed["name"] = reversedModelName
        var templates = base["tmpls"] as? [[String: Any]] ?? []
        if var card2 = templates.first {
            card2["name"] = "Card 2"
            card2["ord"] = 1
            card2["qfmt"] = "{{Definition}}"
            card2["afmt"] = "{{FrontSide}}<hr id=answer>{{Word}}{{#Example}}<div class=example><i>{{Example}}</i></div>{{/Example}}"
            templates.append(card2)
        }
        reversed["tmpls"] = templates
        reversed["req"] = [[0, "any", [0]] as [Any], [1, "any", [1]] as [Any]]
        var cloze = base
        cloze["id"] = String(clozeModelID)
        cloze["name"] = clozeModelName
        cloze["type"] = 1
        cloze["flds"] = clozeFieldNames.enumerated().map { index, name in
            ["name": name, "ord": index, "font": "Liberation Sans", "media": [String](), "rtl": false, "size": 20, "sticky": false] as [String: Any]
        }
        if var template = templates.first {
            template["name"] = "Cloze"
            template["ord"] = 0
            template["qfmt"] = "{{cloze:Text}}"
            template["afmt"] = "{{cloze:Text}}<br>{{Back Extra}}"
            cloze["tmpls"] = [template]
        }
        cloze.removeValue(forKey: "req")
        cloze["css"] = (base["css"] as? String ?? "") + "\n.cloze { font-weight: bold; color: blue; }"
        return [String(reversedModelID): reversed, String(clozeModelID): cloze]
    }

    /// The note type of a word's note.
    static func model(of note: AnkiPackage.Note) -> Int64 {
        note.extra.reverse ? reversedModelID : AnkiPackage.modelID
    }

    /// Writes the reverse cards and the cloze notes and cards of `notes` (word note `index` has id
    /// `stamp * 1000 + index`; these take the ids after all of them).
    static func write(_ notes: [AnkiPackage.Note], into db: Database, stamp: Int64, created: Int64, decks: [String: Int64]) throws {
        let count = Int64(notes.count)
        for (index, note) in notes.enumerated() {
            let noteID = stamp * 1000 + Int64(index)
            let deck = decks[note.deck] ?? 1
            if note.extra.reverse {
                try card(db, id: stamp * 1000 + count + Int64(index), note: noteID, deck: deck, ord: 1, stamp: stamp,
                         schedule: note.extra.reverseSchedule, created: created, position: index + 1)
            }
            if let text = note.extra.cloze {
                let clozeID = stamp * 1000 + 2 * count + Int64(index)
                let fields = [AnkiPackage.escape(text).replacingOccurrences(of: "\n", with: "<br>"),
                              note.definitions.map(AnkiPackage.escape).joined(separator: "<br>"), AnkiPackage.escape(note.word)]
                try db.execute(sql: "INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')",
                               arguments: [clozeID, note.guid + "-cloze", clozeModelID, stamp,
                                           note.tags.isEmpty ? "" : " " + note.tags.joined(separator: " ") + " ",
                                           fields.joined(separator: "\u{1F}"), fields[0], AnkiPackage.checksum(fields[0])])
                try card(db, id: clozeID, note: clozeID, deck: deck, ord: 0, stamp: stamp, schedule: note.extra.clozeSchedule, created: created,
                         position: index + 1)
            }
        }
    }

    private static func card(_ db: Database, id: Int64, note: Int64, deck: Int64, ord: Int, stamp: Int64, schedule: ImportedSchedule?,
                              created: Int64, position: Int) throws {
        if let schedule {
            let card = AnkiPackage.ankiCard(schedule, created: created)
            try db.execute(sql: "INSERT INTO cards VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)",
                           arguments: [id, note, deck, ord, stamp, card.type, card.queue, card.due, card.interval, card.factor,
                                       card.reps, card.lapses, card.type == 2 ? 0 : 1001, card.data])
        } else {
            try db.execute(sql: "INSERT INTO cards VALUES (?, ?, ?, ?, ?, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')",
                           arguments: [id, note, deck, ord, stamp, position])
        }
    }
}
