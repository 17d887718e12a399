public import Bus

/// What a phone shows for a push: the service worker's notification.
public struct PushNotification: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    /// A repeat with the same tag replaces the one before on the phone.
    public var tag: String
    /// Where a tap opens the app: a client route, `#/notes/n_…`.
    public var url: String

    public init(title: String, body: String, tag: String, url: String) {
        self.title = title
        self.body = body
        self.tag = tag
        self.url = url
    }
}

/// Sends a notification to every phone of `user` that turned notifications on; answers how many
/// push services took it and how many subscriptions were gone (404/410 from the push service:
/// they are deleted). A user without subscriptions is sent nothing.
public struct SendPush: BusRequest {
    public static let name: MessageName = "push.send.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var sent: Int
        public var removed: Int
        public init(sent: Int, removed: Int) {
            self.sent = sent
            self.removed = removed
        }
    }
    public var user: String
    public var notification: PushNotification
    /// high for what is due now (a reminder), normal otherwise (RFC 8030 Urgency).
    public var urgent: Bool
    public init(user: String, notification: PushNotification, urgent: Bool = false) {
        self.user = user
        self.notification = notification
        self.urgent = urgent
    }
}

/// Runs the daily "On this day" pushes whose hour has come (the plugin's own service asks every
/// minute on every node; each user's day is sent once whoever asks). Answers how many were sent.
public struct RunDailyPushes: BusRequest {
    public static let name: MessageName = "push.daily.v1"
    public struct Reply: Codable, Sendable {
        public var sent: Int
        public init(sent: Int) { self.sent = sent }
    }
    public init() {}
}

public enum PushMessages {
    public static let all: [any BusMessage.Type] = [SendPush.self, RunDailyPushes.self]
}
