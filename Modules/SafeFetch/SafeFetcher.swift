public import Bus
import CCurl
public import Foundation

/// Fetches a URL a user gave, without letting it reach the server's own network (SSRF):
/// http and https only; the name resolved here, and refused when any address it resolves to is
/// loopback, private, link-local, multicast, unspecified or otherwise not public (IPv4 and IPv6,
/// IPv4-mapped included); curl pinned to the checked addresses and every socket it opens checked
/// again; each redirect followed by hand and checked the same way; the body cut off at a byte
/// limit and the whole fetch at a time limit. Environment proxies are ignored.
public final class SafeFetcher: Sendable {
    public struct Policy: Sendable {
        public var maxBytes: Int
        public var timeout: Duration
        public var maxRedirects: Int
        /// Blocks let through despite the rules: for tests that serve on a loopback address. Never
        /// set in production.
        public var allowedNetworks: [IPNetwork]

        public init(maxBytes: Int, timeout: Duration = .seconds(20), maxRedirects: Int = 5, allowedNetworks: [IPNetwork] = []) {
            self.maxBytes = maxBytes
            self.timeout = timeout
            self.maxRedirects = maxRedirects
            self.allowedNetworks = allowedNetworks
        }
    }

    public struct Fetched: Sendable {
        public var bytes: Data
        public var contentType: String?
        /// The URL the bytes came from, after redirects.
        public var url: String
        public var redirects: Int
    }

    public let policy: Policy

