public import Bus
public import Foundation

/// A time at which a user's devices are told about something (a note): kept in storage until it
/// fires, once, on whichever node gets to it first.
public struct Reminder: Codable, Sendable, Equatable {
    /// What it is about, `kind/id` in its plugin's words (`notes/n_…`); one reminder per subject.
    public var subject: String
    /// What the notification says.
    public var title: String
    public var at: Date
    /// pending or fired.
    public var state: String
    public var firedAt: Date?

    public init(subject: String, title: String, at: Date, state: String, firedAt: Date?) {
        self.subject = subject
        self.title = title
        self.at = at
        self.state = state
        self.firedAt = firedAt
    }
}

/// Sets (or moves) the owner's reminder of a subject; it is pending again until it fires.
public struct SetReminder: BusRequest {
    public static let name: MessageName = "reminders.set.v1"
    public typealias Reply = Reminder
    public var owner: String
    public var subject: String
    public var title: String
    public var at: Date
    public init(owner: String, subject: String, title: String, at: Date) {
        self.owner = owner
        self.subject = subject
        self.title = title
        self.at = at
    }
}

/// Cancels the owner's reminder of a subject, if there is one (its subject was deleted, say);
/// answers whether there was. Asking twice is harmless.
public struct CancelReminder: BusRequest {
    public static let name: MessageName = "reminders.cancel.v1"
    public typealias Reply = Bool
    public static var repeatable: Bool { true }
    public var owner: String
    public var subject: String
    public init(owner: String, subject: String) {
        self.owner = owner
        self.subject = subject
    }
}

/// Fires every pending reminder whose time has come; answers how many this call fired. The
/// plugin's own service asks it every second on every node; a reminder fires once whoever asks.
public struct FireDueReminders: BusRequest {
    public static let name: MessageName = "reminders.fire.v1"
    public struct Reply: Codable, Sendable {
        public var fired: Int
        public init(fired: Int) { self.fired = fired }
    }
    public init() {}
}

public enum RemindersMessages {
    public static let all: [any BusMessage.Type] = [SetReminder.self, CancelReminder.self, FireDueReminders.self]
}
