import Bus
import Crypto
import Foundation
import GRDB
import GRDBSQLite
import ImportKit
import StorageAPI
import ZIPFoundation
import VocabularyFormats

/// Anki's `.apkg`: a zip holding `collection.anki2`, an SQLite database (schema 11) whose `notes`
/// hold the fields (separated by U+001F) and tags, `cards` tie notes to decks, and `col` holds the
/// decks and note types as JSON.
///
/// Reading: the first field is the word, the second the definition (HTML made plain text, one
/// definition per line), Anki's tags are tags, the deck of a note's first card is its collection.
/// Writing: one "Quire Word" note type, a deck per collection, and every field of an entry in a
/// note field that its card shows (Word, Definition, Languages, Example, Note, Related,
/// Alternative). A note of that type reads back field by field, exactly: the note's guid is the
/// entry's id, and a relation is `<span data-quire-entry="ID">word</span>`, the word for Anki to
/// show and the id to read back.
enum AnkiPackage {
    /// How large a package's parts may be (the plugin's `import_max_*` settings).
    struct Limits: Sendable, Equatable {
        /// Largest note field (and a note's tags), in bytes: a larger one is a problem of that
        /// note, read past without being held.
        var maxFieldBytes = 64 << 10
        /// Largest `collection.anki2` unpacked, on disk (the inflating stops there: a zip bomb
        /// costs this much disk at most, and no memory).
        var maxCollectionBytes = 512 << 20
    }

    // MARK: Reading

    /// The notes of a package's collection, read a page at a time from its database (which stays
    /// open until the source goes).
    struct Source: ImportSource {
        let reader: NoteReader
        /// The package's sounds (AnkiMedia.swift), read when a note names one.
        var media: AnkiMedia.Package?
        var total: Int? { reader.total }

        mutating func next() -> Result<ImportRow, ImportRowError>? { reader.next() }
    }

