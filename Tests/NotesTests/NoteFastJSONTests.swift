import AppHostTestKit
import Foundation
import HTTPKit
import HTTPTypes
import NIOCore
@testable import Notes
import StorageAPI
import Testing

/// The create route's own JSON (issue 42): the same notes and the same errors as Foundation's coders.
@Suite("A note's JSON on create, without Foundation's coders")
struct NoteFastJSONTests {
    /// Every control character, quotes, backslashes, slashes, DEL, non-ASCII and astral text.
    static let awkward = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        + ["\"", "\\", "/", "</script>", "\u{7F}", "é", "\u{2028}\u{2029}", "日本語", "🙂👍🏽", "a\"b\\c/d\ne\tf", ""]

    @Test("the payload's bytes are JSONDocument(encoding:)'s, byte for byte")
    func documentBytes() throws {
        var cases: [NoteData] = []
        for text in Self.awkward {
            cases.append(NoteData(title: text, text: "x" + text + "y", date: "2026-11-26", position: "a" + text))
        }
        var full = NoteData(title: "t", text: "x", date: "2026-01-02", position: "m")
        (full.photo, full.drawing, full.category, full.importJob, full.voice) = ("p", "d", "Work/Home", "ji_1", "v")
        (full.photoText, full.photoTextState, full.photoTextJob) = ("read", "read", "job")
        cases.append(full)
        for data in cases {
            let fast = try #require(NoteFastJSON.document(data))
            let foundation = try JSONDocument(encoding: data)
            #expect(fast.bytes == foundation.bytes, "\(String(decoding: fast.bytes, as: UTF8.self)) vs \(String(decoding: foundation.bytes, as: UTF8.self))")
        }
        var numbered = full
        numbered.voiceMs = 1200
        #expect(NoteFastJSON.document(numbered) == nil, "a number is Foundation's to write")
    }

    @Test("a flat body of known members is read as Foundation's decoder reads it")
    func readsAsFoundation() throws {
        var bodies = [#"{}"#, #" { "title" : "a" , "text":"b","date":"2026-11-26" } "#, #"{"title":null,"text":null}"#,
                      #"{"category":null}"#, #"{"category":"Work"}"#, #"{"title":"\u00e9\ud83d\ude42\/\b\f\n\r\t\"\\"}"#,
                      #"{"text":"\u0000"}"#]
        for text in Self.awkward {
            bodies.append(String(decoding: try JSONEncoder().encode(["title": text, "text": text]), as: UTF8.self))
        }
        for body in bodies {
            let fast = try #require(NoteFastJSON.input(ByteBuffer(string: body)), "\(body)")
            let foundation = try JSONDecoder().decode(NoteInput.self, from: Data(body.utf8))
            #expect(fast.title == foundation.title && fast.text == foundation.text && fast.date == foundation.date, "\(body)")
            #expect(fast.category.map { $0 ?? "<null>" } == foundation.category.map { $0 ?? "<null>" }, "\(body)")
        }
    }

    @Test("anything else is left to the full decoder")
    func givesUp() {
        let bodies = [#"{"titel":"a"}"#, #"{"title":1}"#, #"{"title":"a","title":"b"}"#, #"{"title":"a"} x"#, #"["a"]"#, #""a""#,
                      #"{"title":"\ud83d"}"#, #"{"title":"\udc00"}"#, "{\"title\":\"a\u{1}\"}", #"{"title":"a""#, #"{"title":"\x"}"#,
                      #"{"title":nul}"#, #"{"title":true}"#, #"{"title":{"a":1}}"#, #"{"title":"a",}"#, ""]
        for body in bodies {
            #expect(NoteFastJSON.input(ByteBuffer(string: body)) == nil, "\(body)")
        }
        var invalid = ByteBuffer(string: #"{"title":""#)
        invalid.writeBytes([0xC3, 0x28])
        invalid.writeString(#""}"#)
        #expect(NoteFastJSON.input(invalid) == nil, "bytes that are not UTF-8")
    }

    @Test("creating through the route: the same errors as before for bodies the fast reader leaves, the same note for those it takes")
    func route() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("ada")
            let created = try await api.send(.post, "/api/v1/notes", json: #"{"title":"a/b \"c\"","text":"line\nline"}"#, token: token)
            #expect(created.status == 201, "\(created.text)")
            #expect(created["title"] == "a/b \"c\"" && created["text"] == "line\nline", "\(created.text)")
            let typo = try await api.send(.post, "/api/v1/notes", json: #"{"titel":"a"}"#, token: token)
            #expect(typo.status == 400 && typo["field"] == "titel", "\(typo.text)")
            let number = try await api.send(.post, "/api/v1/notes", json: #"{"title":1}"#, token: token)
            #expect(number.status == 400 && number["field"] == "title", "\(number.text)")
            let broken = try await api.send(.post, "/api/v1/notes", json: #"{"title":"#, token: token)
            #expect(broken.status == 400, "\(broken.text)")
        }
    }

    @Test("today's date is remembered until the day ends in the app's zone")
    func dayMemo() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Paris"))
        let memo = DayMemo()
        var calls = 0
        func day(_ instant: Date) -> String {
            calls += 1
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = calendar.dateComponents([.year, .month, .day], from: instant)
            return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
        // 2026-11-26 22:59:59 UTC is 23:59:59 in Paris; a second later it is the 27th there.
        let evening = Date(timeIntervalSince1970: 1_795_733_999)
        #expect(memo.day(evening, timeZone: zone, compute: day) == "2026-11-26")
        #expect(memo.day(evening.addingTimeInterval(-3600), timeZone: zone, compute: day) == "2026-11-26")
        #expect(calls == 1)
        #expect(memo.day(evening.addingTimeInterval(1), timeZone: zone, compute: day) == "2026-11-27")
        #expect(memo.day(evening, timeZone: zone, compute: day) == "2026-11-26", "an earlier instant again")
    }
}
