public import Bus
public import Foundation

/// One row of a file being imported, before it is checked.
public struct ImportRow: Sendable {
    /// 1-based position in the file (a CSV's record, counting its header row, as a spreadsheet shows it).
    public var number: Int
    public var word: String
    public var definitions: [String]
    public var tags: [String]
    public var collection: String?
    /// BCP 47 codes.
    public var languages: [String] = []
    public var note: String?
    public var example: String?
    /// The row's name in the file (an exported entry's id, an Anki note's guid): what `related` and
    /// `alternative` of other rows point to.
    public var key: String?
    public var related: [String] = []
    public var alternative: [String] = []
    /// Where the row's card is in its review schedule, when the file keeps one (an Anki deck that
    /// was studied); nil for a word never reviewed.
    public var schedule: ImportedSchedule?

    public init(number: Int, word: String, definitions: [String], tags: [String], collection: String?) {
        self.number = number
        self.word = word
        self.definitions = definitions
        self.tags = tags
        self.collection = collection
    }
}

/// A card's review schedule as a file keeps it.
public struct ImportedSchedule: Sendable, Equatable {
    /// learning, review or relearning.
    public var state: String
    public var stability: Double?
    public var difficulty: Double?
    public var due: Date
    public var lastReview: Date?
    public var reps: Int
    public var lapses: Int

    public init(state: String, stability: Double?, difficulty: Double?, due: Date, lastReview: Date?, reps: Int, lapses: Int) {
        self.state = state
        self.stability = stability
        self.difficulty = difficulty
        self.due = due
        self.lastReview = lastReview
        self.reps = reps
        self.lapses = lapses
    }
}

/// Where import rows come from.
public protocol ImportSource {
    /// Rows in the file, when known.
    var total: Int? { get }
    /// The next row, or a row-level error, or nil at the end.
    mutating func next() -> Result<ImportRow, ImportRowError>?
}

public struct ImportRowError: Error, Sendable {
    public var row: Int
    public var message: String

    public init(row: Int, message: String) {
        self.row = row
        self.message = message
    }
}

/// CSV as spreadsheets write it (RFC 4180: commas, double quotes doubled inside quoted fields,
/// CRLF or LF), UTF-8 with or without a byte-order mark.
///
/// Columns: `word, definition, tags, collection` — named by a header row (any order, any case,
/// also `definitions`/`deck`), or in that order without one. Several definitions are separate lines
/// of the definition cell; tags are separated by spaces, commas or semicolons. A header may also
/// name `id`, `languages` (codes separated by spaces or commas), `note`, `example`, `related` and
/// `alternative` (the ids of other rows, separated by spaces): what an export writes, so that it
/// reads back whole.
public struct CSVSource: ImportSource {
    private let data: Data
    private var offset: Int
    /// Records read so far (the header is record 1), as a spreadsheet numbers its rows.
    private var record = 0
    private var columns: (word: Int, definition: Int, tags: Int?, collection: Int?) = (0, 1, 2, 3)
    /// The optional columns a header named: `id`, `languages`, `note`, `example`, `related`, `alternative`.
    private var extra: [String: Int] = [:]
    public let total: Int?