    static func read(file: URL, scratch: URL, limits: Limits = Limits()) throws(BusError) -> Source {
        let archive: Archive
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let head = try handle.read(upToCount: 4) ?? Data()
            guard head == Data([0x50, 0x4B, 0x03, 0x04]) else {
                throw BusError(.unsupportedMedia, "This file is not an Anki package (.apkg files are zip archives). If it is a CSV, import it with format 'csv'.")
            }
            archive = try Archive(url: file, accessMode: .read)
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError(.unsupportedMedia, "This file is not a readable zip archive, so not an Anki package. Export the deck again from Anki (\"Anki Deck Package\").")
        }
        if archive["collection.anki21b"] != nil {
            throw BusError(.unsupportedMedia, "This package uses Anki's newer compressed format (collection.anki21b). In Anki, export it again with 'Support older Anki versions' ticked.")
        }
        guard let entry = archive["collection.anki21"] ?? archive["collection.anki2"] else {
            throw BusError(.unsupportedMedia, "This zip holds no collection.anki2, so it is not an Anki package.")
        }
        let media = try AnkiMedia.read(archive, file: file)
        let database = scratch.appendingPathComponent("collection.anki2")
        do {
            try CappedZip.extract(entry, from: archive, to: database, limit: limits.maxCollectionBytes)
        } catch is CappedZip.TooLarge {
            throw BusError(.tooLarge, "The Anki collection in this package unpacks to more than \(readableSize(limits.maxCollectionBytes)), "
                           + "the most an import reads; export the deck in smaller parts (a deck at a time).",
                           details: ["maxBytes": String(limits.maxCollectionBytes)])
        } catch {
            throw BusError(.unsupportedMedia, "The Anki package is damaged: its collection cannot be unpacked. Export the deck again from Anki.")
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: database.path, configuration: configuration)
            do {
                let reader = try queue.read { db in try NoteReader(db, queue: queue, maxFieldBytes: limits.maxFieldBytes) }
                return Source(reader: reader, media: media)
            } catch {
                try? queue.close()
                throw error
            }
        } catch let error as BusError {
            throw error
        } catch {
            // SQLite's and Foundation's own words stay out of the answer: they describe our reader, not the file.
            throw BusError(.unsupportedMedia, "The package's collection.anki2 is not an Anki collection this reader understands; "
                           + "export the deck again from Anki (File › Export, \"Anki Deck Package\").")
        }
    }

    /// A value of the user's database read with its size checked first, through SQLite's
    /// incremental blob reading: a 100 MB field is measured, never loaded.
    enum Capped {
        case value([UInt8])
        case tooLarge(Int)
        /// Not text or a blob (NULL, a number): read it in SQL, it is small.
        case other
    }

    /// The value of `column` in row `rowid` of `table`, when at most `cap` bytes.
    static func capped(_ db: Database, _ table: String, _ column: String, rowid: Int64, cap: Int) -> Capped {
        guard let blob = BlobReader(db, table, column, rowid: rowid) else { return .other }
        defer { blob.close() }
        guard blob.size <= cap else { return .tooLarge(blob.size) }
        return blob.read(0, blob.size).map(Capped.value) ?? .other
    }

    /// A note's fields (separated by U+001F) with each one's size checked as it is read, a chunk
    /// at a time: a field over `cap` is measured and left out. Only the first `used` fields are
    /// kept and checked (the others are counted).
    static func fields(_ db: Database, rowid: Int64, cap: Int, used: Int) -> (fields: [String], oversized: [(index: Int, bytes: Int)])? {
        guard let blob = BlobReader(db, "notes", "flds", rowid: rowid) else { return nil }
        defer { blob.close() }
        var fields: [String] = []
        var oversized: [(index: Int, bytes: Int)] = []
        var field: [UInt8] = []
        var fieldBytes = 0
        func end() {
            if fieldBytes > cap, fields.count < used { oversized.append((fields.count, fieldBytes)) }
            fields.append(fieldBytes > cap || fields.count >= used ? "" : String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldBytes = 0
        }
        let chunk = 64 << 10
        var offset = 0
        while offset < blob.size {
            guard let bytes = blob.read(offset, min(chunk, blob.size - offset)) else { return nil }
            offset += bytes.count
            for byte in bytes {
                if byte == 0x1F {
                    end()
                } else {
                    fieldBytes += 1
                    if fieldBytes <= cap, fields.count < used { field.append(byte) }
                }
            }
        }
        end()
        return (fields, oversized)
    }

    /// The notes of a collection, a page at a time, each with its deck and its card's schedule.
    final class NoteReader {
        static let pageSize = 100
        let queue: DatabaseQueue
        let total: Int?
        let maxFieldBytes: Int
        private var deckNames: [Int64: String] = [:]
        private var quireModels: Set<Int64> = []
        private var noteDecks: [Int64: Int64] = [:]
        private var schedules: [Int64: ImportedSchedule] = [:]
        /// Reverse and cloze cards, and the cloze note types (AnkiCardKindsImport.swift).
        private var found = AnkiCardKinds.Found()
        private let guidColumn: Bool
        private let midColumn: Bool
        private var lastRowID = Int64.min
        private var number = 0
        private var pending: [Result<ImportRow, ImportRowError>] = []
        private var pendingIndex = 0
        private var ended = false

        init(_ db: Database, queue: DatabaseQueue, maxFieldBytes: Int) throws {
            self.queue = queue
            self.maxFieldBytes = maxFieldBytes
            guard try db.tableExists("notes"), try db.tableExists("col"), try db.tableExists("cards") else {
                throw BusError(.unsupportedMedia, "The package's database has no Anki notes table; it is not an Anki collection.")
            }
            /// The col table's JSON (decks, note types): large ones are read past (a deck-less import).
            func json(_ column: String) throws -> [String: Any]? {
                guard let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM col WHERE \(column) IS NOT NULL LIMIT 1"),
                      case .value(let bytes) = capped(db, "col", column, rowid: rowid, cap: 16 << 20) else { return nil }
                return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
            }
            // The package is the user's file: every value is typed in SQL (CAST, typeof), because GRDB's
            // row subscripts trap on a NULL or a value of another type.
            if let decks = try json("decks") {  // decks that are not JSON: rows import without a deck
                for (key, value) in decks {
                    if let id = Int64(key), let deck = value as? [String: Any], let name = deck["name"] as? String { deckNames[id] = name }
                }
            }
            // Note types by id: "Quire Word" (ours) is read field by field, any other by position.
            // A file from elsewhere may lack any column Anki writes: each one read is checked first.
            let columns = Set(try db.columns(in: "col").map(\.name) + db.columns(in: "notes").map { "notes." + $0.name })
            if columns.contains("models"), let models = try json("models") {
                found.read(models: models)
                for (key, value) in models {
                    guard let id = Int64(key), let model = value as? [String: Any], [modelName, AnkiCardKinds.reversedModelName].contains(model["name"] as? String ?? ""),
                          let fields = model["flds"] as? [[String: Any]], fields.compactMap({ $0["name"] as? String }) == fieldNames else { continue }
                    quireModels.insert(id)
                }
            }
            guidColumn = columns.contains("notes.guid")
            midColumn = columns.contains("notes.mid")
            // A file from elsewhere may lack `crt` (then review days cannot be placed: cards import as new).
            let created = columns.contains("crt")
                ? try Int64.fetchOne(db, sql: "SELECT CAST(crt AS INTEGER) FROM col WHERE typeof(crt) = 'integer' LIMIT 1") : nil
            let cardColumns = Set(try db.columns(in: "cards").map(\.name))
            let scheduled = ["type", "queue", "due", "ivl", "factor", "reps", "lapses"].allSatisfy(cardColumns.contains)
            let hasData = cardColumns.contains("data")
            for row in try Row.fetchAll(db, sql: scheduled ? """
                SELECT nid, did, COALESCE(CAST(type AS INTEGER), 0), COALESCE(CAST(queue AS INTEGER), 0), COALESCE(CAST(due AS INTEGER), 0),
                       COALESCE(CAST(ivl AS INTEGER), 0), COALESCE(CAST(factor AS INTEGER), 0), COALESCE(CAST(reps AS INTEGER), 0),
                       COALESCE(CAST(lapses AS INTEGER), 0), rowid, COALESCE(CAST(ord AS INTEGER), 0)
                FROM cards WHERE typeof(nid) = 'integer' AND typeof(did) = 'integer' ORDER BY nid, ord
                """ : """
                SELECT nid, did, COALESCE(CAST(ord AS INTEGER), 0) FROM cards WHERE typeof(nid) = 'integer' AND typeof(did) = 'integer' ORDER BY nid, ord
                """) {
                // A note's first card (its word → definition), and its card 2 (ord 1: definition → word).
                let nid: Int64 = row[0]
                let first = noteDecks[nid] == nil
                let ord: Int = scheduled ? row[10] : row[2]
                guard first || ord == 1 else { continue }
                if first { noteDecks[nid] = row[1] } else { found.reverse[nid] = ImportedCard(kind: CardKind.reverse.rawValue, schedule: nil) }
                if scheduled, let created {
                    // A card's data is a little JSON (FSRS's memory state); a large one is left out.
                    var data = ""
                    if hasData, case .value(let bytes) = capped(db, "cards", "data", rowid: row[9], cap: 64 << 10) {
                        data = String(decoding: bytes, as: UTF8.self)
                    }
                    let read = schedule(AnkiCard(type: row[2], queue: row[3], due: row[4], interval: row[5], factor: row[6], reps: row[7],
                                                 lapses: row[8], data: data), created: created)
                    if first { schedules[nid] = read } else { found.reverse[nid]?.schedule = read }
                }
            }
            // Each Quire Cloze note's card, by the note's guid (its word note's with `-cloze`).
            if midColumn, guidColumn {
                for row in try Row.fetchAll(db, sql: """
                    SELECT rowid, id FROM notes WHERE typeof(id) = 'integer' AND mid IN (\(found.skippedModels))
                    """) {
                    let nid: Int64 = row[1]
                    guard noteDecks[nid] != nil, case .value(let bytes) = capped(db, "notes", "guid", rowid: row[0], cap: 1024) else { continue }
                    found.cloze[String(decoding: bytes, as: UTF8.self)] = ImportedCard(kind: CardKind.cloze.rawValue, schedule: schedules[nid])
                }
            }
            total = try Int.fetchOne(db, sql: "SELECT count(*) FROM notes\(midColumn ? " WHERE mid IS NULL OR mid NOT IN (\(found.skippedModels))" : "")")
        }

        deinit { try? queue.close() }

        func next() -> Result<ImportRow, ImportRowError>? {
            if pendingIndex >= pending.count {
                guard !ended else { return nil }
                pending = []
                pendingIndex = 0
                fill()
                guard !pending.isEmpty else { return nil }
            }
            defer { pendingIndex += 1 }
            return pending[pendingIndex]
        }

        private func fill() {
            do {
                try queue.read { db in
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT rowid, COALESCE(CAST(id AS INTEGER), 0), \(midColumn ? "COALESCE(CAST(mid AS INTEGER), 0)" : "0")
                        FROM notes WHERE rowid > ? \(midColumn ? "AND (mid IS NULL OR mid NOT IN (\(found.skippedModels)))" : "") ORDER BY rowid LIMIT \(Self.pageSize)
                        """, arguments: [lastRowID])
                    if rows.count < Self.pageSize { ended = true }
                    for row in rows {
                        lastRowID = row[0]
                        number += 1
                        pending.append(try note(db, rowid: row[0], id: row[1], model: row[2]))
                    }
                }
            } catch {
                ended = true
                pending.append(.failure(ImportRowError(row: number + 1, message: "The notes from here on cannot be read from the package; "
                                                       + "export the deck again from Anki and import it again.")))
            }
        }

        /// A text column of a note, at most a field's cap; nil (with the problem) past it.
        enum Text { case success(String), failure(Int) }

        private func text(_ db: Database, _ column: String, rowid: Int64, cap: Int) throws -> Text {
            switch capped(db, "notes", column, rowid: rowid, cap: cap) {
            case .value(let bytes): return .success(String(decoding: bytes, as: UTF8.self))
            case .tooLarge(let size): return .failure(size)
            case .other: return .success(try String.fetchOne(db, sql: "SELECT COALESCE(CAST(\(column) AS TEXT), '') FROM notes WHERE rowid = ?",
                                                             arguments: [rowid]) ?? "")
            }
        }

        private func note(_ db: Database, rowid: Int64, id: Int64, model: Int64) throws -> Result<ImportRow, ImportRowError> {
            let quire = quireModels.contains(model)
            let cap = maxFieldBytes
            func tooLarge(_ what: String, _ size: Int) -> Result<ImportRow, ImportRowError> {
                .failure(ImportRowError(row: number, message: "\(what) is \(readableSize(size)); a field may be at most \(readableSize(cap)). "
                                        + "Shorten it in Anki and export the deck again."))
            }
            let tags: String
            switch try text(db, "tags", rowid: rowid, cap: cap) {
            case .success(let value): tags = value
            case .failure(let size): return tooLarge("The note's tags are", size)
            }
            var guid = ""
            if guidColumn {
                switch try text(db, "guid", rowid: rowid, cap: 1024) {
                case .success(let value): guid = value
                case .failure: guid = ""  // not one Quire wrote: the note imports as new
                }
            }
            let raw: [String]
            if let read = fields(db, rowid: rowid, cap: cap, used: quire ? fieldNames.count : 2) {
                if let worst = read.oversized.max(by: { $0.bytes < $1.bytes }) {
                    let name = quire ? "The " + fieldNames[worst.index].lowercased()
                                     : worst.index == 0 ? "The first field (the word)" : "The second field (the definition)"
                    return tooLarge(name, worst.bytes)
                }
                raw = read.fields
            } else {
                // flds is not text (NULL, a number): small.
                raw = (try String.fetchOne(db, sql: "SELECT COALESCE(CAST(flds AS TEXT), '') FROM notes WHERE rowid = ?", arguments: [rowid]) ?? "")
                    .split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            }
            if quire, raw.count == fieldNames.count {
                var imported = ImportRow(
                    number: number, word: AnkiMedia.strippingSounds(exactText(raw[0])), definitions: exactText(raw[1]).split(separator: "\n").map(String.init),
                    tags: tags.split(whereSeparator: \.isWhitespace).map(String.init),
                    collection: noteDecks[id].flatMap { deckNames[$0] })
                imported.languages = exactText(raw[2]).split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
                imported.example = Optional(exactText(raw[3])).flatMap { $0.isEmpty ? nil : $0 }
                imported.note = Optional(exactText(raw[4])).flatMap { $0.isEmpty ? nil : $0 }
                imported.related = entryLinks(raw[5])
                imported.alternative = entryLinks(raw[6])
                imported.key = guid.isEmpty ? nil : guid
                imported.schedule = schedules[id]
                imported.cards = found.cards(note: id, guid: guid, model: model)
                imported.sound = AnkiMedia.sounds(in: raw[0]).first
                return .success(imported)
            }
            if found.ankiClozeModels.contains(model),
               var imported = AnkiCardKinds.clozeRow(number: number, fields: raw, tags: tags.split(whereSeparator: \.isWhitespace).map(String.init),
                                                     collection: noteDecks[id].flatMap { deckNames[$0] }, schedule: schedules[id]) {
                imported.sound = raw.lazy.flatMap(AnkiMedia.sounds(in:)).first
                return .success(imported)
            }
            guard raw.count >= 2 else {
                return .failure(ImportRowError(row: number, message: "The note has one field; a word needs a second field for its definition."))
            }
            let fields = raw.prefix(2).map(plainText)
            var imported = ImportRow(
                number: number, word: AnkiMedia.strippingSounds(fields[0]), definitions: fields[1].split(whereSeparator: \.isNewline).map(String.init),
                tags: tags.split(whereSeparator: \.isWhitespace).map(String.init), collection: noteDecks[id].flatMap { deckNames[$0] })
            imported.schedule = schedules[id]
            imported.cards = found.cards(note: id, guid: guid, model: model)
            imported.sound = raw.lazy.flatMap(AnkiMedia.sounds(in:)).first
            return .success(imported)
        }
    }

    /// SQLite's incremental reading of one value (text or blob): its size without reading it,
    /// then any part of it.
    final class BlobReader {
        private var handle: OpaquePointer?
        let size: Int

        init?(_ db: Database, _ table: String, _ column: String, rowid: Int64) {
            var blob: OpaquePointer?
            guard sqlite3_blob_open(db.sqliteConnection, "main", table, column, rowid, 0, &blob) == SQLITE_OK, let blob else {
                if let blob { sqlite3_blob_close(blob) }
                return nil
            }
            handle = blob
            size = Int(sqlite3_blob_bytes(blob))
        }

        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard let handle, count >= 0 else { return nil }
            if count == 0 { return [] }
            var bytes = [UInt8](repeating: 0, count: count)
            let status = bytes.withUnsafeMutableBytes { buffer in
                sqlite3_blob_read(handle, buffer.baseAddress, Int32(count), Int32(offset))
            }
            return status == SQLITE_OK ? bytes : nil
        }

        func close() {
            if let handle { sqlite3_blob_close(handle) }
            handle = nil
        }

        deinit { close() }
    }

    /// A field Quire wrote: `<br>` is a new line, entities are decoded, nothing else changes.
    static func exactText(_ html: String) -> String {
        var text = ""
        var rest = Substring(html)
        while let next = rest.firstIndex(where: { $0 == "<" || $0 == "&" }) {
            text += rest[..<next]
            rest = rest[next...]
            if rest.hasPrefix("<br>") {
                text += "\n"
                rest = rest.dropFirst(4)
            } else if rest.first == "&", let semicolon = rest.prefix(10).firstIndex(of: ";"),
                      let decoded = decode(String(rest[rest.index(after: rest.startIndex)..<semicolon])) {
                text += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                text.append(rest.removeFirst())
            }
        }
        return text + rest
    }

    /// The entry ids of a Related or Alternative field: `<span data-quire-entry="ID">word</span>`, …
    static func entryLinks(_ html: String) -> [String] {
        html.components(separatedBy: "data-quire-entry=\"").dropFirst().compactMap { part in
            part.split(separator: "\"", maxSplits: 1).first.map(String.init)
        }.filter { StorageNames.isValidID($0) }
    }

    /// A field's HTML as plain text: line breaks and block ends become new lines, tags go, entities
    /// are decoded.
    static func plainText(_ html: String) -> String {
        var text = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            if character == "<", let close = html[index...].firstIndex(of: ">") {
                let tag = html[html.index(after: index)..<close].lowercased()
                if tag.hasPrefix("br") || tag.hasPrefix("/div") || tag.hasPrefix("/p") || tag.hasPrefix("/li") { text += "\n" }
                index = html.index(after: close)
            } else if character == "&", let semicolon = html[index...].prefix(10).firstIndex(of: ";") {
                let entity = String(html[html.index(after: index)..<semicolon])
                if let decoded = decode(entity) {
                    text += decoded
                    index = html.index(after: semicolon)
                } else {
                    text.append(character)
                    index = html.index(after: index)
                }
            } else {
                text.append(character)
                index = html.index(after: index)
            }
        }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmed }
            .filter { !$0.isEmpty }.joined(separator: "\n")
    }

    private static func decode(_ entity: String) -> String? {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        default:
            if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let value = UInt32(entity.dropFirst(2), radix: 16) {
                return Unicode.Scalar(value).map { String($0) }
            }
            if entity.hasPrefix("#"), let value = UInt32(entity.dropFirst()) { return Unicode.Scalar(value).map { String($0) } }
            return nil
        }
    }

    // MARK: Writing

    struct Note {
        var guid: String
        var word: String
        var definitions: [String]
        var tags: [String]
        var deck: String
        var languages: [String] = []
        var example: String?
        var note: String?
        /// (id, word) of related and alternative entries.
        var related: [(id: String, word: String)] = []
        var alternative: [(id: String, word: String)] = []
        /// Its card's place in the review schedule; nil for a word never reviewed.
        var schedule: ImportedSchedule?
        /// Its reverse and cloze cards (AnkiCardKinds.swift).
        var extra = AnkiCardKinds.Extra()
        /// Its recorded pronunciation's file in the package's media (AnkiMedia.swift).
        var sound: String?
        /// Its cards' reviews, for Anki's review log (AnkiCardKindsImport.swift).
        var reviews: [AnkiCardKinds.LoggedReview] = []

        /// The note's fields in ``fieldNames`` order, as HTML.
        var fields: [String] {
            func text(_ value: String?) -> String { escape(value ?? "").replacingOccurrences(of: "\n", with: "<br>") }
            func links(_ entries: [(id: String, word: String)]) -> String {
                entries.map { "<span data-quire-entry=\"\(escape($0.id))\">\(escape($0.word))</span>" }.joined(separator: ", ")
            }
            return [text(word) + (sound.map { "[sound:\($0)]" } ?? ""), definitions.map(escape).joined(separator: "<br>"), escape(languages.joined(separator: " ")),
                    text(example), text(note), links(related), links(alternative)]
        }
    }

    static let modelName = "Quire Word"
    static let fieldNames = ["Word", "Definition", "Languages", "Example", "Note", "Related", "Alternative"]

    static let modelID: Int64 = 1_700_000_000_001

    /// The bytes of a package holding `notes`, one deck per distinct `deck`.
    static func write(_ notes: [Note], media: [(name: String, data: Data)] = [], scratch: URL, now: Date) throws(BusError) -> Data {
        let database = scratch.appendingPathComponent("collection.anki2")
        let stamp = Int64(now.timeIntervalSince1970)
        // Review cards are due in days since the collection's creation: a day start ten years back
        // keeps every due day of an export positive.
        let created = stamp.floorDivided(by: 86_400) * 86_400 - 3_650 * 86_400
        do {
            let queue = try DatabaseQueue(path: database.path)
            var deckIDs: [String: Int64] = [:]
            for (index, name) in Set(notes.map(\.deck)).sorted().enumerated() { deckIDs[name] = 1_700_000_000_100 + Int64(index) }
            try queue.write { db in
                try db.execute(sql: schema)
                var decks: [String: Any] = ["1": deck(id: 1, name: "Default", stamp: stamp)]
                for (name, id) in deckIDs { decks[String(id)] = deck(id: id, name: name, stamp: stamp) }
                try db.execute(sql: "INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, '{}')",
                               arguments: [created, stamp * 1000, stamp * 1000, try json(configuration),
                                           try json(AnkiCardKinds.models(base: model(stamp: stamp, deck: deckIDs.values.min() ?? 1))
                                               .merging([String(modelID): model(stamp: stamp, deck: deckIDs.values.min() ?? 1)]) { a, _ in a }),
                                           try json(decks), try json(["1": deckConfiguration])])
                for (index, note) in notes.enumerated() {
                    let id = stamp * 1000 + Int64(index)
                    try db.execute(sql: "INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, '')",
                                   arguments: [id, note.guid, AnkiCardKinds.model(of: note), stamp, note.tags.isEmpty ? "" : " " + note.tags.joined(separator: " ") + " ",
                                               note.fields.joined(separator: "\u{1F}"), note.word, checksum(note.word)])
                    if let schedule = note.schedule {
                        let card = ankiCard(schedule, created: created)
                        try db.execute(sql: "INSERT INTO cards VALUES (?, ?, ?, 0, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)",
                                       arguments: [id, id, deckIDs[note.deck] ?? 1, stamp, card.type, card.queue, card.due, card.interval, card.factor,
                                                   card.reps, card.lapses, card.type == 2 ? 0 : 1001, card.data])
                    } else {
                        try db.execute(sql: "INSERT INTO cards VALUES (?, ?, ?, 0, ?, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')",
                                       arguments: [id, id, deckIDs[note.deck] ?? 1, stamp, index + 1])
                    }
                }
                try AnkiCardKinds.write(notes, into: db, stamp: stamp, created: created, decks: deckIDs)
                try AnkiCardKinds.writeReviews(notes, into: db, stamp: stamp)
            }
            try queue.close()
            let archive = try Archive(accessMode: .create)
            let collection = try Data(contentsOf: database)
            try archive.addEntry(with: "collection.anki2", type: .file, uncompressedSize: Int64(collection.count),
                                 compressionMethod: .deflate) { position, size in
                collection.subdata(in: Int(position)..<Int(position) + size)
            }
            try AnkiMedia.add(media, to: archive)
            guard let bytes = archive.data else { throw BusError(.internal, "The package was not written.") }
            return bytes
        } catch let error as BusError {
            throw error
        } catch {
            throw BusError(.internal, "Writing the Anki package failed: \(error)")
        }
    }

    /// Anki's note checksum: the first 8 hex digits of the SHA-1 of the first field, as a number.
    static func checksum(_ field: String) -> Int64 {
        let digest = Insecure.SHA1.hash(data: Data(field.utf8))
        return digest.prefix(4).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    private static func deck(id: Int64, name: String, stamp: Int64) -> [String: Any] {
        ["id": id, "name": name, "mod": stamp, "usn": -1, "collapsed": false, "conf": 1, "desc": "", "dyn": 0,
         "extendNew": 10, "extendRev": 50, "lrnToday": [0, 0], "newToday": [0, 0], "revToday": [0, 0], "timeToday": [0, 0]]
    }

    private static func model(stamp: Int64, deck: Int64) -> [String: Any] {
        func field(_ name: String, _ ord: Int) -> [String: Any] {
            ["name": name, "ord": ord, "font": "Liberation Sans", "media": [String](), "rtl": false, "size": 20, "sticky": false]
        }
        return [
            "id": String(modelID), "name": modelName, "type": 0, "mod": stamp, "usn": -1, "sortf": 0, "did": deck,
            "flds": fieldNames.enumerated().map { field($1, $0) },
            "tmpls": [[
                "name": "Card 1", "ord": 0, "qfmt": "{{Word}}",
                "afmt": "{{FrontSide}}<hr id=answer>{{Definition}}"
                    + "{{#Languages}}<div class=languages>{{Languages}}</div>{{/Languages}}"
                    + "{{#Example}}<div class=example><i>{{Example}}</i></div>{{/Example}}"
                    + "{{#Note}}<div class=note>{{Note}}</div>{{/Note}}"
                    + "{{#Related}}<div class=related>Related: {{Related}}</div>{{/Related}}"
                    + "{{#Alternative}}<div class=alternative>Also: {{Alternative}}</div>{{/Alternative}}",
                "bqfmt": "", "bafmt": "", "bfont": "", "bsize": 0, "did": NSNull(),
            ] as [String: Any]],
            "req": [[0, "any", [0]] as [Any]],
            "css": ".card { font-family: arial; font-size: 20px; text-align: center; }\n"
                + ".languages, .note, .related, .alternative { font-size: 15px; color: #555; margin-top: 8px; }\n.example { margin-top: 8px; }",
            "latexPre": "\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n",
            "latexPost": "\\end{document}", "latexsvg": false, "tags": [String](), "vers": [Int](),
        ]
    }

    private static var configuration: [String: Any] { [
        "activeDecks": [1], "addToCur": true, "collapseTime": 1200, "curDeck": 1, "curModel": String(modelID),
        "dueCounts": true, "estTimes": true, "newBury": true, "newSpread": 0, "nextPos": 1, "sortBackwards": false,
        "sortType": "noteFld", "timeLim": 0,
    ] }

    private static var deckConfiguration: [String: Any] { [
        "id": 1, "name": "Default", "mod": 0, "usn": 0, "autoplay": true, "maxTaken": 60, "replayq": true, "timer": 0,
        "lapse": ["delays": [10], "leechAction": 0, "leechFails": 8, "minInt": 1, "mult": 0] as [String: Any],
        "new": ["bury": true, "delays": [1, 10], "initialFactor": 2500, "ints": [1, 4, 7], "order": 1, "perDay": 20,
                "separate": true] as [String: Any],
        "rev": ["bury": true, "ease4": 1.3, "fuzz": 0.05, "ivlFct": 1, "maxIvl": 36500, "minSpace": 1, "perDay": 100] as [String: Any],
    ] }

    private static let schema = """
        CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null,
            ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null,
            models text not null, decks text not null, dconf text not null, tags text not null);
        CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null,
            usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null,
            flags integer not null, data text not null);
        CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null,
            mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null,
            ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left integer not null,
            odue integer not null, odid integer not null, flags integer not null, data text not null);
        CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null,
            ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
        CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
        CREATE INDEX ix_notes_usn on notes (usn);
        CREATE INDEX ix_cards_usn on cards (usn);
        CREATE INDEX ix_revlog_usn on revlog (usn);
        CREATE INDEX ix_cards_nid on cards (nid);
        CREATE INDEX ix_cards_sched on cards (did, queue, due);
        CREATE INDEX ix_revlog_cid on revlog (cid);
        CREATE INDEX ix_notes_csum on notes (csum);
        """
}
