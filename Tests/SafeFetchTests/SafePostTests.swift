import AppHostTestKit
import Bus
import Foundation
import SafeFetch
import Testing

/// SafeFetch's POST (Web Push endpoints): the same address rules as a fetch, https only unless a
/// test asks for plain http, the push service's status handed back rather than thrown.
@Suite("Safe post")
struct SafePostTests {
    func fetcher() throws -> SafeFetcher {
        SafeFetcher(policy: .init(maxBytes: 1 << 16, timeout: .seconds(10), maxRedirects: 0, allowedNetworks: [try #require(IPNetwork("127.0.0.2/32"))]))
    }

    @Test("refuses the server's own networks", arguments: [
        "https://127.0.0.1/push", "https://[::1]/push", "https://10.0.0.1/push", "https://169.254.169.254/latest", "https://localhost/push",
        "https://[::ffff:127.0.0.1]/push",
    ])
    func refusesPrivate(_ url: String) async throws {
        let fetcher = try fetcher()
        do {
            _ = try await fetcher.post(url, headers: [("TTL", "60")], body: Data("x".utf8))
            Issue.record("\(url) was posted to")
        } catch {
            #expect(error.code == .forbidden, "\(url): \(error.message)")
        }
    }

    @Test("http:// is refused unless the caller allows it (tests), even on an allowed network")
    func httpsOnly() async throws {
        let fetcher = try fetcher()
        try await TestWebServer.run(files: ["a.jpg": Data("x".utf8)]) { server in
            do {
                _ = try await fetcher.post("\(server.base)/files/a.jpg", headers: [], body: Data("x".utf8))
                Issue.record("http:// was posted to")
            } catch let error as BusError {
                #expect(error.code == .invalid, "\(error.message)")
            }
            let answer = try await fetcher.post("\(server.base)/files/a.jpg", headers: [("Content-Encoding", "aes128gcm")], body: Data("x".utf8),
                                                  allowPlainHTTP: true)
            #expect((200...599).contains(answer.status), "the server's answer is handed back, not thrown: \(answer.status)")
        }
    }
}
