import Foundation
@testable import NotesFormats
import Testing

@Suite("XML pull parser")
struct XMLPullParserTests {
    func events(_ xml: String, chunk: Int) throws -> [String] {
        var parser = XMLPullParser(MemoryChunks(Array(xml.utf8), chunk: chunk))
        var out: [String] = []
        var text = ""
        while let event = try parser.next() {
            if case .text(let bytes) = event {
                text += String(decoding: bytes, as: UTF8.self)
                continue
            }
            if !text.isEmpty { out.append("'\(text)'"); text = "" }
            switch event {
            case .start(let name, let attributes):
                out.append("<\(name)" + attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined() + ">")
            case .end(let name): out.append("</\(name)>")
            case .text: break
            }
        }
        return out
    }

    @Test("declaration, DOCTYPE with a subset, comments, entities, CDATA and attributes — the same events whatever the chunk size")
    func wellFormed() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export3.dtd" [ <!ENTITY x "y"> ]>
            <!-- a comment with <tags> -->
            <a k="1 &amp; 2" j='it&apos;s'><b>x &lt; y &#233;&#x4E2D;</b><c/><![CDATA[<en-note>]]><![CDATA[</en-note>]]><?pi x?></a>
            """
        let expected = ["<a j=it's k=1 & 2>", "<b>", "'x < y é中'", "</b>", "<c>", "</c>", "'<en-note></en-note>'", "</a>"]
        for chunk in [1, 2, 3, 7, 64, 1 << 16] {
            #expect(try events(xml, chunk: chunk) == expected, "chunk \(chunk)")
        }
    }

    @Test("a large text or CDATA comes in pieces, never as one buffer")
    func pieces() throws {
        let big = String(repeating: "QUJD", count: 100_000)
        var parser = XMLPullParser(MemoryChunks(Array("<a><![CDATA[\(big)]]>\(big)</a>".utf8), chunk: 10_000))
        var pieces = 0, total = 0
        while let event = try parser.next() {
            if case .text(let bytes) = event {
                pieces += 1
                total += bytes.count
                #expect(bytes.count <= XMLPullParser<MemoryChunks>.textPiece)
            }
        }
        #expect(total == 800_000 && pieces >= 12)
        #expect(parser.bytesRead == Int64(800_000 + "<a><![CDATA[]]></a>".utf8.count))
    }

    @Test("what is not well-formed is refused with its line", arguments: [
        ("<a><b></a>", "</a> where </b> was expected"),
        ("<a>\n\n<b>", "the file ends inside <b>"),
        ("<a>&nbsp;</a>", "unknown entity &nbsp;"),
        ("<a x=1></a>", "its value is not quoted"),
        ("<a></a><b/>", "a second root element <b>"),
        ("hello", "text outside the root element"),
        ("", "there is no element in the file"),
        ("<a><![CDATA[never closed", "ends inside a CDATA section"),
        ("<1a/>", "a tag or attribute name was expected"),
        // Entities a DOCTYPE declares are never expanded (no billion laughs): they are unknown.
        ("<!DOCTYPE a [<!ENTITY x \"&#120;&#120;\"><!ENTITY y \"&x;&x;\">]><a>&y;</a>", "unknown entity &y;"),
    ])
    func malformed(_ xml: String, _ message: String) throws {
        var parser = XMLPullParser(MemoryChunks(Array(xml.utf8), chunk: 3))
        let error = #expect(throws: XMLSyntaxError.self) { while try parser.next() != nil {} }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        if xml.hasPrefix("<a>\n\n") { #expect(error?.line == 3) }
    }
}

@Suite("ENML as text")
struct ENMLTests {
    @Test("paragraphs, breaks, lists, to-dos, tables and entities become plain text; markup and media go")
    func text() {
        let enml = """
            <?xml version="1.0" encoding="UTF-8"?><!DOCTYPE en-note SYSTEM "http://xml.evernote.com/pub/enml2.dtd">
            <en-note><div>Buy   <b>milk</b>&nbsp;&amp; eggs</div><div><br/></div><div>Caf&eacute;? &mdash; &#8364;5</div>
            <ul><li>one</li><li>two</li></ul><div><en-todo checked="true"/>done</div><div><en-todo/>to do</div>
            <table><tr><td>a</td><td>b</td></tr></table><en-media type="image/png" hash="abc"/><style>p{}</style><p>end</p></en-note>
            """
        #expect(ENML.text(enml) == "Buy milk & eggs\n\nCafé? — €5\n• one\n• two\n☑ done\n☐ to do\na b\n\nend")
    }

    @Test("untidy markup is read, not refused")
    func lenient() {
        #expect(ENML.text("<div>a<div>b</span> & c<") == "a\nb & c")
        #expect(ENML.text("plain") == "plain")
    }
}

@Suite("Evernote .enex")
struct EnexReaderTests {
    static func enex(_ notes: [String]) -> [UInt8] {
        Array(("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export3.dtd">
            <en-export export-date="20240201T120000Z" application="Evernote" version="10.0">
            """ + notes.joined(separator: "\n") + "\n</en-export>\n").utf8)
    }

    static func note(_ title: String, content: String = "<en-note><div>text</div></en-note>", created: String = "20240131T093000Z",
                     tags: [String] = [], resources: [(mime: String, bytes: Data)] = []) -> String {
        "<note><title>\(title)</title><content><![CDATA[<?xml version=\"1.0\" encoding=\"UTF-8\"?>\(content)]]></content>"
            + "<created>\(created)</created><updated>20240201T100000Z</updated>" + tags.map { "<tag>\($0)</tag>" }.joined()
            + "<note-attributes><author>me</author></note-attributes>"
            + resources.map { "<resource><data encoding=\"base64\">\n\($0.bytes.base64EncodedString(options: .lineLength76Characters))\n</data><mime>\($0.mime)</mime>"
                + "<width>1</width><resource-attributes><file-name>x</file-name></resource-attributes></resource>" }.joined()
            + "</note>"
    }

    func read(_ bytes: [UInt8], chunk: Int = 1 << 16, maxPhoto: Int = 1 << 20) throws -> [Result<ImportedNote, NoteProblem>] {
        var reader = try EnexReader(MemoryChunks(bytes, chunk: chunk), size: Int64(bytes.count), maxPhotoBytes: maxPhoto)
        var out: [Result<ImportedNote, NoteProblem>] = []
        while let next = reader.next() { out.append(next) }
        #expect(reader.progress.done == Int64(bytes.count))
        return out
    }

    @Test("title, text, created date, tags and the first image; a bad note is reported and the next one read")
    func notes() throws {
        let pdf = Data("%PDF-1.4".utf8), png = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]), jpeg = Data([0xFF, 0xD8, 0xFF, 9])
        let file = Self.enex([
            Self.note("Groceries &amp; more", tags: ["Home", "Errands"], resources: [(mime: "application/pdf", bytes: pdf), (mime: "image/png", bytes: png),
                                                                                    (mime: "image/jpeg", bytes: jpeg)]),
            Self.note("Bad date", created: "yesterday"),
            Self.note("", content: "<en-note/>", created: "20231231T235959Z"),
        ])
        for chunk in [5, 1 << 16] {
            let read = try read(file, chunk: chunk)
            #expect(read.count == 3)
            let first = try read[0].get()
            #expect(first.index == 1 && first.title == "Groceries & more" && first.text == "text" && first.tags == ["Home", "Errands"])
            #expect(first.photo == ImportedNote.Photo(bytes: png, mimeType: "image/png"))
            #expect(first.created == Date(timeIntervalSince1970: 1_706_693_400))
            guard case .failure(let problem) = read[1] else { Issue.record("the bad date is reported"); continue }
            #expect(problem.index == 2 && problem.title == "Bad date" && problem.message.contains("yesterday") && !problem.fatal)
            let third = try read[2].get()
            #expect(third.title == "" && third.text == "" && third.photo == nil && third.index == 3)
        }
    }

    @Test("an image over the limit is left out with a warning, its base64 never kept")
    func largeImage() throws {
        let read = try read(Self.enex([Self.note("big", resources: [(mime: "image/jpeg", bytes: Data(count: 3000))])]), maxPhoto: 1000)
        let note = try read[0].get()
        #expect(note.photo == nil && note.warnings.first?.contains("larger than") == true)
    }

    @Test("a file cut short keeps the notes before the cut, and says where")
    func truncated() throws {
        let whole = Self.enex([Self.note("one"), Self.note("two")])
        let cut = Array(whole.prefix(whole.count - 40))
        let read = try read(cut)
        #expect(try read[0].get().title == "one")
        guard case .failure(let problem)? = read.last else { Issue.record("the cut is reported"); return }
        #expect(problem.fatal && problem.message.contains("after note"))
    }

    /// Bytes that fail to read after `good` of them, with an error named like a Swift type.
    struct FailingChunks: ByteChunks {
        struct DiskGoneAway: Error {}
        var inner: MemoryChunks
        var left: Int
        mutating func read(max: Int) throws -> [UInt8] {
            guard left > 0 else { throw DiskGoneAway() }
            let bytes = try inner.read(max: Swift.min(max, left))
            left -= bytes.count
            return bytes
        }
    }

    @Test("a file that stops being readable says so in a sentence, never with the name of an error type")
    func unreadable() throws {
        let whole = Self.enex([Self.note("one"), Self.note("two")])
        var reader = try EnexReader(FailingChunks(inner: MemoryChunks(whole, chunk: 64), left: whole.count / 2), size: nil, maxPhotoBytes: 10)
        var problems: [NoteProblem] = []
        while let next = reader.next() { if case .failure(let problem) = next { problems.append(problem) } }
        let problem = try #require(problems.last)
        #expect(problem.fatal && problem.message.contains("could not be read"), "\(problem.message)")
        #expect(!problem.message.contains("DiskGoneAway") && !problem.message.contains("()"), "\(problem.message)")
        // Refused at the very start: the same.
        do {
            _ = try EnexReader(FailingChunks(inner: MemoryChunks(whole), left: 0), size: nil, maxPhotoBytes: 10)
            Issue.record("an unreadable file is refused")
        } catch {
            #expect(error.message.contains("could not be read") && !error.message.contains("DiskGoneAway"), "\(error.message)")
        }
        #expect(NoteProblem.sentence(for: FailingChunks.DiskGoneAway()).hasPrefix("the file could not be read"))
        #expect(NoteProblem.sentence(for: XMLSyntaxError(line: 3, message: "<a> is not closed")) == "on line 3, <a> is not closed")
    }

    @Test("what is not an Evernote export is refused before anything is read", arguments: ["<html><body/></html>", "PK\u{3}\u{4}zip", ""])
    func notEnex(_ text: String) {
        #expect(throws: NoteProblem.self) { _ = try EnexReader(MemoryChunks(Array(text.utf8)), size: nil, maxPhotoBytes: 10) }
    }

    @Test("dates as Evernote writes them", arguments: [("20240229T000000Z", true), ("20230229T000000Z", false), ("2024-01-01", false),
                                                      ("20241301T000000Z", false), ("20240101T246000Z", false)])
    func dates(_ text: String, _ valid: Bool) {
        #expect((EnexReader<MemoryChunks>.date(text) != nil) == valid)
    }
}

