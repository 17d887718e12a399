import Foundation
public import Logging
public import NIOCore
import NIOPosix
import NIOSSL
import Bus
import Synchronization

/// A connection to a NATS server, written from the client protocol on SwiftNIO.
///
/// - Publications and subscriptions may be made at any time. While the connection is down,
///   publications wait in a bounded buffer (``NATSOptions/reconnectBufferBytes``) and are sent on
///   reconnect, after every subscription has been made again.
/// - A lost connection is made again by itself, with backoff, to the configured servers and to any
///   the cluster announced (`connect_urls` in a later INFO).
/// - ``request(subject:headers:payload:timeout:)`` is NATS' request/reply: one wildcard
///   subscription on a random inbox, a token per request. With `no_responders`, a request to a
///   subject nobody subscribes to is answered at once by the server with status 503.
public final class NATSConnection: Sendable {
    public enum Status: Sendable, Equatable {
        case connecting, connected, disconnected, closed
    }

    struct Subscription {
        var subject: String
        var queue: String?
        var deliver: @Sendable (NATSMessage) -> Void
    }

    private struct State {
        var status = Status.connecting
        var channel: (any Channel)?
        var subscriptions: [UInt64: Subscription] = [:]
        var nextSID: UInt64 = 1
        /// Publications made while disconnected.
        var buffered = ByteBuffer()
        var servers: [NATSOptions.Server]
        var maxPayload = 1024 * 1024
        /// PINGs sent by ``flush()`` and ``flush(writtenAfter:)``, oldest first: the server answers in order.
        var pings: [PendingPing] = []
        /// When the newest answered PING was handed to the channel.
        var answeredHandedAt: ContinuousClock.Instant?
        var replies: [UInt64: PendingReply] = [:]
        /// Requests made since the last sweep of their deadlines (``sweepReplies()``), and whether it is armed.
        var youngReplies: [UInt64] = []
        var sweepArmed = false
        /// Bytes for the current channel not yet handed to it, and whether a flush is on its way:
        /// writes made while one is pending go out with it, in one syscall.
        var outgoing = ByteBuffer()
        var flushScheduled = false
        var inboxSID: UInt64?
        var reconnecting = false
        /// Told when the connection is lost and when it is back (not at the first connect).
        var onConnectivity: (@Sendable (Bool) -> Void)?
    }

    /// A PING on its way and whoever waits for its PONG.
    struct PendingPing {
        /// When its bytes were handed to the channel; nil while they wait in ``State/outgoing``.
        var handedAt: ContinuousClock.Instant?
        var waiters: [CheckedContinuation<Void, any Error>]
    }

    /// A request waiting for its reply. Its continuation is resumed by whoever removes it from
    /// ``State/replies`` (under the lock): once.
    struct PendingReply {
        var continuation: UnsafeContinuation<NATSMessage, any Error>
        var deadline: ContinuousClock.Instant
        /// Given by the sweep to a request still waiting a tick after it was made.
        var ticket: DeadlineWatchdog.Ticket?
    }

    public let options: NATSOptions
    private let state: Mutex<State>
    /// Answers requests whose reply is late (one timer for all, not a sleeping task each); a request
    /// gets its ticket only when still waiting at the next tick's sweep (most are answered before).
    private let watchdog = DeadlineWatchdog()
    private let sweeper = SweepTimer(label: "quire.nats.replies")
    /// The last request's token (replies come to `<inbox>.<token in base 36>`).
    private let nextToken = Atomic<UInt64>(0)
    private let group: any EventLoopGroup
    private let logger: Logger
    /// This connection's inbox prefix: replies come to `<inbox>.<token>`.
    private let inbox: String
    /// Told on the event loop once the messages of one read have all been delivered.
    private let readHooks = Mutex<[@Sendable () -> Void]>([])

    public init(options: NATSOptions, logger: Logger = Logger(label: "quire.nats"),
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.options = options
        self.logger = logger
        self.group = group
        self.state = Mutex(State(servers: options.servers))
        var generator = SystemRandomNumberGenerator()
        self.inbox = "_INBOX." + String(generator.next() as UInt64, radix: 36) + String(generator.next() as UInt64, radix: 36)
        sweeper.onTick { [weak self] in self?.sweepReplies() ?? false }
    }

    public var status: Status { state.withLock { $0.status } }

