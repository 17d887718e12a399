import AlbumAPI
import AppHost
import Bus
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

@Suite("iRemember: the album over HTTP")
struct AlbumAPITests {
    let photos: Photos
    init() throws { photos = try Photos() }

    @Test("a JPEG with EXIF GPS lands in its city's place folder, dated by its EXIF time, with no other call")
    func exifPlace() async throws {
        let jpeg = try await photos.jpeg(latitude: 49.2827, longitude: -123.1207, taken: "2024:05:03 14:22:10")
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let photo = try await client.addPhoto(jpeg, token: token, query: "source=camera")
            let id = try #require(photo[string: "id"])
            #expect(photo[string: "takenAt"] == "2024-05-03T14:22:10+00:00", "EXIF has no zone: the album's (UTC here) is given")
            #expect(photo[string: "takenAtSource"] == "exif")
            let place = try #require(photo[object: "place"])
            #expect(place[string: "city"] == "Vancouver")
            #expect(place[string: "label"] == "Vancouver, British Columbia, Canada")

            let folders = try await client.send(.get, "/api/v1/album/folders/places", token: token)
            #expect(folders.items.map { $0["label"] as? String } == ["Vancouver, British Columbia, Canada"])
            #expect(folders.items.first?["count"] as? Int == 1)
            let key = try #require(folders.items.first?["key"] as? String)
            #expect(try await client.photoIDs("/api/v1/album/folders/places/\(key)", token: token) == [id])
            // geo has the photo, and (from media's event) the image itself.
            let near = try await client.send(.get, "/api/v1/geo/near?lat=49.28&lon=-123.12&radiusKm=1&kind=album.photos", token: token)
            #expect(near.items.compactMap { ($0["geotag"] as? [String: any Sendable])?["subject"] as? String } == ["album.photos/\(id)"])
        }
    }

    @Test("an EXIF photo is one place in geo, the photo's, and deleting the photo takes it")
    func exifGeotagOnce() async throws {
        let jpeg = try await photos.jpeg(seed: 3, latitude: 35.6895, longitude: 139.6917)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            // Media's ingest event is handled asynchronously: give a wrong geotag time to appear.
            try await Task.sleep(for: .milliseconds(300))
            let near = try await client.send(.get, "/api/v1/geo/near?lat=35.69&lon=139.69&radiusKm=1", token: token).items
            #expect(near.compactMap { ($0["geotag"] as? [String: any Sendable])?["subject"] as? String } == ["album.photos/\(id)"])
            let edited = try await client.send(.patch, "/api/v1/album/photos/\(id)", json: ["notes": "Tokyo with Tom"], token: token)
            #expect(edited.status == 200)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(id)", token: token).status == 200)
            #expect(try await client.send(.delete, "/api/v1/album/photos/\(id)", token: token).status == 204)
            let after = try await client.send(.get, "/api/v1/geo/near?lat=35.69&lon=139.69&radiusKm=1", token: token).items
            #expect(after.isEmpty)
        }
    }

    @Test("without EXIF: the client's clock and location at capture, else the upload time and no place")
    func clientCapture() async throws {
        let plain = try await photos.jpeg(seed: 1)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let captured = try await client.addPhoto(plain, token: token, query: "takenAt=2023-12-24T18:05&lat=48.8566&lon=2.3522&accuracy=30")
            #expect(captured[string: "takenAt"] == "2023-12-24T18:05:00+00:00")
            #expect(captured[string: "takenAtSource"] == "device")
            // A time with its offset keeps it (RFC 3339 out as in).
            let zoned = try await client.addPhoto(try await photos.jpeg(seed: 3), token: token, query: "takenAt=2024-05-03T14:22:00%2B01:00")
            #expect(zoned[string: "takenAt"] == "2024-05-03T14:22:00+01:00")
            #expect(captured[object: "place"]?[string: "city"] == "Paris")
            #expect(captured[object: "location"]?[string: "source"] == "device")
            let bare = try await client.addPhoto(try await photos.jpeg(seed: 2), token: token)
            #expect(bare[string: "takenAtSource"] == "upload")
            #expect(bare["place"] == nil)
        }
    }

    @Test("tags are forgiving single words, counted, most used first")
    func tags() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let first = try await client.addPhoto(try await photos.jpeg(seed: 1), token: token, query: "tags=%23Beach,%20sunset%20Dog")
            #expect(first["tags"] as? [String] == ["Beach", "sunset", "Dog"])
            _ = try await client.addPhoto(try await photos.jpeg(seed: 2), token: token, query: "tags=dog")
            let counts = try await client.send(.get, "/api/v1/album/tags", token: token).items
            #expect(counts.map { $0["key"] as? String } == ["dog", "beach", "sunset"])
            #expect(counts.map { $0["count"] as? Int } == [2, 1, 1])
        }
    }

    /// Six photos over three days; ids by name.
    func seedSearch(_ client: APIClient, _ token: String) async throws -> [String: String] {
        let spec: [(String, String, String)] = [
            ("a", "2024-05-01T09:00", "beach,dog"), ("b", "2024-05-01T12:30", "beach"), ("c", "2024-05-02T08:15", "dog,park"),
            ("d", "2024-05-02T08:16", "park"), ("e", "2024-05-03T20:00", "beach,work"), ("f", "2024-06-01T10:00", "dog"),
        ]
        var ids: [String: String] = [:]
        for (index, (name, time, tags)) in spec.enumerated() {
            let photo = try await client.addPhoto(try await photos.jpeg(seed: index), token: token, query: "takenAt=\(time)&tags=\(tags)")
            ids[name] = photo[string: "id"]
        }
        return ids
    }

    @Test("search: + tags (any or all), − tags, a time range to the minute, either order, cursor pages")
    func search() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let ids = try await seedSearch(client, token)
            func names(_ query: String) async throws -> [String] {
                let found = try await client.photoIDs("/api/v1/album/photos?\(query)", token: token)
                return found.map { id in ids.first { $0.value == id }?.key ?? "?" }
            }
            #expect(try await names("") == ["a", "b", "c", "d", "e", "f"])
            #expect(try await names("tags=beach") == ["a", "b", "e"])
            #expect(try await names("tags=beach%20dog") == ["a", "b", "c", "e", "f"])
            #expect(try await names("tags=beach%20dog&match=all") == ["a"])
            #expect(try await names("tags=beach%20-work") == ["a", "b"])
            #expect(try await names("tags=-dog") == ["b", "d", "e"])
            #expect(try await names("tags=%2Bdog%20-park&from=2024-05-01&to=2024-05-31") == ["a"])
            #expect(try await names("from=2024-05-02T08:15&to=2024-05-02T08:15") == ["c"])
            #expect(try await names("from=2024-05-02T08:16") == ["d", "e", "f"])
            #expect(try await names("tags=dog&order=desc") == ["f", "c", "a"])

            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.send(.get, "/api/v1/album/photos?tags=dog%20beach&limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                seen += page.items.compactMap { item in ids.first { $0.value == item["id"] as? String }?.key }
                cursor = page["nextCursor"]
            } while cursor != nil
            #expect(seen == ["a", "b", "c", "e", "f"])
        }
    }

    @Test("month folders and recent days, newest first")
    func folders() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let ids = try await seedSearch(client, token)
            let months = try await client.send(.get, "/api/v1/album/folders/months", token: token).items
            #expect(months.map { $0["key"] as? String } == ["2024-06", "2024-05"])
            #expect(months.map { $0["label"] as? String } == ["June 2024", "May 2024"])
            #expect(months.map { $0["count"] as? Int } == [1, 5])
            #expect(try await client.photoIDs("/api/v1/album/folders/months/2024-06", token: token) == [ids["f"]].compactMap { $0 })
            let recent = try await client.send(.get, "/api/v1/album/recent?days=2", token: token).items
            #expect(recent.map { $0["key"] as? String } == ["2024-06-01", "2024-05-03"])
        }
    }

    @Test("a caption change sent again with its Idempotency-Key is answered with the photo as it is, not merged again over a later one")
    func editSentAgain() async throws {
        let jpeg = try await photos.jpeg(seed: 7)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let path = "/api/v1/album/photos/\(id)"
            let key = HTTPField.Name("Idempotency-Key")!
            let a = try await client.send(.patch, path, json: ["notes": "Mum at the beach"], token: token, headers: [.ifMatch: "\"1\"", key: "edit-a"])
            #expect(a.status == 200)
            let b = try await client.send(.patch, path, json: ["notes": "Mum and Dad at the beach"], token: token, headers: [.ifMatch: "\"1\"", key: "edit-b"])
            #expect((b.json["replaced"] as? [String: any Sendable])?["notes"] as? String == "Mum at the beach", "the later change says what it replaced")
            // The first phone's outbox sends its change again (a reload cut its answer off).
            let again = try await client.send(.patch, path, json: ["notes": "Mum at the beach"], token: token, headers: [.ifMatch: "\"1\"", key: "edit-a"])
            #expect(again.status == 200)
            #expect(again["notes"] == "Mum and Dad at the beach", "the photo as it is: the first change is not made a second time")
            #expect(again.json["replaced"] == nil)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(try await client.send(.get, path, token: token)["notes"] == "Mum and Dad at the beach")
            let reused = try await client.send(.patch, path, json: ["notes": "something else"], token: token, headers: [key: "edit-a"])
            #expect(reused.status == 409, "the key reused for another change")
        }
    }

    @Test("editing tags, time and location moves a photo between searches, folders and counts; deleting removes it")
    func editAndDelete() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let ids = try await seedSearch(client, token)
            let a = try #require(ids["a"])
            let edited = try await client.send(.patch, "/api/v1/album/photos/\(a)",
                                               json: ["tags": ["Cat"], "takenAt": "2024-06-15T10:00", "notes": "Grandma's garden",
                                                      "location": ["latitude": 51.5074, "longitude": -0.1278] as [String: any Sendable]]
                                                   as [String: any Sendable], token: token)
            #expect(edited.status == 200)
            #expect(edited.json["tags"] as? [String] == ["Cat"])  // as typed; ?tags=cat finds it (below)
            #expect((edited.json["place"] as? [String: any Sendable])?["city"] as? String == "London")
            #expect(try await client.photoIDs("/api/v1/album/photos?tags=beach", token: token) == [ids["b"], ids["e"]].compactMap { $0 })
            #expect(try await client.photoIDs("/api/v1/album/photos?tags=cat", token: token) == [a])
            let months = try await client.send(.get, "/api/v1/album/folders/months", token: token).items
            #expect(months.map { $0["count"] as? Int } == [2, 4])
            let tags = try await client.send(.get, "/api/v1/album/tags", token: token).items
            #expect(tags.first { $0["key"] as? String == "beach" }?["count"] as? Int == 2)

            // An edit based on version 1 merges into what changed since (tags, time, place stay).
            let merged = try await client.send(.patch, "/api/v1/album/photos/\(a)", json: ["notes": "x"], token: token, headers: [.ifMatch: "\"1\""])
            #expect(merged.status == 200)
            #expect(merged["notes"] == "x")
            #expect((merged.json["place"] as? [String: any Sendable])?["city"] as? String == "London")
            let stale = try await client.send(.patch, "/api/v1/album/photos/\(a)", json: ["notes": "y"], token: token, headers: [.ifMatch: "\"99\""])
            #expect(stale.status == 412)

            #expect(try await client.send(.delete, "/api/v1/album/photos/\(a)", token: token).status == 204)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(a)", token: token).status == 404)
            #expect(try await client.photoIDs("/api/v1/album/photos?tags=cat", token: token).isEmpty)
            let after = try await client.send(.get, "/api/v1/album/tags", token: token).items
            #expect(!after.contains { $0["key"] as? String == "cat" })
            let places = try await client.send(.get, "/api/v1/album/folders/places", token: token).items
            #expect(places.isEmpty)
            let near = try await client.send(.get, "/api/v1/geo/near?lat=51.5&lon=-0.12&radiusKm=5&kind=album.photos", token: token).items
            #expect(near.isEmpty)
        }
    }

    @Test("a slideshow shows every photo once, in random order, over the album or a search")
    func slideshow() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let ids = try await seedSearch(client, token)
            var orders: Set<[String]> = []
            for _ in 0..<8 {
                let show = try await client.send(.get, "/api/v1/album/slideshow", token: token)
                let order = (show.json["items"] as? [Any] ?? []).compactMap { $0 as? String }
                #expect(show.json["nextCursor"] is NSNull)
                #expect(order.count == 6)
                #expect(Set(order) == Set(ids.values))
                orders.insert(order)
            }
            #expect(orders.count > 1, "eight shuffles of six photos all came out the same")
            let dogs = try await client.send(.get, "/api/v1/album/slideshow?tags=dog", token: token)
            #expect(Set((dogs.json["items"] as? [Any] ?? []).compactMap { $0 as? String }) == Set([ids["a"], ids["c"], ids["f"]].compactMap { $0 }))
            // Pages of two come from one shuffled order: the cursor carries its seed.
            var paged: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.send(.get, "/api/v1/album/slideshow?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                paged += (page.json["items"] as? [Any] ?? []).compactMap { $0 as? String }
                cursor = page.json["nextCursor"] as? String
            } while cursor != nil
            #expect(paged.count == 6 && Set(paged) == Set(ids.values))
        }
    }

    @Test("the mark-up is drawn over the photo and the original is kept")
    func markup() async throws {
        let jpeg = try await photos.jpeg(seed: 5)
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let id = try #require(try await client.addPhoto(jpeg, token: token)[string: "id"])
            let points: [[String: any Sendable]] = [["x": 0.1, "y": 0.1], ["x": 0.9, "y": 0.9]]
            let stroke: [String: any Sendable] = ["color": "#ff0000", "width": 0.02, "points": points]
            let text: [String: any Sendable] = ["text": "Lucy's birthday", "x": 0.1, "y": 0.8]
            let drawing: [String: any Sendable] = ["strokes": [stroke], "texts": [text]]
            let saved = try await client.send(.put, "/api/v1/album/photos/\(id)/markup", json: drawing, token: token)
            #expect(saved.status == 200)
            #expect(saved.json["hasMarkup"] as? Bool == true)
            let loaded = try await client.send(.get, "/api/v1/album/photos/\(id)/markup", token: token)
            #expect((loaded.json["texts"] as? [[String: any Sendable]])?.first?["text"] as? String == "Lucy's birthday")
            let marked = try await client.send(.get, "/api/v1/album/photos/\(id)/marked", token: token)
            #expect(marked.status == 200)
            #expect(marked.contentType == "image/png")
            let original = try await client.send(.get, "/api/v1/album/photos/\(id)/image", token: token)
            #expect(original.body == jpeg)
            let cleared = try await client.send(.delete, "/api/v1/album/photos/\(id)/markup", token: token)
            #expect(cleared.json["hasMarkup"] as? Bool == false)
        }
    }

    @Test("another user's photos are 404 on every route, and absent from every list")
    func isolation() async throws {
        try await IRemember.run { client, _ in
            let alice = try await client.getStarted()
            let bob = try await client.getStarted()
            let id = try #require(try await client.addPhoto(try await photos.jpeg(seed: 7, latitude: 48.85, longitude: 2.35), token: alice,
                                                            query: "tags=secret")[string: "id"])
            let routes: [(HTTPRequest.Method, String, (any Sendable)?)] = [
                (.get, "/api/v1/album/photos/\(id)", nil), (.patch, "/api/v1/album/photos/\(id)", ["notes": "mine now"]),
                (.delete, "/api/v1/album/photos/\(id)", nil), (.get, "/api/v1/album/photos/\(id)/image", nil),
                (.get, "/api/v1/album/photos/\(id)/image/thumb", nil), (.get, "/api/v1/album/photos/\(id)/markup", nil),
                (.put, "/api/v1/album/photos/\(id)/markup", ["strokes": [String]()]), (.delete, "/api/v1/album/photos/\(id)/markup", nil),
                (.get, "/api/v1/album/photos/\(id)/marked", nil), (.post, "/api/v1/album/photos/\(id)/share", ["expiresInSeconds": 60]),
            ]
            for (method, path, body) in routes {
                let reply = try await client.send(method, path, json: body, token: bob)
                #expect(reply.status == 404, "\(method) \(path): \(reply.status)")
            }
            #expect(try await client.photoIDs("/api/v1/album/photos", token: bob).isEmpty)
            #expect(try await client.photoIDs("/api/v1/album/photos?tags=secret", token: bob).isEmpty)
            #expect(try await client.send(.get, "/api/v1/album/tags", token: bob).items.isEmpty)
            #expect(try await client.send(.get, "/api/v1/album/folders/places", token: bob).items.isEmpty)
            #expect(try await client.send(.get, "/api/v1/geo/near?lat=48.85&lon=2.35&radiusKm=5", token: bob).items.isEmpty)
            #expect(try await client.send(.get, "/api/v1/album/photos/\(id)", token: alice).status == 200)
            #expect(try await client.send(.get, "/api/v1/album/photos").status == 401)
        }
    }

    @Test("URL import: from the web into mark-up; private addresses, redirects to them and oversize bodies refused")
    func urlImport() async throws {
        let jpeg = try await photos.jpeg(seed: 9, latitude: 40.7128, longitude: -74.0060)
        try await TestWebServer.run(files: ["nyc.jpg": jpeg]) { server in
            try await IRemember.run { client, _ in
                let token = try await client.getStarted()
                let url = server.redirect(to: "\(server.base)/files/nyc.jpg")
                let imported = try await client.send(.post, "/api/v1/album/photos/import", json: ["url": url, "tags": ["trip"]] as [String: any Sendable], token: token)
                #expect(imported.status == 201, "\(imported.text)")
                let photo = try #require(imported.json["photo"] as? [String: any Sendable])
                #expect(photo[string: "source"] == "url")
                #expect(photo[string: "sourceURL"] == url)
                #expect(photo[object: "place"]?[string: "city"] == "New York City")
                #expect((imported.json["markup"] as? [String: any Sendable])?["width"] as? Int == 320)

                for target in ["http://127.0.0.1/", "http://[::1]/", "http://10.0.0.1/", "http://169.254.169.254/", "http://[::ffff:127.0.0.1]/",
                               "http://localhost/"] {
                    for url in [target, server.redirect(to: target)] {
                        let refused = try await client.send(.post, "/api/v1/album/photos/import", json: ["url": url], token: token)
                        #expect(refused.status == 403, "\(url): \(refused.status) \(refused.text)")
                        #expect(refused.json["reason"] as? String == "address_not_public")
                    }
                }
                let big = try await client.send(.post, "/api/v1/album/photos/import", json: ["url": "\(server.base)/big?bytes=\(50 << 20)"], token: token)
                #expect(big.status == 413)
                let ftp = try await client.send(.post, "/api/v1/album/photos/import", json: ["url": "ftp://example.org/a.jpg"], token: token)
                #expect(ftp.status == 422)
                #expect(try await client.photoIDs("/api/v1/album/photos", token: token).count == 1)
            }
        }
    }

    @Test("bad input gets a clear error naming the field")
    func badInput() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let jpeg = try await photos.jpeg(seed: 4)
            for (query, field) in [("takenAt=yesterday", "takenAt"), ("lat=48.8", "latitude"), ("lat=91&lon=0", "latitude"),
                                   ("lat=0&lon=181", "longitude"), ("source=fax", "source")] {
                let reply = try await client.upload(.post, "/api/v1/album/photos?\(query)", bytes: jpeg, contentType: "image/jpeg", token: token)
                #expect([400, 422].contains(reply.status), "\(query): \(reply.status)")
                #expect(reply.json["field"] as? String == field, "\(query): \(reply.text)")
            }
            for (query, field) in [("from=2024-05-02&to=2024-05-01", "from"), ("from=someday", "from"), ("cursor=xyz", "cursor"),
                                   ("match=most", "match"), ("order=sideways", "order")] {
                let reply = try await client.send(.get, "/api/v1/album/photos?\(query)", token: token)
                #expect([400, 422].contains(reply.status), "\(query): \(reply.status)")
                #expect(reply.json["field"] as? String == field, "\(query): \(reply.text)")
            }
            let notImage = try await client.upload(.post, "/api/v1/album/photos", bytes: Data("hello".utf8), contentType: "image/jpeg", token: token)
            #expect(notImage.status == 415 || notImage.status == 422)
            #expect(try await client.photoIDs("/api/v1/album/photos", token: token).isEmpty)
        }
    }
}

