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
}

/// The reply of a request that answers with nothing but success.
public struct Empty: Codable, Sendable, Equatable, Hashable {
    public init() {}
}