    /// Calls `handler` with false when the connection is lost and with true when it is back: what
    /// other processes published meanwhile never arrived (NATS keeps nothing for an absent subscriber).
    public func onConnectivityChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        state.withLock { $0.onConnectivity = handler }
    }

    /// Calls `hook` on the connection's event loop each time the messages of one read from the
    /// socket have all been delivered: a subscriber can start what they asked for together.
    public func onReadComplete(_ hook: @escaping @Sendable () -> Void) {
        readHooks.withLock { $0.append(hook) }
    }

    /// On the event loop, after a read's messages (and when the channel goes, for what it left).
    func readComplete() {
        for hook in readHooks.withLock({ $0 }) { hook() }
    }

    /// The largest payload the server takes (its `max_payload`, 1 MB by default).
    public var maxPayload: Int { state.withLock { $0.maxPayload } }

    /// Connects to the first server that answers, or throws why none did (the caller decides
    /// whether to try again: a node starting waits; a lost connection later is made again here).
    public func connect() async throws(NATSError) {
        try await connectOnce()
    }

    /// Closes the connection; pending requests fail, nothing is reconnected.
    public func close() async {
        let (channel, pongs, replies) = state.withLock { state -> ((any Channel)?, [CheckedContinuation<Void, any Error>], [PendingReply]) in
            state.status = .closed
            let result = (state.channel, state.pings.flatMap(\.waiters), Array(state.replies.values))
            state.channel = nil
            state.pings = []
            state.replies = [:]
            state.outgoing.clear()
            return result
        }
        let error = NATSError(kind: .closed, message: "The NATS connection was closed.")
        pongs.forEach { $0.resume(throwing: error) }
        finish(replies, throwing: error)
        try? await channel?.close()
    }

    // MARK: Publishing and subscribing

    /// Publishes `payload` on `subject`. While disconnected it is kept (up to the reconnect buffer).
    public func publish(subject: String, replyTo: String? = nil, headers: [(String, String)] = [], payload: ByteBuffer) throws(NATSError) {
        let channel = try state.withLock { state throws(NATSError) -> (any Channel)? in
            guard payload.readableBytes <= state.maxPayload else {
                throw NATSError(kind: .tooLarge, message: "The message is \(payload.readableBytes) bytes; NATS takes at most \(state.maxPayload).")
            }
            switch state.status {
            case .closed:
                throw NATSError(kind: .closed, message: "The NATS connection was closed.")
            case .connected:
                // Written straight into what goes out next: no buffer of its own to allocate and copy.
                guard let channel = state.channel else { return nil }
                ClientOperation.publish(subject: subject, replyTo: replyTo, headers: headers, payload: payload, into: &state.outgoing)
                guard !state.flushScheduled else { return nil }
                state.flushScheduled = true
                return channel
            case .connecting, .disconnected:
                var buffer = ByteBuffer()
                buffer.reserveCapacity(payload.readableBytes + subject.utf8.count + 64)
                ClientOperation.publish(subject: subject, replyTo: replyTo, headers: headers, payload: payload, into: &buffer)
                guard state.buffered.readableBytes + buffer.readableBytes <= options.reconnectBufferBytes else {
                    throw NATSError(kind: .bufferFull, message: "NATS cannot be reached and \(options.reconnectBufferBytes) bytes already wait to be sent.")
                }
                state.buffered.writeBuffer(&buffer)
                return nil
            }
        }
        if let channel { scheduleFlush(channel) }
    }

    /// Publishes several messages under one lock with one flush, when connected and none is too
    /// large; answers false (nothing sent) otherwise, for the caller to publish them one by one.
    func publishAll(_ messages: [(subject: String, payload: ByteBuffer)]) -> Bool {
        let (sent, channel) = state.withLock { state -> (Bool, (any Channel)?) in
            guard state.status == .connected, state.channel != nil,
                  messages.allSatisfy({ $0.payload.readableBytes <= state.maxPayload }) else { return (false, nil) }
            for message in messages {
                ClientOperation.publish(subject: message.subject, replyTo: nil, headers: [], payload: message.payload, into: &state.outgoing)
            }
            guard !state.flushScheduled else { return (true, nil) }
            state.flushScheduled = true
            return (true, state.channel)
        }
        if let channel { scheduleFlush(channel) }
        return sent
    }

    /// Adds `bytes` to what goes to the current channel; answers the channel when the caller must
    /// schedule the flush (none is on its way yet).
    private func enqueue(_ bytes: inout ByteBuffer, into state: inout State) -> (any Channel)? {
        guard let channel = state.channel else { return nil }
        state.outgoing.writeBuffer(&bytes)
        guard !state.flushScheduled else { return nil }
        state.flushScheduled = true
        return channel
    }

    /// Hands everything queued to the channel, on its event loop, in one write.
    private func scheduleFlush(_ channel: any Channel) {
        channel.eventLoop.execute { [weak self] in
            guard let self else { return }
            let bytes = self.state.withLock { state -> ByteBuffer? in
                state.flushScheduled = false
                guard state.channel === channel, state.outgoing.readableBytes > 0 else { return nil }
                if state.pings.last?.handedAt == nil {
                    let now = ContinuousClock.now
                    for index in state.pings.indices.reversed() {
                        guard state.pings[index].handedAt == nil else { break }
                        state.pings[index].handedAt = now
                    }
                }
                let bytes = state.outgoing
                state.outgoing = channel.allocator.buffer(capacity: 4096)
                return bytes
            }
            if let bytes { channel.writeAndFlush(bytes, promise: nil) }
        }
    }

    /// Queues `bytes` for the current channel, if connected (subscriptions, PINGs).
    private func send(_ bytes: ByteBuffer) {
        var bytes = bytes
        let channel = state.withLock { state -> (any Channel)? in
            guard state.status == .connected else { return nil }
            return enqueue(&bytes, into: &state)
        }
        if let channel { scheduleFlush(channel) }
    }

    /// Subscribes to `subject` (in `queue`'s group when given: each message goes to one member).
    /// `deliver` runs on the connection's event loop and must not block.
    public func subscribe(subject: String, queue: String? = nil, deliver: @escaping @Sendable (NATSMessage) -> Void) -> UInt64 {
        let sid = state.withLock { state in
            let sid = state.nextSID
            state.nextSID += 1
            state.subscriptions[sid] = Subscription(subject: subject, queue: queue, deliver: deliver)
            return sid
        }
        var buffer = ByteBuffer()
        ClientOperation.subscribe(subject: subject, queue: queue, sid: sid, into: &buffer)
        send(buffer)
        return sid
    }

    public func unsubscribe(_ sid: UInt64) {
        guard state.withLock({ $0.subscriptions.removeValue(forKey: sid) }) != nil else { return }
        var buffer = ByteBuffer()
        ClientOperation.unsubscribe(sid: sid, into: &buffer)
        send(buffer)
    }

    /// Waits until the server has read everything sent before (a PING answered by its PONG): what
    /// this connection published, the server has passed on to its subscribers.
    public func flush() async throws(NATSError) {
        try await waitForPong { _ in false }
    }

    /// Waits for the PONG to a PING the server read after `instant`: every message the server had
    /// for this connection by then has been delivered (its subscription's `deliver` has run). Calls
    /// share a PING still queued or one sent after their instant, so many callers cost one round trip.
    public func flush(writtenAfter instant: ContinuousClock.Instant) async throws(NATSError) {
        if state.withLock({ state in state.answeredHandedAt.map { $0 > instant } ?? false }) { return }
        try await waitForPong { ping in ping.handedAt.map { $0 > instant } ?? true }
    }

    /// Joins the first PING on its way that `joins` accepts, or sends a new one; waits for its PONG.
    private func waitForPong(joining joins: (PendingPing) -> Bool) async throws(NATSError) {
        let disconnected = NATSError(kind: .disconnected, message: "NATS cannot be reached right now.")
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                var ping = ByteBuffer(string: "PING\r\n")
                let (queued, channel) = state.withLock { state -> (Bool, (any Channel)?) in
                    guard state.status == .connected, state.channel != nil else { return (false, nil) }
                    if let index = state.pings.firstIndex(where: joins) {
                        state.pings[index].waiters.append(continuation)
                        return (true, nil)
                    }
                    state.pings.append(PendingPing(handedAt: nil, waiters: [continuation]))
                    return (true, enqueue(&ping, into: &state))
                }
                guard queued else {
                    continuation.resume(throwing: disconnected)
                    return
                }
                if let channel { scheduleFlush(channel) }
            }
        } catch let error as NATSError {
            throw error
        } catch {
            throw disconnected
        }
    }

    // MARK: Request and reply

    /// Publishes a request and waits for the first reply until `deadline`. A reply with status 503
    /// means nobody subscribes to the subject. Fails at once while disconnected.
    public func request(subject: String, headers: [(String, String)] = [], payload: ByteBuffer,
                        deadline: ContinuousClock.Instant) async throws(NATSError) -> NATSMessage {
        let token = nextToken.wrappingAdd(1, ordering: .relaxed).newValue
        let replyTo = inbox + "." + String(token, radix: 36)
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<NATSMessage, any Error>) in
                    // One lock: the inbox's subscription (the first time), the wait, its deadline and the bytes.
                    let (refused, arm, channel) = state.withLock { state -> (NATSError?, Bool, (any Channel)?) in
                        guard payload.readableBytes <= state.maxPayload else {
                            return (NATSError(kind: .tooLarge, message: "The message is \(payload.readableBytes) bytes; NATS takes at most \(state.maxPayload)."), false, nil)
                        }
                        switch state.status {
                        case .connected:
                            break
                        case .closed:
                            return (NATSError(kind: .closed, message: "The NATS connection was closed."), false, nil)
                        case .connecting, .disconnected:
                            return (NATSError(kind: .disconnected, message: "NATS cannot be reached right now."), false, nil)
                        }
                        // Checked under the lock the cancellation handler takes: a cancel either comes
                        // before this (refused) or finds the wait stored.
                        if Task.isCancelled { return (NATSError(kind: .closed, message: "The request was cancelled."), false, nil) }
                        if state.inboxSID == nil { subscribeInbox(&state) }
                        state.replies[token] = PendingReply(continuation: continuation, deadline: deadline, ticket: nil)
                        state.youngReplies.append(token)
                        let arm = !state.sweepArmed
                        state.sweepArmed = true
                        // Written straight into what goes out next, as ``publish(subject:replyTo:headers:payload:)`` does.
                        guard let channel = state.channel else { return (nil, arm, nil) }
                        ClientOperation.publish(subject: subject, replyTo: replyTo, headers: headers, payload: payload, into: &state.outgoing)
                        guard !state.flushScheduled else { return (nil, arm, nil) }
                        state.flushScheduled = true
                        return (nil, arm, channel)
                    }
                    if let refused {
                        continuation.resume(throwing: refused)
                        return
                    }
                    if arm { sweeper.arm() }
                    if let channel { scheduleFlush(channel) }
                }
            } onCancel: {
                answer(token, with: .failure(CancellationError()))
            }
        } catch let error as NATSError {
            throw error
        } catch is CancellationError {
            throw NATSError(kind: .closed, message: "The request was cancelled.")
        } catch {
            throw NATSError(kind: .disconnected, message: "NATS cannot be reached right now.")
        }
    }

    /// Ends the wait of request `token`, once (a reply, its deadline, a cancel or a lost connection).
    private func answer(_ token: UInt64, with result: Result<NATSMessage, any Error>) {
        guard let pending = state.withLock({ $0.replies.removeValue(forKey: token) }) else { return }
        if let ticket = pending.ticket { watchdog.remove(ticket) }
        pending.continuation.resume(with: result)
    }

    private func finish(_ replies: [PendingReply], throwing error: NATSError) {
        for pending in replies {
            if let ticket = pending.ticket { watchdog.remove(ticket) }
            pending.continuation.resume(throwing: error)
        }
    }

    /// Subscribes this connection's inbox (under the lock, ahead of the first request's bytes).
    private func subscribeInbox(_ state: inout State) {
        let sid = state.nextSID
        state.nextSID += 1
        state.inboxSID = sid
        // Replies are taken in ``received(_:on:)``; this keeps the subscription made again on reconnect.
        state.subscriptions[sid] = Subscription(subject: inbox + ".*", queue: nil) { _ in }
        var buffer = ByteBuffer()
        ClientOperation.subscribe(subject: inbox + ".*", queue: nil, sid: sid, into: &buffer)
        // The request's own bytes follow it and schedule the flush.
        state.outgoing.writeBuffer(&buffer)
    }

    /// The token of a reply's subject (`<inbox>.<token in base 36>`).
    static func token(of subject: String) -> UInt64? {
        guard let dot = subject.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        return UInt64(subject[subject.index(after: dot)...], radix: 36)
    }

    /// The requests made since the last tick: the answered are forgotten, the late are answered
    /// with the timeout, the rest get a ticket at their deadline.
    private func sweepReplies() -> Bool {
        let now = ContinuousClock.now
        let late = state.withLock { state -> [PendingReply] in
            state.sweepArmed = false
            var late: [PendingReply] = []
            for token in state.youngReplies {
                guard let pending = state.replies[token] else { continue }
                if pending.deadline <= now {
                    state.replies[token] = nil
                    late.append(pending)
                } else {
                    state.replies[token]?.ticket = watchdog.add(pending.deadline) { [weak self] in
                        self?.answer(token, with: .failure(NATSError(kind: .timedOut, message: "No reply before the deadline.")))
                    }
                }
            }
            state.youngReplies.removeAll(keepingCapacity: true)
            return late
        }
        let error = NATSError(kind: .timedOut, message: "No reply before the deadline.")
        for pending in late { pending.continuation.resume(throwing: error) }
        return false
    }

    // MARK: The connection's life

    private struct ServerInfo: Decodable {
        var max_payload: Int?
        var connect_urls: [String]?
        var headers: Bool?
        var auth_required: Bool?
    }

    private func connectJSON() -> String {
        var fields: [String: Any] = ["verbose": false, "pedantic": false, "lang": "swift", "version": "1.0", "protocol": 1,
                                     "headers": true, "no_responders": true, "name": options.name, "echo": true]
        if let user = options.user { fields["user"] = user }
        if let password = options.password { fields["pass"] = password }
        if let token = options.token { fields["auth_token"] = token }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// One attempt over the known servers, in order.
    private func connectOnce() async throws(NATSError) {
        let servers = state.withLock { $0.servers }
        var last = NATSError(kind: .unreachable, message: "No NATS server is configured.")
        for server in servers {
            do {
                try await connect(to: server)
                return
            } catch {
                last = error
                if error.kind == .refused { break }
            }
        }
        throw last
    }

    /// The TLS a connection to `server` starts after the server's INFO, when the options ask for it.
    private func tlsHandler(for server: NATSOptions.Server) throws(NATSError) -> NIOSSLClientHandler? {
        guard let tls = options.tls else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile = tls.caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw NATSError(kind: .refused, message: "The CA file '\(caFile)' (bus.tls_ca_file) cannot be read.")
            }
            configuration.trustRoots = .file(caFile)
        }
        do {
            let context = try NIOSSLContext(configuration: configuration)
            // A name goes in SNI and is checked against the certificate; an address is checked against its IP entries.
            let isAddress = server.host.contains(":") || server.host.allSatisfy { $0.isNumber || $0 == "." }
            return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : server.host)
        } catch {
            throw NATSError(kind: .refused, message: "TLS to NATS cannot be set up (\(Self.reason(error))); check bus.tls_ca_file.")
        }
    }

    private func connect(to server: NATSOptions.Server) async throws(NATSError) {
        // One loop for the channel and its handshake: two `next()` calls would put every
        // connection of a two-loop group on the same loop.
        let loop = group.next()
        let handshake = Handshake(loop.makePromise(of: ByteBuffer.self))
        let tls = try tlsHandler(for: server)
        let handler = NATSChannelHandler(connection: self, handshake: handshake, connectJSON: connectJSON(), tls: tls, server: server.description)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.milliseconds(options.connectTimeout.components.seconds * 1000
                                              + options.connectTimeout.components.attoseconds / 1_000_000_000_000_000))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(NATSDecoder()))
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .connect(host: server.host, port: server.port).get()
        } catch {
            handshake.fail(error)
            throw NATSError(kind: .unreachable, message: "NATS at \(server) cannot be reached (\(Self.reason(error))).")
        }
        let info: ByteBuffer
        do {
            info = try await handshake.result.get()
        } catch let error as NATSError {
            try? await channel.close()
            throw error
        } catch {
            try? await channel.close()
            throw NATSError(kind: .unreachable, message: "NATS at \(server) closed the connection during the handshake (\(Self.reason(error))).")
        }
        let parsed = try? JSONDecoder().decode(ServerInfo.self, from: Data(info.readableBytesView))
        // Subscriptions again, then what waited, in one write; only then is the connection usable.
        var replay = ByteBuffer()
        let (status, wasReconnect) = state.withLock { state -> (Status, Bool) in
            let wasReconnect = state.status == .disconnected
            if let maxPayload = parsed?.max_payload { state.maxPayload = maxPayload }
            learn(parsed?.connect_urls, into: &state)
            for (sid, subscription) in state.subscriptions.sorted(by: { $0.key < $1.key }) {
                ClientOperation.subscribe(subject: subscription.subject, queue: subscription.queue, sid: sid, into: &replay)
            }
            replay.writeBuffer(&state.buffered)
            state.buffered = ByteBuffer()
            state.outgoing.clear()
            state.flushScheduled = false
            state.channel = channel
            state.status = state.status == .closed ? .closed : .connected
            return (state.status, wasReconnect)
        }
        if status == .closed {
            try? await channel.close()
            throw NATSError(kind: .closed, message: "The NATS connection was closed.")
        }
        if replay.readableBytes > 0 { channel.writeAndFlush(replay, promise: nil) }
        logger.info(wasReconnect ? "nats: reconnected" : "nats: connected", metadata: ["server": "\(server)"])
        if wasReconnect, let handler = state.withLock({ $0.onConnectivity }) { handler(true) }
        // Closed between the handshake and now: the handler's report found another channel current.
        if !channel.isActive { lost(channel) }
    }

    /// Adds servers a later INFO announced (`connect_urls`: host:port of the cluster's other members).
    private func learn(_ urls: [String]?, into state: inout State) {
        for url in urls ?? [] {
            guard let options = try? NATSOptions(url: url) else { continue }
            for server in options.servers where !state.servers.contains(server) { state.servers.append(server) }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? NATSError { return error.message }
        return String(describing: error).prefix(200).description
    }

    /// Makes the connection again until it is back or closed; backoff doubles to ``NATSOptions/maxReconnectDelay``.
    private func startReconnecting() {
        let start = state.withLock { state -> Bool in
            guard state.status != .closed, !state.reconnecting else { return false }
            state.reconnecting = true
            state.status = .disconnected
            return true
        }
        guard start else { return }
        Task {
            var delay = Duration.milliseconds(50)
            var attempt = 0
            while self.status != .closed {
                do throws(NATSError) {
                    try await self.connectOnce()
                    break
                } catch {
                    attempt += 1
                    if attempt == 1 || attempt % 20 == 0 {
                        self.logger.warning("nats: cannot connect; trying again", metadata: ["reason": "\(error.message)", "attempt": "\(attempt)"])
                    }
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, self.options.maxReconnectDelay)
            }
            self.state.withLock { $0.reconnecting = false }
        }
    }

    // MARK: From the channel handler (on the event loop)

    func received(_ operation: ServerOperation, on channel: any Channel) {
        switch operation {
        case .message(let message):
            // A reply to a request is taken here, in the same lock as the lookup.
            let (subscription, reply) = state.withLock { state -> (Subscription?, PendingReply?) in
                guard message.sid == state.inboxSID else { return (state.subscriptions[message.sid], nil) }
                return (nil, Self.token(of: message.subject).flatMap { state.replies.removeValue(forKey: $0) })
            }
            if let reply {
                if let ticket = reply.ticket { watchdog.remove(ticket) }
                reply.continuation.resume(returning: message)
            }
            subscription?.deliver(message)
        case .ping:
            var buffer = ByteBuffer()
            buffer.writeString("PONG\r\n")
            channel.writeAndFlush(buffer, promise: nil)
        case .pong:
            let answered = state.withLock { state -> PendingPing? in
                guard !state.pings.isEmpty else { return nil }
                let ping = state.pings.removeFirst()
                state.answeredHandedAt = ping.handedAt
                return ping
            }
            answered?.waiters.forEach { $0.resume() }
        case .info(let json):
            if let info = try? JSONDecoder().decode(ServerInfo.self, from: Data(json.readableBytesView)) {
                state.withLock { state in
                    if let maxPayload = info.max_payload { state.maxPayload = maxPayload }
                    learn(info.connect_urls, into: &state)
                }
            }
        case .ok:
            break
        case .error(let text):
            logger.warning("nats: the server reported an error", metadata: ["error": "\(text)"])
        }
    }

    func lost(_ channel: any Channel) {
        let (current, pongs, replies) = state.withLock { state -> (Bool, [CheckedContinuation<Void, any Error>], [PendingReply]) in
            guard state.channel === channel else { return (false, [], []) }
            state.channel = nil
            if state.status != .closed { state.status = .disconnected }
            let result = (true, state.pings.flatMap(\.waiters), Array(state.replies.values))
            state.pings = []
            state.answeredHandedAt = nil
            state.replies = [:]
            // What was queued for the lost channel is lost with it, as NATS promises at most once.
            state.outgoing.clear()
            return result
        }
        guard current else { return }
        let error = NATSError(kind: .disconnected, message: "The connection to NATS was lost.")
        pongs.forEach { $0.resume(throwing: error) }
        finish(replies, throwing: error)
        if status != .closed {
            logger.warning("nats: the connection to the server was lost; reconnecting")
            if let handler = state.withLock({ $0.onConnectivity }) { handler(false) }
            startReconnecting()
        }
    }
}
