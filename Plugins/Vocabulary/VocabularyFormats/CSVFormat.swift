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
    /// Its other cards in the file (an Anki note's card 2, its cloze), each of its kind.
    public var cards: [ImportedCard] = []
    /// Its recorded pronunciation's file in the package (an Anki note's first `[sound:…]`).
    public var sound: String?

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

/// A card of a row beyond its first: its kind's name ("reverse", "cloze") and its place in the
/// schedule (nil: the file has the card, never reviewed).
public struct ImportedCard: Sendable, Equatable {
    public var kind: String
    public var schedule: ImportedSchedule?

    public init(kind: String, schedule: ImportedSchedule?) {
        self.kind = kind
        self.schedule = schedule
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

/// How large a CSV's parts may be. A cell or a row past its cap is a problem of that row (it is
/// not imported; the others are), read past without being held: a 200 MB cell costs no more
/// memory than a 64 KB one.
public struct CSVLimits: Sendable, Equatable {
    /// Largest cell, in bytes (`import_max_field_bytes`).
    public var maxCellBytes: Int
    /// Largest row (record), in bytes (`import_max_row_bytes`).
    public var maxRowBytes: Int

    public init(maxCellBytes: Int = 64 << 10, maxRowBytes: Int = 1 << 20) {
        self.maxCellBytes = max(1, maxCellBytes)
        self.maxRowBytes = max(self.maxCellBytes, maxRowBytes)
    }
}

/// A size in the words a person reads: "200 MB", "64 KB", "12 bytes".
public func readableSize(_ bytes: Int) -> String {
    if bytes >= 1 << 20 {
        let megabytes = Double(bytes) / Double(1 << 20)
        let tenths = Int((megabytes * 10).rounded())
        return megabytes >= 10 || tenths % 10 == 0 ? "\(Int(megabytes.rounded())) MB" : "\(tenths / 10).\(tenths % 10) MB"
    }
    if bytes >= 1 << 10 { return "\(Int((Double(bytes) / 1024).rounded())) KB" }
    return "\(bytes) bytes"
}

/// CSV as spreadsheets write it (RFC 4180: commas, double quotes doubled inside quoted fields,
/// CRLF or LF), UTF-8 with or without a byte-order mark, read as a stream: from a file a chunk at
/// a time, with each cell and row under ``CSVLimits``.
///
/// Columns: `word, definition, tags, collection` — named by a header row (any order, any case,
/// also `definitions`/`deck`), or in that order without one. Several definitions are separate lines
/// of the definition cell; tags are separated by spaces, commas or semicolons. A header may also
/// name `id`, `languages` (codes separated by spaces or commas), `note`, `example`, `related` and
/// `alternative` (the ids of other rows, separated by spaces): what an export writes, so that it
/// reads back whole.
public struct CSVSource: ImportSource {
    private let input: ByteInput
    private let limits: CSVLimits
    /// Records read so far (the header is record 1), as a spreadsheet numbers its rows.
    private var record = 0
    private var columns: (word: Int, definition: Int, tags: Int?, collection: Int?) = (0, 1, 2, 3)
    /// The optional columns a header named: `id`, `languages`, `note`, `example`, `related`, `alternative`.
    private var extra: [String: Int] = [:]
    /// Columns by position, as a problem names them.
    private var columnNames = ["word", "definition", "tags", "collection"]

    /// Rows in the file (its lines), counted on first use: a pass over the file, a chunk at a time.
    public var total: Int? { input.lineCount() }

    /// Reads the file at `file` a chunk at a time.
    /// - Throws: `unsupported_media_type` for a file that is not CSV text, `invalid` for an empty one.
    public init(file: URL, limits: CSVLimits = CSVLimits()) throws(BusError) {
        let input: ByteInput
        do {
            input = try ByteInput(file: file)
        } catch {
            throw BusError.invalid("Cannot read the import's file: \(error.localizedDescription)", field: "file")
        }
        try self.init(input: input, limits: limits)
    }

    /// Checks that the bytes are UTF-8 text and reads the header.
    /// - Throws: `invalid` for a file that is not CSV text.
    public init(data: Data, limits: CSVLimits = CSVLimits()) throws(BusError) {
        try self.init(input: ByteInput(data: data), limits: limits)
    }

    private init(input: ByteInput, limits: CSVLimits) throws(BusError) {
        self.input = input
        self.limits = limits
        let sample = input.peek()
        if sample.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            throw BusError(.unsupportedMedia, "This file is a zip archive, not a CSV; if it is an Anki package, import it with format 'apkg'.")
        }
        if sample.contains(0) {
            throw BusError(.unsupportedMedia, "This file holds binary data, not CSV text. Export the sheet as 'CSV UTF-8' and import that.")
        }
        if sample.starts(with: [0xEF, 0xBB, 0xBF]) { input.skip(3) }
        guard input.hasMore, let first = nextRecord() else { throw BusError.invalid("The CSV file is empty.") }
        // A first row that cannot be read (a cell over its cap, say) is no header: it is row 1,
        // with its problem, and the rows after it import.
        let readable = pendingError == nil
        pendingError = nil
        let names = readable ? first.map { $0.trimmed.lowercased() } : []
        if let word = names.firstIndex(where: { $0 == "word" || $0 == "front" }) {
            guard let definition = names.firstIndex(where: { ["definition", "definitions", "back", "meaning"].contains($0) }) else {
                throw BusError.invalid("The header row names a 'word' column but no 'definition' column; name the columns word, definition, tags, collection.")
            }
            columns = (word, definition, names.firstIndex(of: "tags"),
                       names.firstIndex(where: { $0 == "collection" || $0 == "deck" }))
            for name in ["id", "languages", "note", "example", "related", "alternative"] {
                if let index = names.firstIndex(of: name) { extra[name] = index }
            }
            columnNames = names.map { $0.count <= 40 ? $0 : "" }
        } else {
            // No header: the first row is data.
            input.rewind()
            if sample.starts(with: [0xEF, 0xBB, 0xBF]) { input.skip(3) }
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

    /// How a problem names the cell at `index`: "the definition", "column 7".
    private func cellName(_ index: Int) -> String {
        if index < columnNames.count, !columnNames[index].isEmpty { return "the " + columnNames[index] }
        return "column \(index + 1)"
    }

    /// The fields of the next record; advances past it. A cell past ``CSVLimits/maxCellBytes`` or
    /// a record past ``CSVLimits/maxRowBytes`` is read past, not kept, and leaves a pending error.
    private mutating func nextRecord() -> [String]? {
        guard input.hasMore else { return nil }
        var fields: [String] = []
        var field: [UInt8] = []
        /// The bytes of the current field and record, counted whether kept or not.
        var fieldBytes = 0
        var recordBytes = 0
        var oversized: (index: Int, bytes: Int)?
        var quoted = false
        /// A quote seen inside a quoted field: the next byte says whether it was doubled.
        var afterQuote = false
        var atFieldStart = true
        var finished = false
        let (maxCell, maxRow) = (limits.maxCellBytes, limits.maxRowBytes)

        func endField() {
            if fieldBytes > maxCell, oversized == nil || fieldBytes > oversized?.bytes ?? 0 {
                oversized = (fields.count, fieldBytes)
            }
            fields.append(fieldBytes > maxCell || recordBytes > maxRow ? "" : text(field))
            field.removeAll(keepingCapacity: field.count <= 4096)
            fieldBytes = 0
            atFieldStart = true
        }
        func keep(_ byte: UInt8) {
            fieldBytes += 1
            recordBytes += 1
            if fieldBytes <= maxCell, recordBytes <= maxRow { field.append(byte) }
        }

        while !finished, input.fill() {
            input.consume { buffer in
                var index = 0
                let count = buffer.count
                while index < count {
                    let byte = buffer[index]
                    index += 1
                    if afterQuote {
                        afterQuote = false
                        if byte == 34 {
                            keep(34)
                            continue
                        }
                        quoted = false
                        // The quote closed the field; this byte is read as outside quotes.
                    } else if quoted {
                        if byte == 34 { afterQuote = true } else { keep(byte) }
                        continue
                    }
                    switch byte {
                    case 34 where atFieldStart:
                        quoted = true
                        atFieldStart = false
                    case 44:
                        recordBytes += 1
                        endField()
                    case 10:
                        finished = true
                    case 13:
                        continue
                    default:
                        keep(byte)
                        atFieldStart = false
                    }
                    if finished { break }
                }
                return index
            }
        }
        if quoted && !afterQuote {
            pendingError = "A quoted field is not closed before the end of the file."
        }
        endField()
        record += 1
        if let oversized {
            let name = cellName(oversized.index)
            pendingError = name.prefix(1).uppercased() + name.dropFirst()
                + " is \(readableSize(oversized.bytes)); a field may be at most \(readableSize(maxCell)). Shorten it (or split the row) and import it again."
        } else if recordBytes > maxRow {
            pendingError = "This row is \(readableSize(recordBytes)); a row may be at most \(readableSize(maxRow)). Shorten it or split it into several rows."
        }
        return fields
    }

    private mutating func text(_ bytes: [UInt8]) -> String {
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil {
            pendingError = "This row is not valid UTF-8 text; save the file as 'CSV UTF-8'."
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Bytes read a chunk at a time, from a file or from memory.
final class ByteInput {
    static let chunkSize = 64 << 10
    private let handle: FileHandle?
    private let data: Data?
    private var dataOffset = 0
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    private var lines: Int??

    init(file: URL) throws {
        handle = try FileHandle(forReadingFrom: file)
        data = nil
    }

    init(data: Data) {
        handle = nil
        self.data = data
    }

    deinit { try? handle?.close() }

    /// The first chunk, unread.
    func peek() -> [UInt8] {
        _ = fill()
        return Array(buffer[position...])
    }

    func skip(_ count: Int) {
        _ = fill()
        position = min(buffer.count, position + count)
    }

    /// Back to the start.
    func rewind() {
        if let handle { try? handle.seek(toOffset: 0) }
        dataOffset = 0
        buffer = []
        position = 0
        ended = false
    }

    var hasMore: Bool { fill() }

    /// True while there are bytes to read (reads the next chunk when the last is used up).
    func fill() -> Bool {
        if position < buffer.count { return true }
        if ended { return false }
        let chunk: [UInt8]
        if let handle {
            chunk = ((try? handle.read(upToCount: Self.chunkSize)) ?? nil).map { [UInt8]($0) } ?? []
        } else if let data, dataOffset < data.count {
            let end = min(data.count, dataOffset + Self.chunkSize)
            chunk = [UInt8](data[(data.startIndex + dataOffset)..<(data.startIndex + end)])
            dataOffset = end
        } else {
            chunk = []
        }
        buffer = chunk
        position = 0
        if chunk.isEmpty { ended = true }
        return !chunk.isEmpty
    }

    /// Hands the unread bytes of the chunk to `body`, which answers how many it used.
    func consume(_ body: (UnsafeBufferPointer<UInt8>) -> Int) {
        let used = buffer.withUnsafeBufferPointer { all in body(UnsafeBufferPointer(rebasing: all[position...])) }
        position += used
    }

    /// The lines of the whole input (a last line without a newline counts), counted once with a
    /// reader of its own; nil when the file cannot be read again.
    func lineCount() -> Int? {
        if let lines { return lines }
        var newlines = 0
        var last: UInt8 = 10
        var empty = true
        func count(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes where byte == 10 { newlines += 1 }
            if let end = bytes.last { last = end; empty = false }
        }
        if let data {
            data.withUnsafeBytes(count)
        } else if let handle, let offset = try? handle.offset() {
            defer { try? handle.seek(toOffset: offset) }
            guard (try? handle.seek(toOffset: 0)) != nil else { lines = .some(nil); return nil }
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { chunk.withUnsafeBytes(count) }
        }
        let result = empty ? 0 : newlines + (last == 10 ? 0 : 1)
        lines = .some(result)
        return result
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
