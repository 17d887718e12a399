import AuthAPI
import Bus
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import StorageAPI
import Synchronization

/// One live (WebSocket) connection, from its first message to its close.
struct LiveSession: Sendable {
    struct Settings: Sendable {
        let hub: LiveHub
        let feed: SyncFeed
        let bus: any MessageBus
        let logger: Logger
        let pokeInterval: Duration
        let authTimeout: Duration
    }

    /// Close codes a client can act on (4000–4999 are the application's).
    enum CloseCode: UInt16 {
        /// Not authenticated in time, or with a token the server refuses: sign in, then reconnect.
        case unauthenticated = 4401
        /// The access token expired: refresh it, then reconnect (or send `auth` before it expires).
        case tokenExpired = 4403
        /// The user holds `max_connections_per_user` live connections already.
        case tooManyConnections = 4429
        /// A message the server does not understand.
        case badMessage = 4400
    }

    let settings: Settings
    let outbound: WebSocketOutboundWriter

    private struct ClientMessage: Decodable {
        var type: String
        var token: String?
    }

    func run(_ inbound: WebSocketInboundStream) async {
        var messages = inbound.messages(maxSize: 8192).makeAsyncIterator()
        let session: VerifiedSession
        do {
            // Closed unless a first message comes in time (closing ends the read below).
            let (outbound, limit) = (self.outbound, settings.authTimeout)
            let deadline = Task {
                try await Task.sleep(for: limit)
                try? await outbound.close(.unknown(CloseCode.unauthenticated.rawValue),
                                          reason: "Send {\"type\":\"auth\",\"token\":\"<access token>\"} first, within \(limit).")
            }
            let first = try await messages.next()
            deadline.cancel()
            guard let first else { return }
            session = try await authenticate(first)
        } catch let failure as SessionEnd {
            await close(failure.code, failure.reason)
            return
        } catch {
            await close(.unauthenticated, "Send {\"type\":\"auth\",\"token\":\"<access token>\"} within \(settings.authTimeout).")
            return
        }
        guard let connection = settings.hub.open(user: session.accountID) else {
            await close(.tooManyConnections, "You have \(settings.hub.maxPerUser) live connections open already; close one first.")
            return
        }
        defer { settings.hub.close(connection) }
        await follow(connection)
        let expiry = Expiry(session.expiresAt)
        do {
            try await outbound.writeTextMessage(#"{"type":"ready"}"#)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await pokes(connection) }
                group.addTask { try await watch(expiry) }
                // Reads here: the only other thing a client says is `auth` again, with a fresh token.
                while let message = try await messages.next() {
                    let renewed = try await authenticate(message)
                    guard renewed.accountID == session.accountID else {
                        throw SessionEnd(code: .unauthenticated, reason: "That token is another user's; open a connection of its own.")
                    }
                    expiry.set(renewed.expiresAt)
                }
                group.cancelAll()
            }
        } catch let failure as SessionEnd {
            await close(failure.code, failure.reason)
        } catch {
            // The connection went away.
        }
    }

    /// Sends waiting alerts, and the newest cursor whenever the log moved, then waits out the interval.
    private func pokes(_ connection: LiveConnection) async throws {
        for await _ in connection.signals {
            for alert in connection.takeAlerts() { try await outbound.writeTextMessage(alert) }
            guard let sequence = connection.take() else { continue }
            try await outbound.writeTextMessage(#"{"type":"poke","cursor":"\#(SyncCursor.encode(sequence))"}"#)
            // A new shared notebook is a write to the recipient's own log: follow its scope from now on.
            await follow(connection)
            if settings.pokeInterval > .zero { try await Task.sleep(for: settings.pokeInterval) }
        }
    }

    private func follow(_ connection: LiveConnection) async {
        do {
            settings.hub.follow(connection, scopes: try await settings.feed.sharedScopes(viewer: connection.user))
        } catch {
            settings.logger.warning("sync: could not read the scopes shared with a live user", metadata: ["error": "\(error.code)"])
        }
    }

    /// Closes the connection when its token expires (closing ends the read loop, and with it the
    /// session); a renewed token moves the moment.
    private func watch(_ expiry: Expiry) async throws {
        while true {
            guard let at = expiry.value else {
                try await Task.sleep(for: .seconds(3600))
                continue
            }
            let left = at.timeIntervalSinceNow
            if left <= 0 {
                await close(.tokenExpired, "Your access token expired; refresh it and reconnect.")
                return
            }
            try await Task.sleep(for: .milliseconds(Int64(min(left, 60) * 1000) + 1))
        }
    }

    private func authenticate(_ message: WebSocketMessage) async throws -> VerifiedSession {
        guard case .text(let text) = message,
              let parsed = try? JSONDecoder().decode(ClientMessage.self, from: Data(text.utf8)) else {
            throw SessionEnd(code: .badMessage, reason: "Messages are JSON text: {\"type\":\"auth\",\"token\":\"<access token>\"}.")
        }
        guard parsed.type == "auth", let token = parsed.token, !token.isEmpty else {
            throw SessionEnd(code: .badMessage, reason: "The only message a client sends is {\"type\":\"auth\",\"token\":\"…\"}.")
        }
        do {
            return try await settings.bus.request(VerifySession(accessToken: token))
        } catch {
            throw SessionEnd(code: .unauthenticated, reason: "The access token is invalid or expired; sign in again, then reconnect.")
        }
    }

    private func close(_ code: CloseCode, _ reason: String) async {
        try? await outbound.close(.unknown(code.rawValue), reason: reason)
    }
}

/// Why the server ends a live connection.
struct SessionEnd: Error {
    let code: LiveSession.CloseCode
    let reason: String
}

/// When the connection's token expires; renewed by a later `auth`.
final class Expiry: Sendable {
    private let at: Mutex<Date?>
    init(_ at: Date?) { self.at = Mutex(at) }
    var value: Date? { at.withLock { $0 } }
    func set(_ date: Date?) { at.withLock { $0 = date } }
}
