import QuireTLS
import Testing

@Suite("TLS-ALPN-01: reading the ClientHello")
struct ClientHelloTests {
    /// A ClientHello from OpenSSL (Python's ssl) for Photos.Example.org offering acme-tls/1 and h2.
    static let hello: [UInt8] = {
        let hex = "1603010200010001fc030307cc3e8636f3a3ffba8becdb3b399b784e7065ec8d07c87b127f5bcd5586d11b2056a7f26823908d4f74f6ce0b90f5e5a3f00937145861af2ab8dbb053a601639b0024130213031301c02cc030c02bc02fcca9cca8c024c028c023c027009f009e006b006700ff0100018f00000017001500001250686f746f732e4578616d706c652e6f7267000b000403000102000a00160014001d0017001e00190018010001010102010301040023000000100010000e0a61636d652d746c732f310268320016000000170000000d002a0028040305030603080708080809080a080b080408050806040105010601030303010302040205020602002b00050403040303002d00020101003300260024001d00203c18eae61be38ca58a99fdad3ecfc20b59669600dfcfd3ba00e0e36167fd2714001500c700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }()

    @Test("the server name (lowercased) and the ALPN protocols offered; nothing decided before the first record is whole")
    func parse() throws {
        let parsed = try #require(ClientHello.parse(Self.hello))
        #expect(parsed == ClientHello(serverName: "photos.example.org", protocols: ["acme-tls/1", "h2"]))
        #expect(ClientHello.parse(Array(Self.hello.prefix(200))) == .none, "half a record: wait for more")
        #expect(ClientHello.parse(Array(Self.hello.prefix(3))) == .none)
    }

    @Test("bytes that are not a ClientHello (plain HTTP, a truncated extension) read as none, so the server's certificate is used")
    func notHello() {
        #expect(ClientHello.parse(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == .some(nil))
        var broken = Self.hello
        broken[5] = 0x02  // a ServerHello
        #expect(ClientHello.parse(broken) == .some(nil))
        var short = Array(Self.hello.prefix(60))
        short[3] = 0
        short[4] = 55  // a record that ends inside the ClientHello
        #expect(ClientHello.parse(short) == .some(nil))
    }
}
