import Foundation

/// An IPv4 or IPv6 address as bytes (4 or 16).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a numeric address (`10.0.0.1`, `::ffff:127.0.0.1`, `[::1]`).
    public init?(_ text: String) {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: v6) { Array($0) }
            return
        }
        return nil
    }

    public var isV4: Bool { bytes.count == 4 }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isV4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The IPv4 address an IPv6 address carries: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
    /// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:AABB:CCDD::`).
    public var embeddedV4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let prefix = Array(bytes[0..<12])
        if prefix == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] || prefix == [UInt8](repeating: 0, count: 12)
            || prefix == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return IPAddress(bytes: Array(bytes[12..<16]))
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    public init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            self.init(bytes: withUnsafeBytes(of: address) { Array($0) })
        case AF_INET6:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self.init(bytes: withUnsafeBytes(of: address) { Array($0) })
        default:
            return nil
        }
    }
}

/// An address block (`10.0.0.0/8`).
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    public let address: IPAddress
    public let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        self.address = address
        self.prefixLength = prefix
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for index in address.bytes.indices where remaining > 0 {
            let take = min(8, remaining)
            let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
            if address.bytes[index] & mask != candidate.bytes[index] & mask { return false }
            remaining -= take
        }
        return true
    }

    public var description: String { "\(address)/\(prefixLength)" }
}

/// Which addresses a fetch made for a user may reach: public unicast only.
public enum AddressRules {
    /// Blocks that are not the public Internet (RFC 6890 and friends).
    public static let refused: [IPNetwork] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128", "::1/128", "100::/64", "2001::/23", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].compactMap(IPNetwork.init)

    /// Why `address` may not be fetched from, or nil when it may. An IPv6 address that carries an
    /// IPv4 one is judged by that too.
    public static func refusal(_ address: IPAddress, allowing exceptions: [IPNetwork] = []) -> String? {
        if exceptions.contains(where: { $0.contains(address) }) { return nil }
        if let network = refused.first(where: { $0.contains(address) }) {
            return "\(address) is in \(network), which is not the public Internet"
        }
        if let inner = address.embeddedV4, let reason = refusal(inner, allowing: exceptions) {
            return "\(address) carries \(inner): \(reason)"
        }
        return nil
    }
}