    /// Checks that the bytes are UTF-8 text and reads the header.
    /// - Throws: `invalid` for a file that is not CSV text.
    public init(data: Data) throws(BusError) {
        self.data = data
        offset = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let sample = data.prefix(64 * 1024)
        if sample.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            throw BusError(.unsupportedMedia, "This file is a zip archive, not a CSV; if it is an Anki package, import it with format 'apkg'.")
        }
        if sample.contains(0) {
            throw BusError(.unsupportedMedia, "This file holds binary data, not CSV text. Export the sheet as 'CSV UTF-8' and import that.")
        }
        var newlines = 0
        data.withUnsafeBytes { buffer in
            for byte in buffer where byte == 10 { newlines += 1 }
        }
        total = newlines + (data.last == 10 ? 0 : 1)
        guard let first = nextRecord() else { throw BusError.invalid("The CSV file is empty.") }
        let names = first.map { $0.trimmed.lowercased() }
        if let word = names.firstIndex(where: { $0 == "word" || $0 == "front" }) {
            guard let definition = names.firstIndex(where: { ["definition", "definitions", "back", "meaning"].contains($0) }) else {
                throw BusError.invalid("The header row names a 'word' column but no 'definition' column; name the columns word, definition, tags, collection.")
            }
            columns = (word, definition, names.firstIndex(of: "tags"),
                       names.firstIndex(where: { $0 == "collection" || $0 == "deck" }))
            for name in ["id", "languages", "note", "example", "related", "alternative"] {
                if let index = names.firstIndex(of: name) { extra[name] = index }
            }
        } else {
            // No header: the first row is data.
            offset = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            record = 0
        }
    }

    public mutating func next() -> Result<ImportRow, ImportRowError>? {
        var fields: [String] = []
        // Blank lines are skipped in a loop: a file of a million of them must not recurse a million deep.
        repeat {
            guard let read = nextRecord() else { return nil }
            fields = read
        } while fields.count == 1 && fields[0].trimmed.isEmpty && pendingError == nil
        let number = record
        func cell(_ index: Int?) -> String? {
            guard let index, index < fields.count else { return nil }
            let value = fields[index].trimmed
            return value.isEmpty ? nil : value
        }
        if let error = pendingError {
            pendingError = nil
            return .failure(ImportRowError(row: number, message: error))
        }
        func list(_ name: String) -> [String] {
            (cell(extra[name]) ?? "").split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == ";" }).map(String.init)
        }
        var row = ImportRow(
            number: number, word: cell(columns.word) ?? "",
            definitions: (cell(columns.definition) ?? "").split(whereSeparator: \.isNewline).map(String.init),
            tags: (cell(columns.tags) ?? "").split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == ";" }).map(String.init),
            collection: cell(columns.collection))
        row.key = cell(extra["id"])
        row.languages = list("languages")
        row.note = cell(extra["note"])
        row.example = cell(extra["example"])
        row.related = list("related")
        row.alternative = list("alternative")
        return .success(row)
    }

    private var pendingError: String?

    /// The fields of the next record; advances past it.
    private mutating func nextRecord() -> [String]? {
        guard offset < data.count else { return nil }
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var atFieldStart = true
        var index = offset
        let count = data.count
        var finished = false
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            while index < count {
                let byte = buffer[index]
                index += 1
                if quoted {
                    if byte == 34 {
                        if index < count, buffer[index] == 34 {
                            field.append(34)
                            index += 1
                        } else {
                            quoted = false
                        }
                    } else {
                        field.append(byte)
                    }
                    continue
                }
                switch byte {
                case 34 where atFieldStart:
                    quoted = true
                    atFieldStart = false
                case 44:
                    fields.append(text(field))
                    field.removeAll(keepingCapacity: true)
                    atFieldStart = true
                case 10:
                    finished = true
                case 13:
                    continue
                default:
                    field.append(byte)
                    atFieldStart = false
                }
                if finished { break }
            }
        }
        if quoted {
            pendingError = "A quoted field is not closed before the end of the file."
        }
        fields.append(text(field))
        offset = index
        record += 1
        return fields
    }

    private mutating func text(_ bytes: [UInt8]) -> String {
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil {
            pendingError = "This row is not valid UTF-8 text; save the file as 'CSV UTF-8'."
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Writes CSV with every column the importer reads back: an export imports to what was exported.
public struct CSVWriter {
    public private(set) var text = "id,word,definition,languages,note,example,tags,collection,related,alternative\r\n"

    public init() {}

    public mutating func add(_ row: ImportRow) {
        let cells = [row.key ?? "", row.word, row.definitions.joined(separator: "\n"), row.languages.joined(separator: " "),
                     row.note ?? "", row.example ?? "", row.tags.joined(separator: " "), row.collection ?? "",
                     row.related.joined(separator: " "), row.alternative.joined(separator: " ")]
        text += cells.map(Self.escape).joined(separator: ",")
        text += "\r\n"
    }

    public static func escape(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || value.hasPrefix(" ") else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
