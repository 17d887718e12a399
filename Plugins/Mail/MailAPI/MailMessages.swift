public import Bus
public import StorageAPI

/// Sends one message by the app's mail server (the `mail` plugin, SMTP). Large attachments travel
/// by blob reference, as every message's bytes do.
public struct SendMail: BusRequest {
    public static let name: MessageName = "mail.send.v1"
    public struct Reply: Codable, Sendable {
        /// The Message-ID the message was sent with.
        public var messageID: String
        public init(messageID: String) { self.messageID = messageID }
    }
    public var to: String
    public var subject: String
    public var text: String
    public var attachments: [MailAttachment]
    public init(to: String, subject: String, text: String, attachments: [MailAttachment] = []) {
        self.to = to
        self.subject = subject
        self.text = text
        self.attachments = attachments
    }
}

public struct MailAttachment: Codable, Sendable {
    public var filename: String
    public var contentType: String
    public var content: BlobPayload
    public init(filename: String, contentType: String, content: BlobPayload) {
        self.filename = filename
        self.contentType = contentType
        self.content = content
    }
}

public enum MailMessages {
    public static let all: [any BusMessage.Type] = [SendMail.self]
}
