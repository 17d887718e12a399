import AppHost
import AppHostTestKit
import Bus
import Foundation
import Geo
import GeoAPI
import HTTPTypes
import StorageAPI
import Testing

@Suite("Geo: the offline gazetteer")
struct GazetteerTests {
    @Test("a point gets the city a person would name, its region and country", arguments: [
        (48.8584, 2.2945, "Paris", "France"), (49.2827, -123.1207, "Vancouver", "Canada"), (35.6762, 139.6503, "Tokyo", "Japan"),
        (-33.8688, 151.2093, "Sydney", "Australia"), (-18.1416, 178.4419, "Suva", "Fiji"), (40.7580, -73.9855, "New York City", "United States"),
    ])
    func places(_ latitude: Double, _ longitude: Double, _ city: String, _ country: String) async throws {
        let place = try #require(try await Gazetteer.load(path: nil).place(at: GeoPoint(latitude: latitude, longitude: longitude)))
        #expect(place.city == city)
        #expect(place.country == country)
        #expect(place.distanceMeters < 20_000)
    }

    @Test("far from any town: the nearest place, however far")
    func remote() async throws {
        let place = try #require(try await Gazetteer.load(path: nil).place(at: GeoPoint(latitude: -54.28, longitude: -36.5)))  // South Georgia
        #expect(!place.city.isEmpty)
        #expect(place.distanceMeters > 0)
    }

    @Test("a damaged file says where and what to do")
    func damaged() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-\(UUID().uuidString).tsv")
        try Data("C\tFR\tFrance\nP\t1\tnot-a-number\t2\tX\tFR\t\t5\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: Gazetteer.LoadError.self) { try Gazetteer(contentsOf: url) }
    }
}

@Suite("Geo: geotags over HTTP")
struct GeoAPITests {
    /// iRemember with notes too: a subject of a kind some plugin offers (`notes/<id>`).
    static let withNotes = TestApp.yaml(app: "iremember-test", extraPlugins: IRemember.plugins() + "  notes: {}\n")

    @Test("set, read, move and remove a geotag; impossible values refused")
    func geotags() async throws {
        try await IRemember.run(yaml: Self.withNotes) { client, _ in
            let token = try await client.getStarted()
            let n1 = try #require(try await client.send(.post, "/api/v1/notes", json: ["title": "here"], token: token)["id"])
            let set = try await client.send(.put, "/api/v1/geo/tags", json: ["subject": "notes/\(n1)", "latitude": 45.5, "longitude": -73.56,
                                                                            "accuracy": 12, "altitude": 30] as [String: any Sendable], token: token)
            #expect(set.status == 200)
            let read = try await client.send(.get, "/api/v1/geo/tags?subject=notes/\(n1)", token: token)
            #expect(read.json["latitude"] as? Double == 45.5)
            #expect(read.json["source"] as? String == "user")
            _ = try await client.send(.put, "/api/v1/geo/tags", json: ["subject": "notes/\(n1)", "latitude": 46.8, "longitude": -71.2] as [String: any Sendable],
                                      token: token)
            #expect(try await client.send(.get, "/api/v1/geo/tags?subject=notes/\(n1)", token: token).json["latitude"] as? Double == 46.8)
            for bad: [String: any Sendable] in [["subject": "notes/\(n1)", "latitude": 91, "longitude": 0], ["subject": "notes/\(n1)", "latitude": 0, "longitude": 180.5],
                                                ["subject": "notes/\(n1)", "latitude": 0, "longitude": 0, "accuracy": -1],
                                                ["subject": "no-kind", "latitude": 0, "longitude": 0],
                                                ["subject": "notes/\(n1)", "latitude": 0, "longitude": 0, "altitude": 1e9]] {
                let reply = try await client.send(.put, "/api/v1/geo/tags", json: bad, token: token)
                #expect(reply.status == 422, "\(bad): \(reply.status)")
                #expect(reply.json["field"] != nil)
            }
            #expect(try await client.send(.delete, "/api/v1/geo/tags?subject=notes/\(n1)", token: token).status == 204)
            #expect(try await client.send(.get, "/api/v1/geo/tags?subject=notes/\(n1)", token: token).status == 404)
            #expect(try await client.send(.delete, "/api/v1/geo/tags?subject=notes/\(n1)", token: token).status == 404)
            #expect(try await client.send(.get, "/api/v1/geo/near?lat=1&lon=1&radiusKm=1").status == 401)
        }
    }

    @Test("radius, box across the meridian and nearest N, nearest first, one kind or all, only mine")
    func queries() async throws {
        try await IRemember.run { client, host in
            // Set over the bus, as the plugins that own these subjects do (a user's PUT is of a kind
            // some plugin offers, checked with it: see SubjectRulesTests).
            func account() async throws -> (token: String, owner: String) {
                let reply = try await client.send(.post, "/api/v1/auth/device")
                guard let token = reply["access_token"], let owner = reply["accountId"] else { throw TestAppFailure("device sign-up: \(reply.text)") }
                return (token, owner)
            }
            let (token, owner) = try await account()
            let (_, other) = try await account()
            let points: [(String, Double, Double)] = [("pins/a", -17.0, 179.9), ("pins/b", -17.0, -179.9), ("pins/c", -17.5, 178.0),
                                                      ("notes/d", -17.0, 179.95)]
            for (subject, lat, lon) in points {
                _ = try await host.bus.request(SetGeotag(owner: owner, geotag: Geotag(subject: subject, latitude: lat, longitude: lon)))
            }
            _ = try await host.bus.request(SetGeotag(owner: other, geotag: Geotag(subject: "pins/z", latitude: -17.0, longitude: 179.9)))
            func subjects(_ query: String) async throws -> [String] {
                try await client.send(.get, "/api/v1/geo/\(query)", token: token).items.compactMap {
                    ($0["geotag"] as? [String: any Sendable])?["subject"] as? String
                }
            }
            #expect(try await subjects("near?lat=-17&lon=179.92&radiusKm=20&kind=pins") == ["pins/a", "pins/b"])
            #expect(try await subjects("near?lat=-17&lon=179.92&radiusKm=20") == ["pins/a", "notes/d", "pins/b"])
            #expect(try await subjects("box?south=-18&west=179&north=-16&east=-179&kind=pins") == ["pins/a", "pins/b"])
            #expect(try await subjects("nearest?lat=-17.5&lon=178.1&limit=2&kind=pins") == ["pins/c", "pins/a"])
            let bad = try await client.send(.get, "/api/v1/geo/near?lat=-17&lon=179&radiusKm=-1", token: token)
            #expect(bad.status == 422)
            #expect(try await client.send(.get, "/api/v1/geo/near?lat=x&lon=1&radiusKm=1", token: token).status == 400)
        }
    }

    @Test("place names over HTTP")
    func place() async throws {
        try await IRemember.run { client, _ in
            let token = try await client.getStarted()
            let paris = try await client.send(.get, "/api/v1/geo/place?lat=48.8566&lon=2.3522", token: token)
            #expect(paris.json["city"] as? String == "Paris")
            #expect(paris.json["label"] as? String == "Paris, Ile-de-France, France")
            #expect(try await client.send(.get, "/api/v1/geo/place?lat=95&lon=0", token: token).status == 422)
        }
    }
}
