import Foundation
import NIOCore

/// The addresses this machine answers on, for the local CA's certificate and the addresses to show.
public enum LANAddresses {
    /// Whether `host` means every address (`0.0.0.0`, `::`).
    public static func isWildcard(_ host: String) -> Bool {
        ["0.0.0.0", "::", "[::]", "*", ""].contains(host)
    }

    /// The machine's IPv4 and global IPv6 addresses, loopback included when `loopback`; IPv4 first.
    public static func current(loopback: Bool) -> [String] {
        guard let devices = try? System.enumerateDevices() else { return [] }
        var v4: [String] = [], v6: [String] = []
        for device in devices {
            guard let address = device.address, let text = address.ipAddress else { continue }
            switch address {
            case .v4:
                if !loopback, text.hasPrefix("127.") { continue }
                if !v4.contains(text) { v4.append(text) }
            case .v6:
                let lower = text.lowercased()
                if lower.hasPrefix("fe80") || lower.hasPrefix("::ffff:") || (!loopback && lower == "::1") { continue }
                if !v6.contains(text) { v6.append(text) }
            default:
                continue
            }
        }
        return v4 + v6
    }

    /// The addresses phones open: the bound one, or, on a wildcard, every non-loopback address.
    public static func reachable(boundHost: String) -> [String] {
        isWildcard(boundHost) ? current(loopback: false) : [boundHost]
    }

    /// What the server certificate is for: the bound address (or, on a wildcard, all of them),
    /// `localhost` and loopback, and `<hostname>.local`.
    public static func serverNames(boundHost: String) -> ServerNames {
        var ips = isWildcard(boundHost) ? current(loopback: true) : []
        var dns = ["\(LocalCA.hostName()).local", "localhost"]
        if !isWildcard(boundHost) {
            if IPBytes.parse(boundHost) != nil { ips.append(boundHost) } else { dns.insert(boundHost.lowercased(), at: 0) }
        }
        for loop in ["127.0.0.1", "::1"] where !ips.contains(loop) { ips.append(loop) }
        return ServerNames(dnsNames: dns, ipAddresses: ips)
    }
}

/// IP addresses as the bytes a certificate's subjectAltName holds.
enum IPBytes {
    static func parse(_ text: String) -> [UInt8]? {
        if let v4 = parseV4(Substring(text)) { return v4 }
        return parseV6(text)
    }

    static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseV6(_ text: String) -> [UInt8]? {
        guard text.contains(":"), !text.contains("%") else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseV4(piece) { bytes += v4; continue }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
