import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

@Suite("/metrics")
struct MetricsTests {
    static let token = "metrics-token-0123456789"

    /// The value of the sample `name{labels…}` in Prometheus text (0 when absent).
    static func sample(_ text: String, _ name: String, _ labels: [String: String]) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") {
            guard let end = line.range(of: "} ", options: .backwards) else { continue }
            let found = Set(line[line.index(line.startIndex, offsetBy: name.count + 1)..<end.lowerBound].split(separator: ",").map(String.init))
            if Set(labels.map { "\($0.key)=\"\($0.value)\"" }).isSubset(of: found), let value = line.split(separator: " ").last.flatMap({ Double($0) }) {
                return value
            }
        }
        return 0
    }

    @Test("with server.metrics_token: requests by route, method and status, and bus requests by message, for the token only")
    func counts() async throws {
        let yaml = TestApp.yaml().replacingOccurrences(of: "server: { host: 127.0.0.1, port: 0 }",
                                                        with: "server: { host: 127.0.0.1, port: 0, metrics_token: \(Self.token) }")
        try await TestApp.run(yaml: yaml) { api, _ in
            #expect(try await api.send(.get, "/metrics").status == 401)
            #expect(try await api.send(.get, "/metrics", token: "wrong-token-0123456789").status == 401)
            let (user, _) = try await api.signUp("metered")
            let before = try await api.send(.get, "/metrics", token: Self.token).text
            for _ in 0..<7 {
                let listed = try await api.send(.get, "/api/v1/notes", token: user)
                #expect(listed.status == 200)
            }
            #expect(try await api.send(.get, "/api/v1/notes/nope", token: user).status == 404)
            let scrape = try await api.send(.get, "/metrics", token: Self.token)
            #expect(scrape.status == 200)
            #expect(scrape.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
            let after = scrape.text
            let ok = ["http_route": "/api/v1/notes", "http_request_method": "GET", "http_response_status_code": "200"]
            #expect(Self.sample(after, "hb_requests", ok) - Self.sample(before, "hb_requests", ok) == 7)
            let missing = ["http_route": "/api/v1/notes/{id}", "http_response_status_code": "404"]
            #expect(Self.sample(after, "hb_requests", missing) - Self.sample(before, "hb_requests", missing) == 1,
                    "\(after.split(separator: "\n").filter { $0.hasPrefix("hb_requests{") })")
            #expect(after.contains("http_server_request_duration_bucket{"))
            // Storage's latency is its bus request's; seven lists asked it once (a page as JSON, straight from its rows): the list cache answered the rest.
            let queries = ["message": "storage.record.query-json.v1", "outcome": "ok"]
            #expect(Self.sample(after, "quire_bus_requests", queries) - Self.sample(before, "quire_bus_requests", queries) == 1)
            #expect(after.contains("quire_bus_request_duration_count{message=\"storage.record.query-json.v1\"}"))
        }
    }

    @Test("without a token /metrics does not exist")
    func off() async throws {
        try await TestApp.run { api, _ in
            let scrape = try await api.send(.get, "/metrics")
            #expect(scrape.status == 404)
        }
    }
}
