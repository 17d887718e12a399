import AppHost
import AppHostTestKit
import AlbumAPI
import DeviceMonitorAPI
import NotebooksAPI
import AuthAPI
import GeoAPI
import ShareLinkAPI
import Bus
import Foundation
import HTTPKit
import HTTPTypes
import MediaAPI
import NotesAPI
import StorageAPI
import Testing
import VocabularyAPI
import Yams

@Suite("The host's HTTP surface")
struct HostRoutesTests {
    @Test("health and manifest are public; the manifest lists plugins, features and routes")
    func manifest() async throws {
        try await TestApp.run { api, _ in
            #expect(try await api.send(.get, "/health").status == 200)
            let manifest = try await api.send(.get, "/api/v1/manifest")
            #expect(manifest.status == 200)
            #expect(manifest["app"] == "test-app")
            let plugins = manifest.json["plugins"] as? [[String: any Sendable]] ?? []
            #expect(plugins.compactMap { $0["id"] as? String } == ["storage", "auth", "media", "drawing", "notes"])
            let notes = plugins.first { $0["id"] as? String == "notes" }
            let routes = notes?["routes"] as? [[String: any Sendable]] ?? []
            #expect(routes.contains { $0["path"] as? String == "/api/v1/notes/{id}/move" && $0["access"] as? String == "signed-in" })
        }
    }

    @Test("every route that is not explicitly public answers 401 without a token, with a problem document")
    func signedInByDefault() async throws {
        try await TestApp.run { api, host in
            let guarded = host.routes.filter { $0.access == .signedIn }
            #expect(guarded.count >= 8)
            for route in guarded {
                let path = route.path.replacingOccurrences(of: "{id}", with: "n_x")
                let reply = try await api.send(.init(route.method) ?? .get, path, json: "{}")
                #expect(reply.status == 401, "\(route.method) \(route.path)")
                #expect(reply.contentType == Problem.mediaType)
                #expect(reply["type"] == "urn:quire:problem:unauthenticated")
                #expect(reply.headers[.wwwAuthenticate] == "Bearer")
            }
        }
    }

    @Test("an unknown route is a 404 problem, not an empty page")
    func unknownRoute() async throws {
        try await TestApp.run { api, _ in
            let reply = try await api.send(.get, "/api/v1/nowhere")
            #expect(reply.status == 404)
            #expect(reply.contentType == Problem.mediaType)
            #expect(reply["code"] == "route_not_found")
        }
    }

