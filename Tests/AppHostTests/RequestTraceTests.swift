import AppHost
import AppHostTestKit
import Bus
import Foundation
import HTTPTypes
import Logging
import Testing

@Suite("Request ids")
struct RequestTraceTests {
    @Test("every response names its request (X-Request-Id), and a problem document quotes the same id")
    func problemsQuoteTheId() async throws {
        try await TestApp.run { api, _ in
            let (token, _) = try await api.signUp("traced")
            let listed = try await api.send(.get, "/api/v1/notes", token: token)
            let listedID = try #require(listed.headers[HTTPField.Name("X-Request-Id")!])
            let missing = try await api.send(.get, "/api/v1/notes/nope", token: token)
            let missingID = try #require(missing.headers[HTTPField.Name("X-Request-Id")!])
            #expect(missing.status == 404)
            #expect(missing["requestId"] == missingID)
            #expect(!listedID.isEmpty && listedID != missingID)
            let unauthenticated = try await api.send(.get, "/api/v1/notes")
            #expect(unauthenticated["requestId"] == unauthenticated.headers[HTTPField.Name("X-Request-Id")!])
        }
    }

    @Test("log lines written while a request is served carry its id; others carry none")
    func logMetadata() {
        #expect(AppHost.requestMetadata.get().isEmpty)
        RequestTrace.$id.withValue("req-7") {
            #expect(AppHost.requestMetadata.get()["request"] == "req-7")
        }
    }
}
