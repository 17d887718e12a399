public import Bus
import Foundation
public import Logging

/// An in-process bus that sends every message, reply and error through JSON, as a network
/// transport would: a message that cannot cross a network (a value that does not survive encoding,
/// a payload over NATS' 1 MB) fails here, in one process, in every test that uses it.
public final class EncodingBus: ForwardingBus {
    /// NATS' default `max_payload`.
    public static let defaultLimit = 1024 * 1024

    private let inner: InProcessBus
    public var forwardee: any MessageBus { inner }
    private let limit: Int
    private let logger: Logger
    private let sameProcess: Set<MessageName>

    /// - Parameter sameProcess: requests every node answers itself, so that they never cross a
    ///   network (storage's blob bytes: storage runs on every node, workers included, and a node
    ///   answers its own requests first); these skip the trip through JSON.
    public init(limit: Int = EncodingBus.defaultLimit, sameProcess: Set<MessageName> = [], logger: Logger = Logger(label: "quire.bus")) {
        self.inner = InProcessBus(logger: logger)
        self.limit = limit
        self.logger = logger
        self.sameProcess = sameProcess
    }

    /// `value` after a trip through JSON.
    private static func crossing<Value: Codable>(_ value: Value, _ what: String, _ name: MessageName, limit: Int) throws(BusError) -> Value {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw BusError(.internal, "\(what) of '\(name)' cannot be encoded to cross a network bus: \(error)", details: ["message": name.rawValue])
        }
        guard data.count <= limit else {
            throw BusError(.tooLarge, "\(what) of '\(name)' is \(data.count) bytes, over the bus' limit of \(limit); large bytes travel by blob reference.",
                           details: ["message": name.rawValue])
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw BusError(.internal, "\(what) of '\(name)' does not read back from its own JSON: \(error)", details: ["message": name.rawValue])
        }
    }

    public func publish<Event: BusEvent>(_ event: Event) async {
        do {
            await inner.publish(try Self.crossing(event, "The event", Event.name, limit: limit))
        } catch {
            logger.error("bus: an event was not published", metadata: ["event": "\(Event.name)", "reason": "\(error.message)"])
        }
    }

    @discardableResult
    public func handle<Request: BusRequest>(_ type: Request.Type, _ handler: @escaping RequestHandler<Request>) throws(BusError) -> HandlerRegistration {
        if sameProcess.contains(Request.name) { return try inner.handle(type, handler) }
        let limit = self.limit
        return try inner.handle(type) { request, context in
            do {
                return try Self.crossing(try await handler(request, context), "The reply", Request.name, limit: limit)
            } catch let error as BusError {
                // Errors cross as values too.
                throw try Self.crossing(error, "The error", Request.name, limit: limit)
            }
        }
    }

    public func request<Request: BusRequest>(_ request: Request, deadline: ContinuousClock.Instant) async throws(BusError) -> Request.Reply {
        if sameProcess.contains(Request.name) { return try await inner.request(request, deadline: deadline) }
        return try await inner.request(try Self.crossing(request, "The request", Request.name, limit: limit), deadline: deadline)
    }
}