    public init(policy: Policy) {
        self.policy = policy
        _ = Self.globalInit
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    public func fetch(_ url: String) async throws(BusError) -> Fetched {
        let policy = self.policy
        // A thread of its own: a transfer blocks for up to the timeout, and a blocked worker of
        // dispatch's shared pool (which Swift's cooperative threads draw from on Linux) stalls
        // every other task until dispatch notices.
        let result: Result<Fetched, BusError> = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { () throws(BusError) in try Self.run(url, policy: policy) }) }
            thread.name = "quire.safefetch"
            thread.start()
        }
        return try result.get()
    }

    /// A URL's parts as a fetch needs them.
    struct Target {
        var url: String
        var host: String
        var port: Int
    }

    static func target(_ text: String) throws(BusError) -> Target {
        guard text.utf8.count <= 4096, let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw BusError.invalid("That is not a web address; give one such as https://example.org/photo.jpg.", field: "url")
        }
        guard scheme == "http" || scheme == "https" else {
            throw BusError.invalid("Only http and https addresses can be imported, not \(scheme):.", field: "url")
        }
        guard components.user == nil, components.password == nil else {
            throw BusError.invalid("An address with a user name or password in it cannot be imported.", field: "url")
        }
        guard var host = components.host, !host.isEmpty else { throw BusError.invalid("The address has no host name.", field: "url") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { throw BusError.invalid("The address's port is out of range.", field: "url") }
        return Target(url: text, host: host, port: port)
    }

    /// Every address `host` resolves to.
    static func resolve(_ host: String) throws(BusError) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            throw BusError.invalid("The host name '\(host)' could not be found; check the address.", field: "url")
        }
        var addresses: [IPAddress] = []
        var node = list
        while let current = node {
            if let socketAddress = current.pointee.ai_addr, let address = IPAddress(socketAddress: socketAddress), !addresses.contains(address) {
                addresses.append(address)
            }
            node = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw BusError.invalid("The host name '\(host)' has no address.", field: "url") }
        return addresses
    }

    static func refused(_ why: String) -> BusError {
        BusError(.forbidden, "Quire does not fetch from private or local addresses: \(why).", details: ["reason": "address_not_public"])
    }

    static func run(_ start: String, policy: Policy) throws(BusError) -> Fetched {
        let deadline = ContinuousClock.now + policy.timeout
        var url = start
        for hop in 0...policy.maxRedirects {
            let target = try target(url)
            let addresses = try resolve(target.host)
            for address in addresses {
                if let why = AddressRules.refusal(address, allowing: policy.allowedNetworks) { throw refused(hop == 0 ? why : "a redirect led to \(why)") }
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw timedOut(policy) }
            let response = try transfer(target, addresses: addresses, policy: policy, timeout: remaining)
            if (300...399).contains(response.status), let next = response.redirect {
                url = next
                continue
            }
            guard (200...299).contains(response.status) else {
                throw BusError.invalid("The address answered HTTP \(response.status), not a picture.", field: "url")
            }
            return Fetched(bytes: response.body, contentType: response.contentType, url: url, redirects: hop)
        }
        throw BusError.invalid("The address redirected more than \(policy.maxRedirects) times.", field: "url")
    }

    static func timedOut(_ policy: Policy) -> BusError {
        BusError(.deadlineExceeded, "The address took longer than \(policy.timeout) to send the picture.")
    }

    struct Response {
        var status: Int
        var redirect: String?
        var contentType: String?
        var body: Data
    }

    /// What the C callbacks see.
    final class Transfer {
        var body = Data()
        let maxBytes: Int
        var overflowed = false
        var refusedAddress: String?
        let allowed: [IPNetwork]
        init(maxBytes: Int, allowed: [IPNetwork]) {
            self.maxBytes = maxBytes
            self.allowed = allowed
        }
    }

    /// The socket guard every transfer installs (`user` is its `Transfer`): curl opens a socket only
    /// to an address the rules allow, so a name that resolves again differently (DNS rebinding)
    /// still reaches no private range; a refusal is kept in the transfer to say why.
    static func connectionGuard(_ user: UnsafeMutableRawPointer) -> quire_curl_guard {
        quire_curl_guard(check: { address, _, user in
            guard let address, let user else { return 0 }
            let state = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            guard let ip = IPAddress(socketAddress: address) else { return 0 }
            if let why = AddressRules.refusal(ip, allowing: state.allowed) {
                state.refusedAddress = why
                return 0
            }
            return 1
        }, user: user)
    }

    /// curl's `CURLOPT_RESOLVE` line pinning the host to the addresses already resolved and checked.
    static func pinned(_ target: Target, to addresses: [IPAddress]) -> UnsafeMutablePointer<curl_slist>? {
        curl_slist_append(nil, "\(target.host):\(target.port):" + addresses.map { $0.isV4 ? "\($0)" : "[\($0)]" }.joined(separator: ","))
    }

    static func transfer(_ target: Target, addresses: [IPAddress], policy: Policy, timeout: Duration) throws(BusError) -> Response {
        guard let curl = curl_easy_init() else { throw BusError(.unavailable, "The URL fetcher could not start; try again.") }
        defer { curl_easy_cleanup(curl) }
        let state = Transfer(maxBytes: policy.maxBytes, allowed: policy.allowedNetworks)
        let unmanaged = Unmanaged.passRetained(state)
        defer { unmanaged.release() }
        var guardian = connectionGuard(unmanaged.toOpaque())
        let pins = pinned(target, to: addresses)
        defer { curl_slist_free_all(pins) }
        let milliseconds = max(1, Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        var ok = quire_curl_set_string(curl, CURLOPT_URL, target.url) == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0) == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_NOSIGNAL, 1) == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_TIMEOUT_MS, milliseconds) == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, min(milliseconds, 10_000)) == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_PROXY, "") == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_NOPROXY, "*") == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_USERAGENT, "Quire/1 (photo import)") == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_ACCEPT_ENCODING, "") == CURLE_OK
        ok = ok && quire_curl_set_off(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(policy.maxBytes)) == CURLE_OK
        ok = ok && quire_curl_set_slist(curl, CURLOPT_RESOLVE, pins) == CURLE_OK
        ok = ok && quire_curl_set_guard(curl, &guardian) == CURLE_OK
        ok = ok && quire_curl_set_write(curl, { data, size, count, user in
            guard let data, let user else { return 0 }
            let state = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            let length = size * count
            guard state.body.count + length <= state.maxBytes else {
                state.overflowed = true
                return 0  // curl stops: CURLE_WRITE_ERROR
            }
            data.withMemoryRebound(to: UInt8.self, capacity: length) { state.body.append($0, count: length) }
            return length
        }, unmanaged.toOpaque()) == CURLE_OK
        guard ok else { throw BusError(.internal, "The URL fetcher could not be set up (libcurl is too old?).") }
        let code = curl_easy_perform(curl)
        if let why = state.refusedAddress { throw refused(why) }
        if state.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            throw BusError(.tooLarge, "The picture is larger than \(policy.maxBytes) bytes; it was cut off there and not imported.")
        }
        switch code {
        case CURLE_OK: break
        case CURLE_OPERATION_TIMEDOUT: throw timedOut(policy)
        case CURLE_UNSUPPORTED_PROTOCOL: throw BusError.invalid("Only http and https addresses can be imported.", field: "url")
        default:
            let message = String(cString: curl_easy_strerror(code))
            throw BusError.invalid("The picture could not be downloaded: \(message).", field: "url")
        }
        return Response(status: quire_curl_response_code(curl), redirect: quire_curl_redirect_url(curl).map { String(cString: $0) },
                        contentType: quire_curl_content_type(curl).map { String(cString: $0) }, body: state.body)
    }
}
