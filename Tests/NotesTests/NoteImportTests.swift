import AppHostTestKit
import Foundation
import HTTPTypes
import Testing
import ZIPFoundation

/// Bringing notes in from Evernote and Google Keep, over HTTP, as background jobs.
@Suite("Napkin Notes: imports from Evernote and Google Keep")
struct NoteImportTests {
    static let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins(notes: "{ categories: true, time_zone: Asia/Tokyo }"))

    /// Polls the job until it ends.
    func finished(_ api: APIClient, _ token: String, _ location: String) async throws -> [String: any Sendable] {
        for _ in 0..<300 {
            let job = try await api.send(.get, location, token: token).json
            if job["state"] as? String != "running" { return job }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestAppFailure("the import did not end")
    }

    func enexNote(_ title: String, created: String, tags: [String] = [], image: Data? = nil, content: String = "<div>text</div>") -> String {
        "<note><title>\(title)</title><content><![CDATA[<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
            + "<!DOCTYPE en-note SYSTEM \"http://xml.evernote.com/pub/enml2.dtd\"><en-note>\(content)</en-note>]]></content>"
            + "<created>\(created)</created>" + tags.map { "<tag>\($0)</tag>" }.joined()
            + (image.map { "<resource><data encoding=\"base64\">\($0.base64EncodedString(options: .lineLength76Characters))</data><mime>image/jpeg</mime></resource>" } ?? "")
            + "</note>"
    }

    @Test("an .enex: titles, texts, dates in the app's zone, first tag as category, first image as photo; a bad note reported, the rest kept, after the user's notes")
    func evernote() async throws {
        let photo = try Images().make("e.jpg", width: 64, height: 48)
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let mine = try await api.send(.post, "/api/v1/notes", json: ["title": "Already here"], token: token)
            #expect(mine.status == 201)
            let notes = [
                enexNote("Groceries", created: "20240131T160000Z", tags: ["Home", "Errands"], image: photo,
                         content: "<div>milk</div><div><en-todo checked=\"true\"/>eggs</div>"),
                enexNote("Broken", created: "sometime"),
                enexNote("Not an image really", created: "20240201T000000Z", image: Data("not a jpeg".utf8)),
                enexNote(String(repeating: "t", count: 250), created: "20240202T000000Z"),
            ]
            let file = Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?><!DOCTYPE en-export SYSTEM \"http://xml.evernote.com/pub/evernote-export3.dtd\">"
                             + "<en-export>" + notes.joined() + "</en-export>").utf8)
            let started = try await api.upload(.post, "/api/v1/notes/imports", bytes: file, contentType: "application/enex+xml", token: token)
            #expect(started.status == 202 && started["state"] == "running")
            let location = try #require(started.headers[.location])
            let job = try await finished(api, token, location)
            #expect(job["state"] as? String == "succeeded" && job["imported"] as? Int == 3 && job["photos"] as? Int == 1)
            #expect(job["notesRead"] as? Int == 4 && job["problemCount"] as? Int == 3)
            #expect(job["progressDone"] as? Int == file.count && job["progressTotal"] as? Int == file.count)
            let problems = job["problems"] as? [[String: any Sendable]] ?? []
            #expect(problems.map { $0["note"] as? Int } == [2, 3, 4])
            #expect(problems[0]["imported"] as? Bool == false && (problems[0]["message"] as? String ?? "").contains("sometime"))
            #expect(problems[1]["imported"] as? Bool == true && (problems[1]["message"] as? String ?? "").contains("image was left out"))
            #expect((problems[2]["message"] as? String ?? "").contains("title was cut to 200"))

            let list = try await api.send(.get, "/api/v1/notes", token: token).items
            #expect(list.map { $0["title"] as? String } == ["Already here", "Groceries", "Not an image really", String(repeating: "t", count: 200)])
            let groceries = list[1]
            // 16:00 UTC on the 31st is the 1st of February in Tokyo.
            #expect(groceries["text"] as? String == "milk\n☑ eggs" && groceries["date"] as? String == "2024-02-01")
            #expect(groceries["category"] as? String == "Home" && groceries["photo"] as? String != nil)
            let id = try #require(groceries["id"] as? String)
            let original = try await api.send(.get, "/api/v1/notes/\(id)/photo", token: token)
            #expect(original.status == 200 && original.body == photo)
            #expect(list[2]["photo"] is NSNull && list[2]["category"] == nil)

            // Someone else cannot see the job.
            let (other, _) = try await api.signUp("bob")
            #expect(try await api.send(.get, location, token: other).status == 404)
        }
    }

    @Test("a Google Takeout zip: Keep's notes and checklists with their labels and images; the trash left out; a stray JSON reported")
    func keep() async throws {
        let images = try Images()
        let photo = try images.make("k.jpg", width: 40, height: 30)
        let archive = try Archive(accessMode: .create)
        func add(_ path: String, _ data: Data) throws {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("Takeout/archive_browser.html", Data("<html/>".utf8))
        try add("Takeout/Keep/Shopping.json", Data("""
            {"title":"Shopping","listContent":[{"text":"milk","isChecked":true},{"text":"bread","isChecked":false}],
             "labels":[{"name":"Home"}],"isTrashed":false,"createdTimestampUsec":1706693400000000,"userEditedTimestampUsec":1706693400000000}
            """.utf8))
        // Takeout names the image .jpeg in the JSON and writes it as .jpg.
        try add("Takeout/Keep/Holiday.json", Data("""
            {"title":"Holiday","textContent":"the beach","attachments":[{"filePath":"1a2b.jpeg","mimetype":"image/jpeg"}],
             "isTrashed":false,"userEditedTimestampUsec":1700000000000000}
            """.utf8))
        try add("Takeout/Keep/1a2b.jpg", photo)
        try add("Takeout/Keep/Old.json", Data(#"{"title":"Old","textContent":"gone","isTrashed":true}"#.utf8))
        try add("Takeout/Keep/Labels.json", Data(#"{"labels": ["Home"]}"#.utf8))
        let zip = try #require(archive.data)

        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let started = try await api.upload(.post, "/api/v1/notes/imports?format=keep", bytes: zip, contentType: "application/zip", token: token)
            #expect(started.status == 202)
            let job = try await finished(api, token, try #require(started.headers[.location]))
            #expect(job["state"] as? String == "succeeded" && job["imported"] as? Int == 2 && job["photos"] as? Int == 1)
            #expect(job["skipped"] as? Int == 1 && job["problemCount"] as? Int == 1 && job["progressTotal"] as? Int == 4)
            let problems = job["problems"] as? [[String: any Sendable]] ?? []
            let message = problems.first?["message"] as? String ?? ""
            #expect(message.contains("not a Keep note"))
            let list = try await api.send(.get, "/api/v1/notes", token: token).items
            let byTitle = Dictionary(uniqueKeysWithValues: list.map { ($0["title"] as? String ?? "", $0) })
            #expect(Set(byTitle.keys) == ["Shopping", "Holiday"])
            #expect(byTitle["Shopping"]?["text"] as? String == "☑ milk\n☐ bread" && byTitle["Shopping"]?["category"] as? String == "Home")
            #expect(byTitle["Shopping"]?["date"] as? String == "2024-01-31")
            #expect(byTitle["Holiday"]?["photo"] as? String != nil && byTitle["Holiday"]?["date"] as? String == "2023-11-15")
        }
    }

    @Test("a file that is not what it claims is refused at once, with nothing written", arguments: [
        ("enex", "<html><body>hi</body></html>", "not an Evernote export"),
        ("keep", "<en-export/>", "not a Google Takeout zip"),
        ("pdf", "x", "'format' is enex"),
    ])
    func refused(_ format: String, _ body: String, _ message: String) async throws {
        try await TestApp.run(yaml: Self.yaml) { api, _ in
            let (token, _) = try await api.signUp("ada")
            let reply = try await api.upload(.post, "/api/v1/notes/imports?format=\(format)", bytes: Data(body.utf8), token: token)
            #expect([400, 422].contains(reply.status) && reply.text.contains(message), "\(reply.text)")
            #expect(try await api.send(.get, "/api/v1/notes", token: token).items.isEmpty)
            #expect(try await api.upload(.post, "/api/v1/notes/imports?format=enex", bytes: Data(body.utf8)).status == 401)
        }
    }
}