    @Test("a query parameter a route does not take is refused with 400 naming it: GET /notes?q=milk does not list everything")
    func unknownQueryParameters() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("quinn")
            let search = try await api.send(.get, "/api/v1/notes?q=milk", token: token)
            #expect(search.status == 400)
            #expect(search["field"] == "q")
            #expect(search["detail"]?.contains("'limit'") == true)
            let typo = try await api.send(.get, "/api/v1/notes?limt=5&limit=5", token: token)
            #expect(typo.status == 400 && typo["field"] == "limt")
            #expect(try await api.send(.get, "/api/v1/notes?limit=5", token: token).status == 200)
            #expect(try await api.send(.get, "/api/v1/manifest?debug=1").status == 400)
        }
    }

    @Test("a method a real path does not take is 405 with Allow, not 404")
    func methodNotAllowed() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("maud")
            let put = try await api.send(.put, "/api/v1/notes", json: ["title": "x"], token: token)
            #expect(put.status == 405)
            #expect(put.headers[.allow] == "GET, HEAD, POST")
            #expect(put["code"] == "method_not_allowed")
            let move = try await api.send(.get, "/api/v1/notes/n_1/move", token: token)
            #expect(move.status == 405 && move.headers[.allow] == "POST")
            #expect(try await api.send(.get, "/api/v1/no-such-plugin", token: token).status == 404)
            // A fixed path wins over /notes/{id}, as in the router: its own methods, never the note's.
            for (path, allowed) in [("imports", "POST"), ("categories", "GET, HEAD"), ("search", "GET, HEAD")] {
                let options = try await api.send(.options, "/api/v1/notes/\(path)", token: token)
                #expect(options.status == 405 && options.headers[.allow] == allowed, "\(path): \(options.status) \(options.headers[.allow] ?? "")")
            }
            let note = try await api.send(.options, "/api/v1/notes/n_1", token: token)
            #expect(note.status == 405 && note.headers[.allow]?.contains("PATCH") == true && note.headers[.allow]?.contains("DELETE") == true)
        }
    }

    @Test("a body over the configured limit is refused with 413")
    func bodyLimit() async throws {
        let yaml = TestApp.yaml().replacingOccurrences(of: "port: 0 }", with: "port: 0, max_body_bytes: 2048 }")
        try await TestApp.run(yaml: yaml) { api, _ in
            let (token, _) = try await api.signUp("big")
            let reply = try await api.send(.post, "/api/v1/notes", json: ["text": String(repeating: "x", count: 5000)], token: token)
            #expect(reply.status == 413)
            #expect(reply["code"] == "too_large")
        }
    }

    @Test("docs/openapi.yaml describes exactly the routes the router serves, with the same access")
    func openAPIInStep() async throws {
        let text = try String(contentsOfFile: RepositoryRoot.path + "/docs/openapi.yaml", encoding: .utf8)
        guard let document = try Yams.load(yaml: text) as? [String: Any],
              let paths = document["paths"] as? [String: Any] else {
            Issue.record("docs/openapi.yaml has no paths")
            return
        }
        let components = ((document["components"] as? [String: Any])?["parameters"] as? [String: Any]) ?? [:]
        func queryNames(_ parameters: Any?) -> Set<String> {
            Set(((parameters as? [Any]) ?? []).compactMap { entry -> String? in
                var parameter = entry as? [String: Any] ?? [:]
                if let reference = parameter["$ref"] as? String, let name = reference.split(separator: "/").last {
                    parameter = components[String(name)] as? [String: Any] ?? [:]
                }
                return parameter["in"] as? String == "query" ? parameter["name"] as? String : nil
            })
        }
        var documented: [String: Bool] = [:]  // "METHOD path" -> public?
        var documentedQuery: [String: Set<String>] = [:]
        for (path, item) in paths {
            let shared = queryNames((item as? [String: Any])?["parameters"])
            for (method, operation) in (item as? [String: Any]) ?? [:] where method != "parameters" {
                let security = (operation as? [String: Any])?["security"] as? [Any]
                documented["\(method.uppercased()) \(path)"] = security?.isEmpty == true
                documentedQuery["\(method.uppercased()) \(path)"] = shared.union(queryNames((operation as? [String: Any])?["parameters"]))
            }
        }
        let documentedRoutes = documented
        let documentedQueries = documentedQuery
        // Every plugin that has routes.
        let auth = "{ bcrypt_cost: 4, secret: test-secret-0123456789-0123456789-0123456789, methods: [password, device, oidc], "
            + "oidc_providers: [{ name: test, issuer: https://id.example, audience: quire, keys_url: https://id.example/jwks }] }"
        let plugins = TestApp.napkinPlugins() + "  vocabulary: {}\n  geo: {}\n  share-link: { rendition: display }\n  album: {}\n  notebooks: {}\n  device-monitor: {}\n  quotas: {}\n  reminders: {}\n  mail: { host: 127.0.0.1, from: \"a@b.example\" }\n  sync: {}\n  web: {}\n  admin: {}\n  push: { private_key: yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw }\n"
        try await TestApp.run(yaml: TestApp.yaml(extraPlugins: plugins, auth: auth)) { _, host in
            let documented = documentedRoutes
            let served = Dictionary(uniqueKeysWithValues: host.routes.map { ("\($0.method) \($0.path)", $0.access == .public) })
            #expect(Set(served.keys).subtracting(documented.keys).sorted() == [], "served but not documented")
            #expect(Set(documented.keys).subtracting(served.keys).sorted() == [], "documented but not served")
            for (route, isPublic) in served where documented[route] != nil {
                #expect(documented[route] == isPublic, "\(route): access differs from the document")
            }
            // The query parameters a route takes (any other is refused) are the ones documented.
            for route in host.routes where documentedQueries["\(route.method) \(route.path)"] != nil {
                let key = "\(route.method) \(route.path)"
                #expect(Set(route.query) == documentedQueries[key], "\(key): takes \(route.query.sorted()), documents \(documentedQueries[key]?.sorted() ?? [])")
            }
        }
    }

    @Test("every message compiled in has a valid name, and no two share one")
    func messageNames() {
        let all: [any BusMessage.Type] = StorageMessages.all + AuthMessages.all + NotesMessages.all + MediaMessages.all
            + VocabularyMessages.all + GeoMessages.all + ShareLinkMessages.all + AlbumMessages.all + NotebooksMessages.all
            + DeviceMonitorMessages.all + [SubjectDeleted.self]
        let names = all.map { $0.name.rawValue }
        for name in names { #expect(MessageName.isValid(name), "\(name)") }
        #expect(Set(names).count == names.count)
    }
}