@Suite("iRemember: importing photo records")
struct AlbumImportTests {
    @Test("records of stored images join the album with their folders, counts, places and geotags; unknown images are refused")
    func importRecords() async throws {
        let jpeg = try await Photos().jpeg(seed: 30)
        try await IRemember.run { client, host in
            let token = try await client.getStarted()
            let uploaded = try await client.addPhoto(jpeg, token: token, query: "takenAt=2020-01-01T00:00")
            let me = try await client.send(.get, "/api/v1/auth/me", token: token)
            let owner = try #require(me["accountId"] ?? me["id"])
            // The original's ETag is its SHA-256, the image's address in storage.
            let original = try await client.send(.get, "/api/v1/album/photos/\(try #require(uploaded[string: "id"]))/image", token: token)
            let sha = try #require(original.headers[.eTag]?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            var records: [ImportPhotoRecords.Photo] = []
            for index in 0..<150 {
                let month = String(format: "2021-%02d-10T12:00", index % 12 + 1)
                let located = index % 2 == 0
                records.append(ImportPhotoRecords.Photo(image: sha, takenAt: month, tags: ["t\(index % 7)", "all"],
                                                        latitude: located ? 45.5017 : nil, longitude: located ? -73.5673 : nil))
            }
            let ids = try await host.bus.request(ImportPhotoRecords(owner: owner, photos: records)).ids
            #expect(ids.count == 150 && Set(ids).count == 150)
            let tags = try await client.send(.get, "/api/v1/album/tags", token: token).items
            #expect(tags.first?["key"] as? String == "all" && tags.first?["count"] as? Int == 150)
            let places = try await client.send(.get, "/api/v1/album/folders/places", token: token).items
            #expect(places.first?["label"] as? String == "Montréal, Quebec, Canada" && places.first?["count"] as? Int == 75)
            let near = try await client.send(.get, "/api/v1/geo/near?lat=45.5&lon=-73.57&radiusKm=1&kind=album.photos&limit=1000", token: token).items
            #expect(near.count == 75)
            let january = try await client.photoIDs("/api/v1/album/folders/months/2021-01?limit=500", token: token)
            #expect(january.count == 13)
            records[0].image = String(repeating: "0", count: 64)
            await #expect(throws: BusError.self) { try await host.bus.request(ImportPhotoRecords(owner: owner, photos: records)) }
            #expect(try await client.send(.get, "/api/v1/album/tags", token: token).items.first?["count"] as? Int == 150, "nothing of a refused import is kept")
        }
    }
}
