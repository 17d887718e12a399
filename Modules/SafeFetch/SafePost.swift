public import Bus
import CCurl
public import Foundation

/// A POST to an address a user gave (a Web Push subscription's endpoint), under the same rules
/// as ``SafeFetcher/fetch(_:)``: the name resolved here and refused when any address is not
/// public (unless the policy's `allowedNetworks` lets it through, in tests), curl pinned to the
/// checked addresses and every socket checked again, no proxies, a time limit. https only, unless
/// `allowPlainHTTP` (tests, with their loopback endpoint). Redirects are not followed: the answer's
/// status is the caller's to judge (a push service says 201, 404 or 410).
extension SafeFetcher {
    public struct Posted: Sendable {
        public var status: Int
        public var body: Data
    }

    public func post(_ url: String, headers: [(String, String)], body: Data, allowPlainHTTP: Bool = false) async throws(BusError) -> Posted {
        let policy = self.policy
        let headerLines = headers.map { "\($0.0): \($0.1)" }
        let result: Result<Posted, BusError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(BusError) in
                    try Self.runPost(url, headers: headerLines, body: body, policy: policy, allowPlainHTTP: allowPlainHTTP)
                })
            }
            thread.name = "quire.safepost"
            thread.start()
        }
        return try result.get()
    }

    static func runPost(_ url: String, headers: [String], body: Data, policy: Policy, allowPlainHTTP: Bool) throws(BusError) -> Posted {
        let target = try target(url)
        guard url.lowercased().hasPrefix("https://") || allowPlainHTTP else {
            throw BusError.invalid("Only https addresses are sent to, not \(url.prefix(while: { $0 != ":" })):.", field: "endpoint")
        }
        let addresses = try resolve(target.host)
        for address in addresses {
            if let why = AddressRules.refusal(address, allowing: policy.allowedNetworks) { throw refused(why) }
        }
        guard let curl = curl_easy_init() else { throw BusError(.unavailable, "The sender could not start; try again.") }
        defer { curl_easy_cleanup(curl) }
        let state = Transfer(maxBytes: policy.maxBytes, allowed: policy.allowedNetworks)
        let unmanaged = Unmanaged.passRetained(state)
        defer { unmanaged.release() }
        var guardian = connectionGuard(unmanaged.toOpaque())
        let pins = pinned(target, to: addresses)
        defer { curl_slist_free_all(pins) }
        // "Expect:" off: a push service answers the whole request, not a 100-continue first.
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for line in headers { list = curl_slist_append(list, line) }
        defer { curl_slist_free_all(list) }
        let milliseconds = max(1, Int(policy.timeout.components.seconds * 1000 + policy.timeout.components.attoseconds / 1_000_000_000_000_000))
        var ok = quire_curl_set_string(curl, CURLOPT_URL, target.url) == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_PROTOCOLS_STR, allowPlainHTTP ? "http,https" : "https") == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_FOLLOWLOCATION, 0) == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_NOSIGNAL, 1) == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_TIMEOUT_MS, milliseconds) == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_CONNECTTIMEOUT_MS, min(milliseconds, 10_000)) == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_PROXY, "") == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_NOPROXY, "*") == CURLE_OK
        ok = ok && quire_curl_set_string(curl, CURLOPT_USERAGENT, "Quire/1 (web push)") == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_POST, 1) == CURLE_OK
        ok = ok && quire_curl_set_long(curl, CURLOPT_POSTFIELDSIZE, body.count) == CURLE_OK
        // COPYPOSTFIELDS copies the bytes (the size set first), so nothing here must outlive the call.
        ok = ok && body.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return quire_curl_set_string(curl, CURLOPT_COPYPOSTFIELDS, "") == CURLE_OK }
            return quire_curl_set_pointer(curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base)) == CURLE_OK
        }
        ok = ok && quire_curl_set_slist(curl, CURLOPT_HTTPHEADER, list) == CURLE_OK
        ok = ok && quire_curl_set_slist(curl, CURLOPT_RESOLVE, pins) == CURLE_OK
        ok = ok && quire_curl_set_guard(curl, &guardian) == CURLE_OK
        ok = ok && quire_curl_set_write(curl, { data, size, count, user in
            guard let data, let user else { return 0 }
            let state = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
            let length = size * count
            // The answer's body is only read for a message: the rest is dropped, not an error.
            let room = max(0, state.maxBytes - state.body.count)
            data.withMemoryRebound(to: UInt8.self, capacity: length) { state.body.append($0, count: min(room, length)) }
            return length
        }, unmanaged.toOpaque()) == CURLE_OK
        guard ok else { throw BusError(.internal, "The sender could not be set up (libcurl is too old?).") }
        let code = curl_easy_perform(curl)
        if let why = state.refusedAddress { throw refused(why) }
        switch code {
        case CURLE_OK: break
        case CURLE_OPERATION_TIMEDOUT:
            throw BusError(.deadlineExceeded, "The push service took longer than \(policy.timeout) to answer; it is tried again with the next alert.")
        default:
            let message = String(cString: curl_easy_strerror(code))
            throw BusError(.unavailable, "The push service could not be reached: \(message).")
        }
        return Posted(status: quire_curl_response_code(curl), body: state.body)
    }
}
