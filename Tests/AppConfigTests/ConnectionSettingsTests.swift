import AppConfig
import Testing

@Suite("App config: server timeouts and connection bounds")
struct ConnectionSettingsTests {
    func load(_ server: String) throws -> AppConfig {
        AppConfig(root: try YAMLLoader.parse("app: a\nserver: { port: 8080\(server) }\nplugins: {}\n", file: "app.yaml"), environment: [:])
    }

    func problems(_ server: String) throws -> [String] {
        let config = try load(server)
        do {
            try config.reader.finish()
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("defaults: head 10 s, body 1,024 bytes/s after 10 s, idle 60 s, WebSocket handshake 10 s, connections from the open-file limit")
    func defaults() throws {
        let config = try load("")
        try config.reader.finish()
        let connections = config.server.connections
        #expect(connections.requestHeadTimeout == .seconds(10) && connections.bodyMinRate == 1024 && connections.bodyRateGrace == .seconds(10))
        #expect(connections.idleTimeout == .seconds(60) && connections.webSocketHandshakeTimeout == .seconds(10))
        #expect(connections.maxConnections == nil && connections.maxConnectionsPerAddress == nil)
    }

    @Test("each setting is read; auto and an empty value leave a bound to the open-file limit")
    func given() throws {
        let config = try load(", request_head_timeout: 2s, body_min_rate: 4096, body_rate_grace: 3s, idle_timeout: 250ms, "
                              + "websocket_handshake_timeout: 5s, max_connections: 500, max_connections_per_address: 50")
        try config.reader.finish()
        let connections = config.server.connections
        #expect(connections.requestHeadTimeout == .seconds(2) && connections.bodyMinRate == 4096 && connections.bodyRateGrace == .seconds(3))
        #expect(connections.idleTimeout == .milliseconds(250) && connections.webSocketHandshakeTimeout == .seconds(5))
        #expect(connections.maxConnections == 500 && connections.maxConnectionsPerAddress == 50)
        let automatic = try load(", max_connections: auto, max_connections_per_address: ''")
        try automatic.reader.finish()
        #expect(automatic.server.connections.maxConnections == nil && automatic.server.connections.maxConnectionsPerAddress == nil)
    }

    @Test("a bad value is one line with its position: a timeout that is not a duration or out of range, a bound that is not a number")
    func mistakes() throws {
        let found = try problems(", request_head_timeout: soon, idle_timeout: 0s, body_min_rate: -1, max_connections: many")
        #expect(found.count == 4)
        #expect(found.contains { $0.contains("app.yaml:2:") && $0.contains("server.request_head_timeout") && $0.contains("\"soon\"") })
        #expect(found.contains { $0.contains("server.idle_timeout") && $0.contains("between") })
        #expect(found.contains { $0.contains("server.body_min_rate") })
        #expect(found.contains { $0.contains("server.max_connections") && $0.contains("or auto") })
        #expect(found.allSatisfy { !$0.contains("\n") })
    }

    @Test("more per address than in all is refused")
    func perAddressOverTotal() throws {
        let found = try problems(", max_connections: 100, max_connections_per_address: 200")
        #expect(found.count == 1 && found[0].contains("server.max_connections_per_address") && found[0].contains("at most 100"))
    }
}
