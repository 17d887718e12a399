import AppHostTestKit
import Bus
import Foundation
import SafeFetch
import Testing

@Suite("Address rules")
struct AddressRulesTests {
    @Test("loopback, private, link-local, multicast, unspecified and mapped forms are refused", arguments: [
        "127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1",
        "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
        "::127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::",
    ])
    func refused(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressRules.refusal(address) != nil, "\(text) must be refused")
    }

    @Test("public addresses pass", arguments: ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4007:80f::200e"])
    func allowed(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressRules.refusal(address) == nil)
    }

    @Test("an exception lets one block through and nothing else")
    func exception() throws {
        let allowed = try #require(IPNetwork("127.0.0.2/32"))
        #expect(AddressRules.refusal(try #require(IPAddress("127.0.0.2")), allowing: [allowed]) == nil)
        #expect(AddressRules.refusal(try #require(IPAddress("127.0.0.1")), allowing: [allowed]) != nil)
        #expect(AddressRules.refusal(try #require(IPAddress("::ffff:127.0.0.1")), allowing: [allowed]) != nil)
    }

    @Test("networks parse and match by prefix")
    func networks() throws {
        let network = try #require(IPNetwork("172.16.0.0/12"))
        #expect(network.contains(try #require(IPAddress("172.31.255.255"))))
        #expect(!network.contains(try #require(IPAddress("172.32.0.0"))))
        #expect(IPNetwork("10.0.0.0/33") == nil)
        #expect(IPAddress("[::1]")?.description == "::1")
    }
}

/// Against real servers: one allowed (127.0.0.2, through the test-only exception), and the
/// addresses an attacker would aim at.
@Suite("Safe fetch")
struct SafeFetchTests {
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x42, count: 1000))

    func fetcher(maxBytes: Int = 1 << 20) throws -> SafeFetcher {
        SafeFetcher(policy: .init(maxBytes: maxBytes, timeout: .seconds(10), allowedNetworks: [try #require(IPNetwork("127.0.0.2/32"))]))
    }

    func expectRefused(_ url: String, _ fetcher: SafeFetcher, code: BusError.Code = .forbidden) async {
        do {
            _ = try await fetcher.fetch(url)
            Issue.record("\(url) was fetched")
        } catch {
            #expect(error.code == code, "\(url): \(error.message)")
        }
    }

    @Test("fetches from an allowed server, following a redirect")
    func fetches() async throws {
        try await TestWebServer.run(files: ["a.jpg": Self.jpeg]) { server in
            let fetched = try await fetcher().fetch(server.redirect(to: "\(server.base)/files/a.jpg"))
            #expect(fetched.bytes == Self.jpeg)
            #expect(fetched.redirects == 1)
            #expect(fetched.contentType == "image/jpeg")
        }
    }

    @Test("refuses the server's own networks, directly and by name", arguments: [
        "http://127.0.0.1/", "http://[::1]/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]/",
        "http://localhost/", "http://2130706433/", "http://0x7f.0.0.1/", "http://[::ffff:7f00:1]/", "https://127.0.0.1:8443/",
    ])
    func refusesDirect(_ url: String) async throws {
        await expectRefused(url, try fetcher())
    }

    @Test("refuses a redirect from an allowed server to each of them", arguments: [
        "http://127.0.0.1/", "http://[::1]/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]/",
        "http://localhost/",
    ])
    func refusesRedirect(_ target: String) async throws {
        try await TestWebServer.run { server in
            await expectRefused(server.redirect(to: target), try fetcher())
        }
    }

    @Test("refuses other schemes and credentials in the URL", arguments: ["file:///etc/passwd", "ftp://example.org/a.jpg", "gopher://x/",
                                                                          "http://user:pass@example.org/", "not a url", "http:///nohost"])
    func refusesSchemes(_ url: String) async throws {
        await expectRefused(url, try fetcher(), code: .invalid)
    }

    @Test("a redirect to another scheme is refused")
    func redirectScheme() async throws {
        try await TestWebServer.run { server in
            await expectRefused(server.redirect(to: "file:///etc/passwd"), try fetcher(), code: .invalid)
        }
    }

    @Test("a 50 MB body is cut off at the limit, with or without a Content-Length", arguments: [false, true])
    func cutOff(_ declared: Bool) async throws {
        try await TestWebServer.run { server in
            await expectRefused("\(server.base)/big?bytes=\(50 << 20)&declared=\(declared ? 1 : 0)", try fetcher(maxBytes: 10 << 20),
                                code: .tooLarge)
        }
    }

    @Test("a missing file is an error that says what the server answered")
    func notFound() async throws {
        try await TestWebServer.run { server in
            let fetcher = try fetcher()
            do {
                _ = try await fetcher.fetch("\(server.base)/files/missing.jpg")
                Issue.record("fetched a 404")
            } catch let error as BusError {
                #expect(error.code == .invalid)
                #expect(error.message.contains("404"))
            }
        }
    }
}
