import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import NIOCore
@testable import Notes
import StorageAPI
import Testing

/// The list of notes is written by storage straight from its rows (`RecordJSON`, SQLite's
/// `queryJSON`); these check that it is byte for byte what the note encoder (`NoteJSON.write`)
/// writes for the same records: unicode, escapes, every optional field, attachments, odd dates,
/// pages and their cursors.
@Suite("Note list written from storage's rows")
struct NoteListJSONTests {
    /// Text that needs every kind of escape, and characters of every UTF-8 length.
    static let awkward = "quote \" backslash \\ slash / newline \n return \r tab \t bell \u{7} unit \u{1F} del \u{7F} "
        + "café ☕ 日本語 👩‍👩‍👧 \u{2028} end"

    /// A note with every field set, as the photo, drawing, voice, photo-text and import features leave it.
    static func fullNote(position: String) -> NoteData {
        var data = NoteData(title: awkward, text: "line one\nline two \"quoted\"", date: "2026-11-26", position: position)
        data.photo = String(repeating: "a", count: 64)
        data.drawing = String(repeating: "b", count: 64)
        data.category = "Work ☕"
        data.importJob = "j_import1"
        data.photoPlace = PhotoPlace(latitude: 48.858_37, longitude: -2.294_481)
        data.voice = String(repeating: "c", count: 64)
        data.voiceMs = 12_345
        data.photoText = "THE TEXT\tIN THE PHOTO\n"
        data.photoTextState = "read"
        data.photoTextJob = "j_text1"
        return data
    }

    @Test("records of any shape and date: storage's page is the bytes the note encoder writes")
    func pageOfRecords() throws {
        let dates: [Double] = [0, -1.5, 1, 1_764_172_800.999, 1_764_172_800, 253_402_300_799, 253_402_300_800, -62_167_219_200,
                               -62_167_219_201, 4_102_444_800.5, 951_782_400, 1e12,
                               // The same second, one record after the other (storage keeps the last one written).
                               1e12 + 0.75, 1_764_172_800.25, -2, -1, .nan, .nan, .infinity, -.infinity]
        var records: [Record] = []
        for (index, created) in dates.enumerated() {
            let payload: JSONDocument = switch index % 4 {
            case 0: try JSONDocument(encoding: Self.fullNote(position: "a\(index)"))
            case 1: try JSONDocument(encoding: NoteData(title: Self.awkward, text: "", date: "2026-01-01", position: "b\(index)"))
            case 2: JSONDocument(trustedBytes: Data("{}".utf8))
            default: JSONDocument(trustedBytes: Data(#"{"nested":{"a":[1,2.5,"x\"y"],"b":null},"u":"\u00e9"}"#.utf8))
            }
            records.append(Record(collection: "notes.notes", id: index == 3 ? "n_\"odd\\id\u{1}" : "n_\(index)", owner: "ada",
                                  version: [1, 2, Int64.max, 1_000_000_007][index % 4],
                                  createdAt: Date(timeIntervalSince1970: created),
                                  updatedAt: Date(timeIntervalSince1970: dates[(index + 5) % dates.count]), data: payload))
        }
        for cursor in [nil, "eyJ2IjpbXX0", "a \"cursor\""] as [String?] {
            let page = RecordPage(records: records, nextCursor: cursor)
            let expected = NoteJSON.listBytes(page)
            let written = NoteJSON.listBytes(RecordJSON.page(page))
            #expect(String(buffer: written) == String(buffer: expected))
        }
        let empty = RecordPage(records: [], nextCursor: nil)
        #expect(String(buffer: NoteJSON.listBytes(RecordJSON.page(empty))) == String(buffer: NoteJSON.listBytes(empty)))
        #expect(String(buffer: NoteJSON.listBytes(RecordJSON.page(empty))) == #"{"items":[],"nextCursor":null}"#)
    }

    static let postgresURL = ProcessInfo.processInfo.environment["QUIRE_TEST_POSTGRES_URL"]

    @Test("GET /notes with the page cache off: SQLite's rows written straight out are the encoder's bytes, page by page",
          arguments: ["sqlite", "memory"])
    func listedAsEncoded(storage: String) async throws {
        try await listed(storage)
    }

    @Test("the same on PostgreSQL (storage writes its records out after the query)",
          .enabled(if: postgresURL != nil, "no PostgreSQL server: run tools/test, or tools/postgres start"))
    func listedAsEncodedOnPostgres() async throws {
        try await listed("postgres")
    }

    func listed(_ storage: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-list-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend: String
        switch storage {
        case "sqlite": backend = "{ backend: sqlite, path: \(directory.path)/notes.sqlite, blobs: \(directory.path)/blobs, blob_grace_seconds: 0 }"
        case "postgres":
            let url = try #require(Self.postgresURL)
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
            let full = url + (url.contains("?") ? "&" : "?") + "sslmode=disable&search_path=\(schema)"
            backend = "{ backend: postgres, url: '\(full)', blobs: \(directory.path)/blobs, blob_grace_seconds: 0 }"
        default: backend = "{ backend: memory, blob_grace_seconds: 0 }"
        }
        let yaml = TestApp.yaml(extraPlugins: TestApp.napkinPlugins(notes: "{ list_cache_bytes: 0, categories: true }"), storage: backend)
        try await TestApp.run(yaml: yaml) { api, host in
            let (token, _) = try await api.signUp("ada")
            // PostgreSQL's jsonb refuses U+0000 in a string (the create answers 500 there; not the list's concern).
            let nul = storage == "postgres" ? "x\u{1}y" : "x\u{0}y"
            for (title, text) in [("plain", "a quick note"), (Self.awkward, Self.awkward), ("", ""), ("emoji 👩‍👩‍👧", nul)] {
                let created = try await api.send(.post, "/api/v1/notes", json: ["title": title, "text": text, "category": "Ideas"], token: token)
                #expect(created.status == 201, "\(created.text)")
            }
            let store = BusRecordStore(bus: host.bus)
            let any = try await store.query(RecordQuery(collection: NotesService.collection, owner: nil, order: [SortKey("position")], limit: 1))
            let owner = try #require(any.records.first?.owner)
            // Every optional field and the attachments, as the features that fill them write the note.
            for index in 0..<3 {
                let data = try JSONDocument(encoding: Self.fullNote(position: "zz\(index)"))
                _ = try await store.write(WriteBatch([.insert(collection: NotesService.collection, id: "n_full\(index)", owner: owner, data: data)]))
            }
            for limit in [100, 2, 1] {
                var cursor: String?
                var pages = 0
                repeat {
                    let query = cursor.map { "&cursor=\($0)" } ?? ""
                    let listed = try await api.send(.get, "/api/v1/notes?limit=\(limit)\(query)", token: token)
                    #expect(listed.status == 200)
                    let page = try await store.query(RecordQuery(collection: NotesService.collection, owner: owner, order: [SortKey("position")],
                                                                 limit: limit, cursor: cursor))
                    #expect(listed.text == String(buffer: NoteJSON.listBytes(page)), "limit \(limit), page \(pages)")
                    #expect(listed.json["nextCursor"] as? String == page.nextCursor)
                    cursor = page.nextCursor
                    pages += 1
                } while cursor != nil && pages < 20
                #expect(pages == (7 + limit - 1) / limit, "7 notes in pages of \(limit)")
            }
        }
    }
}
