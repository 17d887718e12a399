public import Foundation

/// Notes out of an Evernote export (`.enex`, per `evernote-export3.dtd`), one at a time, streamed:
/// memory holds one note's text and at most one image, whatever the file's size.
///
/// Of each `<note>`: `title`, `content` (ENML, as plain text), `created`, the `tag`s, and the
/// first `resource` whose `mime` is an image, decoded from base64, as the photo. Other resources
/// are skipped without being decoded. A note that cannot be read is reported and the next one read.
public struct EnexReader<Source: ByteChunks>: NoteSource {
    var parser: XMLPullParser<Source>
    let total: Int64?
    /// Photos larger than this (decoded) are left out, with a warning; their base64 is not kept.
    let maxPhotoBytes: Int
    /// Longest text kept of a note's title or content (the rest is cut, with a warning).
    static var maxContentBytes: Int { 4 << 20 }
    var index = 0
    var finished = false

    /// Reads up to the root element; throws when the file is not an Evernote export.
    public init(_ source: Source, size: Int64?, maxPhotoBytes: Int) throws(NoteProblem) {
        parser = XMLPullParser(source)
        total = size
        self.maxPhotoBytes = maxPhotoBytes
        do {
            guard case .start(let name, _)? = try parser.next() else {
                throw NoteProblem(index: 0, message: "This is not an Evernote export: it holds no element.", fatal: true)
            }
            guard name == "en-export" else {
                throw NoteProblem(index: 0, message: "This is not an Evernote export (.enex): its root element is <\(name)>, not <en-export>.", fatal: true)
            }
        } catch let error as XMLSyntaxError {
            throw NoteProblem(index: 0, message: "This is not an Evernote export: it is not well-formed XML (\(error)).", fatal: true)
        } catch let error as NoteProblem {
            throw error
        } catch {
            throw NoteProblem(index: 0, message: "This Evernote export could not be read: \(NoteProblem.sentence(for: error)).", fatal: true)
        }
    }

    public var progress: (done: Int64, total: Int64?) { (parser.bytesRead, total) }

    public mutating func next() -> Result<ImportedNote, NoteProblem>? {
        guard !finished else { return nil }
        do {
            while let event = try parser.next() {
                switch event {
                case .start(let name, _) where name == "note":
                    index += 1
                    return try note()
                case .end(let name) where name == "en-export":
                    // Only comments and space may follow the root: read them too.
                    while try parser.next() != nil {}
                    finished = true
                    return nil
                case .start(let name, _):
                    try skipElement(name)
                default:
                    continue
                }
            }
            finished = true
            return nil
        } catch {
            finished = true
            return .failure(NoteProblem(index: index, message: "The file is not well-formed XML after note \(index) (\(NoteProblem.sentence(for: error))); "
                                        + "the notes before it were read.", fatal: true))
        }
    }