@Suite("Google Keep JSON")
struct KeepNoteTests {
    @Test("a text note, a checklist, labels, images and times as Takeout writes them")
    func parse() throws {
        let text = try KeepNote.parse(Data("""
            {"color":"DEFAULT","isTrashed":false,"isPinned":true,"isArchived":false,"title":"Ideas","textContent":"one\\ntwo",
             "labels":[{"name":"Work"},{"name":""}],"attachments":[{"filePath":"abc.jpeg","mimetype":"image/jpeg"},{"filePath":"rec.3gp","mimetype":"audio/3gpp"}],
             "userEditedTimestampUsec":1706693400000000,"createdTimestampUsec":1706600000000000}
            """.utf8))
        #expect(text.title == "Ideas" && text.text == "one\ntwo" && text.labels == ["Work"] && !text.trashed)
        #expect(text.images.map(\.path) == ["abc.jpeg"] && text.created == Date(timeIntervalSince1970: 1_706_600_000))
        let list = try KeepNote.parse(Data("""
            {"title":"","listContent":[{"text":"milk","isChecked":true},{"text":"eggs","isChecked":false}],"isTrashed":true,
             "userEditedTimestampUsec":1706693400000000}
            """.utf8))
        #expect(list.text == "☑ milk\n☐ eggs" && list.trashed && list.created == Date(timeIntervalSince1970: 1_706_693_400))
    }

    @Test("what is not a Keep note says why", arguments: ["[1]", "{\"color\":\"RED\"}", "{\"title\": 5}", "not json"])
    func notKeep(_ json: String) {
        let problem = #expect(throws: NoteProblem.self) { _ = try KeepNote.parse(Data(json.utf8)) }
        #expect(problem?.message.isEmpty == false)
    }

    @Test("an attachment is looked for beside its JSON, under the other image extension too")
    func candidates() {
        #expect(KeepNote.candidates(for: "abc.jpeg", beside: "Takeout/Keep/Ideas.json").prefix(2) == ["Takeout/Keep/abc.jpeg", "Takeout/Keep/abc.jpg"])
    }
}
