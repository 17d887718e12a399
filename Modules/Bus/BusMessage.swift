/// A value that travels over a ``MessageBus``.
///
/// Messages are `Codable` so that a networked transport can carry them, and `Sendable` so that the
/// in-process transport can hand the very same value to another task without encoding it.
public protocol BusMessage: Codable, Sendable {
    /// The stable, versioned name of this message type, e.g. `notes.note.created.v1`.
    static var name: MessageName { get }
}

/// A message that is published to any number of subscribers and expects no reply.
public protocol BusEvent: BusMessage {}

/// A message that exactly one handler answers with a typed ``Reply`` or a ``BusError``.
public protocol BusRequest: BusMessage {
    associatedtype Reply: Codable & Sendable

    /// Whether asking twice does no harm: the handler's work is idempotent (a thumbnail, an image
    /// intake named by its content). A network transport asks such a request again, of another
    /// node, when the first got no reply in half its time: a worker killed mid-request loses
    /// nothing. False by default.
    static var repeatable: Bool { get }
}

extension BusRequest {
    public static var repeatable: Bool { false }
}

/// The reply of a request that answers with nothing but success.
public struct Empty: Codable, Sendable, Equatable, Hashable {
    public init() {}
}
