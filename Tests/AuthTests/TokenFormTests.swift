import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

@Suite("Auth: tokens in their one compact form")
struct TokenFormTests {
    @Test("an access token re-spelt with base64 '=' padding is refused (RFC 7515 base64url has none)")
    func paddingRefused() async throws {
        try await TestApp.run { client, _ in
            let token = try await client.signUp("dee").token
            #expect(try await client.send(.get, "/api/v1/auth/me", token: token).status == 200)
            var parts = token.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            // The padding base64 would have: the same bytes, spelt another way.
            for index in parts.indices where parts[index].count % 4 != 0 {
                var padded = parts
                padded[index] += String(repeating: "=", count: 4 - parts[index].count % 4)
                let reply = try await client.send(.get, "/api/v1/auth/me", token: padded.joined(separator: "."))
                #expect(reply.status == 401, "padding on part \(index)")
            }
            parts[2] = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            if parts.joined(separator: ".") != token {
                #expect(try await client.send(.get, "/api/v1/auth/me", token: parts.joined(separator: ".")).status == 401)
            }
        }
    }
}
