import Foundation

extension AppConfig {
    /// How long a connection may take, and how many there may be (`server.request_head_timeout`,
    /// `body_min_rate`, `body_rate_grace`, `idle_timeout`, `websocket_handshake_timeout`,
    /// `max_connections`, `max_connections_per_address`).
    ///
    /// A client that sends nothing, a head a byte at a time or a body at a trickle is cut off, and
    /// no client holds more than its share of the server's open files: the server answers
    /// `/health` and signed-in users while 1,100 idle connections knock.
    public struct Connections: Sendable, Equatable {
        /// From the connection's start (its TLS handshake included), or from the first byte of a
        /// later request on a kept-alive connection, until the request's head has arrived.
        public var requestHeadTimeout: Duration = .seconds(10)
        /// A request body slower than this (bytes per second, averaged over the time the server
        /// was waiting for it) after ``bodyRateGrace`` is cut off; 0: no minimum.
        public var bodyMinRate: Int = 1024
        /// How long a body may be slower than ``bodyMinRate`` at first.
        public var bodyRateGrace: Duration = .seconds(10)
        /// A kept-alive connection with no request in flight is closed after this.
        public var idleTimeout: Duration = .seconds(60)
        /// From a WebSocket upgrade request's head to the upgraded connection (the in-band sign-in
        /// after it is the live endpoint's own, e.g. `sync.auth_timeout`).
        public var webSocketHandshakeTimeout: Duration = .seconds(10)
        /// Open connections in all; nil: from the open-file limit at start (see `ServerLimits`).
        public var maxConnections: Int?
        /// Open connections from one address (an IPv6 client's /64); nil: from `maxConnections`.
        /// `trusted_proxies` are not limited.
        public var maxConnectionsPerAddress: Int?

        public init() {}
    }

    /// Reads the connection settings of `server`, reporting a bad value at its `file:line:column`.
    static func readConnections(_ server: ConfigSection) -> Connections {
        var settings = Connections()
        let defaults = Connections()
        settings.requestHeadTimeout = server.duration("request_head_timeout", default: defaults.requestHeadTimeout,
                                                      in: .milliseconds(100) ... .seconds(600))
        settings.bodyMinRate = server.int("body_min_rate", default: defaults.bodyMinRate, in: 0...(1 << 30))
        settings.bodyRateGrace = server.duration("body_rate_grace", default: defaults.bodyRateGrace, in: .milliseconds(100) ... .seconds(600))
        settings.idleTimeout = server.duration("idle_timeout", default: defaults.idleTimeout, in: .milliseconds(100) ... .seconds(3600))
        settings.webSocketHandshakeTimeout = server.duration("websocket_handshake_timeout", default: defaults.webSocketHandshakeTimeout,
                                                             in: .milliseconds(100) ... .seconds(600))
        settings.maxConnections = automaticOrInt(server, "max_connections", in: 1...1_000_000)
        settings.maxConnectionsPerAddress = automaticOrInt(server, "max_connections_per_address", in: 1...1_000_000)
        if let total = settings.maxConnections, let each = settings.maxConnectionsPerAddress, each > total {
            server.report("max_connections_per_address", "is \(each), more than max_connections (\(total)); give it at most \(total)")
        }
        return settings
    }

    /// A whole number, or `auto` (or an empty value, an unset `${VAR:-}`) for nil.
    private static func automaticOrInt(_ section: ConfigSection, _ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let raw = section.string(key) else { return nil }
        if raw.isEmpty || raw == "auto" { return nil }
        guard Int(raw.replacingOccurrences(of: "_", with: "")) != nil else {
            section.report(key, "expected a whole number between \(range.lowerBound) and \(range.upperBound), or auto, found \"\(raw)\"")
            return nil
        }
        return section.int(key, default: range.lowerBound, in: range)
    }
}
