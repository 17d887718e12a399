import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

@Suite("Share links: HTML for browsers, JSON for apps")
struct ShareLinkNegotiationTests {
    @Test("an unknown link answers a JSON client with a problem document, a browser with a page")
    func unknownLink() async throws {
        try await IRemember.run { client, _ in
            for accept in ["application/json", "application/problem+json", "application/json, text/html;q=0.5", "application/vnd.quire+json"] {
                let reply = try await client.send(.get, "/api/v1/share-link/s/not-a-real-token", headers: [.accept: accept])
                #expect(reply.status == 404, "\(accept)")
                #expect(reply.contentType == "application/problem+json", "\(accept)")
                #expect(reply.problemCode == "not_found", "\(accept)")
            }
            for accept in ["text/html", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "*/*", "text/html, application/json;q=0.9"] {
                let reply = try await client.send(.get, "/api/v1/share-link/s/not-a-real-token", headers: [.accept: accept])
                #expect(reply.status == 404, "\(accept)")
                #expect(reply.contentType?.hasPrefix("text/html") == true, "\(accept)")
            }
            let none = try await client.send(.get, "/api/v1/share-link/s/not-a-real-token")
            #expect(none.contentType?.hasPrefix("text/html") == true)
        }
    }
}
