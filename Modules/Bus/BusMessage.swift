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

    /// Whether its handler answers at once from what it holds: it neither blocks its thread (no
    /// file or database read, no long computation) nor, as a rule, waits for anything. A network
    /// transport may then run it on the thread that read the request, with no hand-off to another
    /// thread and back. A handler that takes longer there (over ``quickBudget`` before it first
    /// waits or answers, three times in a row) is logged and moved off that thread for good; one that waits goes on
    /// elsewhere. False by default: a handler that reads storage is not quick.
    static var quick: Bool { get }
}

extension BusRequest {
    public static var repeatable: Bool { false }
    public static var quick: Bool { false }
}

/// How long a ``BusRequest/quick`` handler may run on the thread that read its request, before it
/// first waits or answers, before the transport stops running it there.
public let quickBudget: Duration = .milliseconds(1)

/// The reply of a request that answers with nothing but success.
public struct Empty: Codable, Sendable, Equatable, Hashable {
    public init() {}
}
