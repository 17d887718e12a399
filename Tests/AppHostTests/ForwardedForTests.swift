@testable import AppHost
import SafeFetch
import Testing

@Suite("Behind a load balancer: who the client is")
struct ForwardedForTests {
    static let proxies = ["127.0.0.1/32", "10.0.0.0/8"].compactMap(IPNetwork.init)

    @Test("a trusted proxy's X-Forwarded-For names the client; the right-most untrusted hop wins over what a client wrote itself",
          arguments: [
              ("127.0.0.1", ["203.0.113.7"], "203.0.113.7"),
              ("127.0.0.1", ["198.51.100.1, 203.0.113.7"], "203.0.113.7"),       // a client's own header is further left
              ("127.0.0.1", ["203.0.113.7, 10.1.2.3"], "203.0.113.7"),           // through two proxies of ours
              ("127.0.0.1", ["198.51.100.1", "203.0.113.7"], "203.0.113.7"),     // the header given twice
              ("127.0.0.1", ["not-an-address, 203.0.113.7"], "203.0.113.7"),
              ("127.0.0.1", ["203.0.113.7, garbage"], "127.0.0.1"),               // a malformed last hop: the proxy itself
              ("127.0.0.1", [], "127.0.0.1"),
              ("127.0.0.1", ["198.51.100.1 ,\t 203.0.113.7  "], "203.0.113.7"), // spaces and tabs around a hop
              ("127.0.0.1", ["203.0.113.7, "], "127.0.0.1"),                      // an empty last hop: malformed
              ("192.0.2.50", ["203.0.113.7"], "192.0.2.50"),                      // not a proxy of ours: its header is ignored
              ("::1", ["203.0.113.7"], "::1"),
          ])
    func client(peer: String, header: [String], expected: String) {
        #expect(ForwardedForMiddleware.client(peer: peer, forwardedFor: header, proxies: Self.proxies) == expected)
    }

}