    /// The inside of a `<note>`, up to its end tag.
    mutating func note() throws(XMLSyntaxError) -> Result<ImportedNote, NoteProblem> {
        var note = ImportedNote(index: index)
        var content: [UInt8] = []
        var createdText: [UInt8] = []
        while let event = try parser.next() {
            switch event {
            case .end:
                // </note>: the children below consume their own end tags.
                return finish(&note, content: content, created: createdText)
            case .start(let name, _):
                switch name {
                case "title":
                    let bytes = try text(of: name, limit: Self.maxContentBytes).bytes
                    note.title = String(decoding: bytes, as: UTF8.self)
                case "content":
                    let read = try text(of: name, limit: Self.maxContentBytes)
                    content = read.bytes
                    if read.cut { note.warnings.append("its text was longer than \(Self.maxContentBytes >> 20) MB and was cut") }
                case "created":
                    createdText = try text(of: name, limit: 64).bytes
                case "tag":
                    let tag = String(decoding: try text(of: name, limit: 1024).bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    if !tag.isEmpty { note.tags.append(tag) }
                case "resource":
                    try resource(into: &note)
                default:
                    try skipElement(name)
                }
            case .text:
                continue
            }
        }
        throw parser.fail("the file ends inside a <note>")
    }

    func finish(_ note: inout ImportedNote, content: [UInt8], created: [UInt8]) -> Result<ImportedNote, NoteProblem> {
        note.title = note.title.trimmingCharacters(in: .whitespacesAndNewlines)
        note.text = ENML.text(String(decoding: content, as: UTF8.self))
        if !created.isEmpty {
            let text = String(decoding: created, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let date = Self.date(text) else {
                return .failure(NoteProblem(index: index, title: note.title,
                                            message: "its created date \"\(text.prefix(40))\" is not written as Evernote writes dates (20240131T093000Z)"))
            }
            note.created = date
        }
        return .success(note)
    }

    /// A `<resource>`: becomes the photo when it is the note's first image. A bad image only loses
    /// the photo, with a warning on the note; only a broken file stops the reading.
    mutating func resource(into note: inout ImportedNote) throws(XMLSyntaxError) {
        var base64: [UInt8] = []
        var tooLarge = false
        var mime = ""
        let wanted = note.photo == nil
        let maxBase64 = maxPhotoBytes / 3 * 4 + 8
        while let event = try parser.next() {
            switch event {
            case .end:
                guard wanted, mime.hasPrefix("image/") else { return }
                if tooLarge {
                    note.warnings.append("its image is larger than \(maxPhotoBytes >> 20) MB and was left out")
                } else if let bytes = Data(base64Encoded: Data(base64), options: .ignoreUnknownCharacters), !bytes.isEmpty {
                    note.photo = ImportedNote.Photo(bytes: bytes, mimeType: mime)
                } else {
                    note.warnings.append("its image is not valid base64 and was left out")
                }
                return
            case .start(let name, _):
                switch name {
                case "data":
                    // Kept only while it can still be the photo, and only up to the limit.
                    data: while let piece = try parser.next() {
                        if case .text(let bytes) = piece {
                            guard wanted && !tooLarge else { continue }
                            base64.append(contentsOf: bytes.lazy.filter { !XMLBytes.isSpace($0) })
                            if base64.count > maxBase64 {
                                tooLarge = true
                                base64 = []
                            }
                        } else if case .end = piece {
                            break data
                        } else if case .start(let inner, _) = piece {
                            try skipElement(inner)
                        }
                    }
                case "mime":
                    mime = String(decoding: try text(of: name, limit: 256).bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                default:
                    try skipElement(name)
                }
            case .text:
                continue
            }
        }
        throw parser.fail("the file ends inside a <resource>")
    }

    /// The text of the element just started, up to its end tag (child elements skipped), at most
    /// `limit` bytes of it.
    mutating func text(of name: String, limit: Int) throws(XMLSyntaxError) -> (bytes: [UInt8], cut: Bool) {
        var bytes: [UInt8] = []
        var cut = false
        while let event = try parser.next() {
            switch event {
            case .text(let piece):
                if bytes.count + piece.count <= limit {
                    bytes.append(contentsOf: piece)
                } else {
                    cut = true
                    bytes.append(contentsOf: piece.prefix(max(0, limit - bytes.count)))
                }
            case .start(let inner, _):
                try skipElement(inner)
            case .end:
                if cut {
                    // Never end a cut inside a UTF-8 sequence.
                    while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
                    if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
                }
                return (bytes, cut)
            }
        }
        throw parser.fail("the file ends inside <\(name)>")
    }

    /// Skips the element just started, whatever it holds.
    mutating func skipElement(_ name: String) throws(XMLSyntaxError) {
        var depth = 1
        while let event = try parser.next() {
            switch event {
            case .start: depth += 1
            case .end:
                depth -= 1
                if depth == 0 { return }
            case .text: continue
            }
        }
        throw parser.fail("the file ends inside <\(name)>")
    }

    /// Evernote's dates: `20240131T093000Z` (UTC).
    public static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
              let minute = number(11..<13), let second = number(13..<15),
              (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }
}
