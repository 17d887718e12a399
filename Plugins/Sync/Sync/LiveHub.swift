import Foundation
import StorageAPI
import Metrics
import Synchronization

/// One live connection's pokes: the newest cursor waiting to be sent, and a signal that wakes its
/// writer. Pokes coalesce: however often the log moves, the writer sends the newest cursor and then
/// waits out the interval before the next send.
final class LiveConnection: Sendable {
    let id: Int
    let user: String
    private let latest = Mutex<Int64?>(nil)
    /// Alerts waiting to be sent (JSON texts), oldest first; a slow client keeps the newest 32.
    private let alerts = Mutex<[String]>([])
    static let maxPendingAlerts = 32
    private let signal: AsyncStream<Void>.Continuation
    let signals: AsyncStream<Void>

    init(id: Int, user: String) {
        self.id = id
        self.user = user
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func poke(_ sequence: Int64) {
        latest.withLock { $0 = max($0 ?? 0, sequence) }
        signal.yield()
    }

    func alert(_ text: String) {
        alerts.withLock { queue in
            queue.append(text)
            if queue.count > Self.maxPendingAlerts { queue.removeFirst(queue.count - Self.maxPendingAlerts) }
        }
        signal.yield()
    }

    /// The alerts to send now, oldest first.
    func takeAlerts() -> [String] {
        alerts.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }

    /// The cursor to send now, if any since the last call.
    func take() -> Int64? {
        latest.withLock { value in
            defer { value = nil }
            return value
        }
    }

    func finish() { signal.finish() }
}

/// Every live connection, by user and by the shared scopes each may read.
final class LiveHub: Sendable {
    struct ScopeKey: Hashable {
        var owner: String
        var scope: String
    }

    private struct State {
        var nextID = 0
        var byUser: [String: [Int: LiveConnection]] = [:]
        var byScope: [ScopeKey: Set<Int>] = [:]
        var scopesOf: [Int: [ScopeKey]] = [:]
        var connections: [Int: LiveConnection] = [:]
    }

    private let state = Mutex(State())
    /// `quire_live_connections` on /metrics: WebSockets open on this node.
    private let open = Meter(label: "quire_live_connections")
    let maxPerUser: Int

    init(maxPerUser: Int) {
        self.maxPerUser = maxPerUser
    }

    /// A new connection for `user`, or nil when they already have the most allowed.
    func open(user: String) -> LiveConnection? {
        state.withLock { state in
            guard (state.byUser[user]?.count ?? 0) < maxPerUser else { return nil }
            state.nextID += 1
            let connection = LiveConnection(id: state.nextID, user: user)
            state.byUser[user, default: [:]][connection.id] = connection
            state.connections[connection.id] = connection
            self.open.increment()
            return connection
        }
    }

    /// Sets the other owners' scopes a connection is poked for.
    func follow(_ connection: LiveConnection, scopes: [SharedScope]) {
        state.withLock { state in
            for key in state.scopesOf[connection.id] ?? [] { state.byScope[key]?.remove(connection.id) }
            let keys = scopes.map { ScopeKey(owner: $0.owner, scope: $0.scope) }
            for key in keys { state.byScope[key, default: []].insert(connection.id) }
            state.scopesOf[connection.id] = keys
        }
    }

    func close(_ connection: LiveConnection) {
        state.withLock { state in
            state.byUser[connection.user]?[connection.id] = nil
            if state.byUser[connection.user]?.isEmpty == true { state.byUser[connection.user] = nil }
            for key in state.scopesOf[connection.id] ?? [] {
                state.byScope[key]?.remove(connection.id)
                if state.byScope[key]?.isEmpty == true { state.byScope[key] = nil }
            }
            state.scopesOf[connection.id] = nil
            if state.connections.removeValue(forKey: connection.id) != nil { self.open.decrement() }
        }
        connection.finish()
    }

    /// Queues an alert on every live connection of `user`; answers how many.
    @discardableResult
    func alert(user: String, _ text: String) -> Int {
        let connections = state.withLock { Array(($0.byUser[user] ?? [:]).values) }
        for connection in connections { connection.alert(text) }
        return connections.count
    }

    /// Pokes whoever a batch's log moves concern: the owner's connections, and those following a
    /// scope it touched.
    func moved(_ moves: [LogMove]) {
        let targets = state.withLock { state -> [(LiveConnection, Int64)] in
            var targets: [(LiveConnection, Int64)] = []
            for move in moves {
                for connection in (state.byUser[move.owner] ?? [:]).values { targets.append((connection, move.sequence)) }
                for scope in move.scopes {
                    for id in state.byScope[ScopeKey(owner: move.owner, scope: scope)] ?? [] {
                        if let connection = state.connections[id] { targets.append((connection, move.sequence)) }
                    }
                }
            }
            return targets
        }
        for (connection, sequence) in targets { connection.poke(sequence) }
    }
}
