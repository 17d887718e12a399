public import AppConfig
import Bus
import Crypto
import Foundation
import Logging
import MailAPI
public import PluginKit
import StorageAPI

/// The `mail` plugin: a capability that sends messages through the operator's mail server by SMTP
/// submission, with STARTTLS and a password. Other plugins ask it with ``SendMail`` (Napkin Notes'
/// "export by email"); it has no routes of its own.
///
/// ```yaml
/// mail:
///   host: smtp.example.org
///   port: 587
///   from: "Napkin Notes <notes@example.org>"
///   username: ${SMTP_USER}
///   password: ${SMTP_PASSWORD}
/// ```
public struct MailPlugin: Plugin {
    public struct Config: Sendable {
        var host: String
        var port: Int
        var from: String
        var username: String?
        var password: String?
        var startTLS: Bool
        var caFile: String?
        var timeoutSeconds: Int
        var maxAttachmentBytes: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "mail",
        summary: "Mail: messages sent through the operator's mail server (SMTP submission, STARTTLS, a password)",
        dependencies: ["storage"],
        settings: [
            SettingDescription("host", "host name or address", default: "(required)", "The mail server"),
            SettingDescription("port", "int 1...65535", default: "587", "Its submission port"),
            SettingDescription("from", "mailbox", default: "(required)", "The sender: an address, or Name <address>"),
            SettingDescription("username", "string", default: "(none)", "Sign-in name (AUTH PLAIN, after STARTTLS)"),
            SettingDescription("password", "string", default: "(none)", "Its password; give it through the environment, never in the file"),
            SettingDescription("starttls", "bool", default: "true", "Encrypt with STARTTLS before anything else is said; off only for a server on this machine"),
            SettingDescription("tls_ca_file", "path", default: "(the system's)", "Certificates to trust for the server's"),
            SettingDescription("timeout_seconds", "int 1...300", default: "30", "How long one message may take"),
            SettingDescription("max_attachment_bytes", "int 1...52428800", default: "10485760", "Largest total of a message's attachments"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        let host = section.string("host", default: nil) ?? ""
        if host.isEmpty { section.report("host", "the mail server is required: mail: { host: smtp.example.org }") }
        let from = section.string("from", default: nil) ?? ""
        if MailRules.address(of: from) == nil { section.report("from", "the sender is an address (notes@example.org) or Name <address>") }
        let username = section.string("username", default: nil).flatMap { $0.isEmpty ? nil : $0 }
        let password = section.string("password", default: nil).flatMap { $0.isEmpty ? nil : $0 }
        let startTLS = section.bool("starttls", default: true)
        if username != nil, password == nil { section.report("password", "a username needs its password (from the environment: password: ${SMTP_PASSWORD})") }
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host)
        if !startTLS, username != nil, !loopback {
            section.report("starttls", "without STARTTLS the password would cross the network in clear; keep starttls on for \(host)")
        }
        return Config(host: host, port: section.int("port", default: 587, in: 1...65_535), from: from, username: username, password: password,
                      startTLS: startTLS, caFile: section.string("tls_ca_file", default: nil).flatMap { $0.isEmpty ? nil : $0 },
                      timeoutSeconds: section.int("timeout_seconds", default: 30, in: 1...300),
                      maxAttachmentBytes: section.int("max_attachment_bytes", default: 10 << 20, in: 1...(50 << 20)))
    }

    let config: Config
    let client: SMTPClient
    let blobs: any BlobStore
    let logger: Logger
    /// The time a message is dated with and the randomness of its Message-ID and boundary.
    let clock: PluginClock
    let ids: IDSource

    public init(config: Config, context: PluginContext) async throws {
        self.config = config
        clock = context.clock
        ids = context.ids
        let hostName = ProcessInfo.processInfo.hostName
        client = SMTPClient(settings: .init(host: config.host, port: config.port, startTLS: config.startTLS, username: config.username,
                                            password: config.password, caFile: config.caFile, timeout: .seconds(config.timeoutSeconds),
                                            helloName: hostName.isEmpty ? "quire.localdomain" : hostName))
        blobs = BusBlobStore(bus: context.bus)
        logger = context.logger
    }

    public var features: [String] { ["mail"] }

    public func register(on bus: any MessageBus) async throws {
        let plugin = self
        try bus.handle(SendMail.self) { request, _ in try await plugin.send(request) }
    }

    func send(_ request: SendMail) async throws(BusError) -> SendMail.Reply {
        guard let to = MailRules.address(of: request.to), !request.to.contains("<") else {
            throw BusError.invalid("'\(request.to.prefix(100))' is not an email address (name@example.org).", field: "to")
        }
        let total = request.attachments.reduce(0) { $0 + $1.content.size }
        guard total <= config.maxAttachmentBytes else {
            throw BusError(.tooLarge, "The attachments come to \(total) bytes; mail takes at most \(config.maxAttachmentBytes).")
        }
        var files: [(MailAttachment, Data)] = []
        for attachment in request.attachments {
            files.append((attachment, try await attachment.content.bytes(from: blobs)))
        }
        let domain = MailRules.address(of: config.from)?.split(separator: "@").last.map(String.init) ?? "quire.localdomain"
        let messageID = "<" + ids.uuid().uuidString.lowercased() + "@" + domain + ">"
        let message = MIMEMessage(from: config.from, to: to, subject: request.subject, messageID: messageID, date: clock.now(),
                                  text: request.text, attachments: files.map { ($0.0.filename, $0.0.contentType, $0.1) },
                                  boundary: "quire-" + ids.uuid().uuidString.lowercased())
        do {
            try await client.send(from: config.from, to: to, message: message.rendered)
        } catch {
            if error.recipientRefused {
                throw BusError.invalid("The mail server does not take mail for '\(to)'; check the address.", field: "to")
            }
            // The server's words are for the operator: they may name accounts and settings.
            logger.warning("mail: a message was not sent", metadata: ["reason": "\(error.message)", "transient": "\(error.transient)"])
            throw BusError(.unavailable, "Mail cannot be sent right now; try again later.", details: ["retryAfter": "60"])
        }
        logger.info("mail: sent", metadata: ["messageID": "\(messageID)", "attachments": "\(files.count)"])
        return .init(messageID: messageID)
    }
}

enum MailRules {
    /// The address of `mailbox` (`a@b.c` or `Name <a@b.c>`), when it is one: one @, a dot in the
    /// domain, no spaces, quotes, brackets or line breaks (nothing that could add a header).
    static func address(of mailbox: String) -> String? {
        var address = mailbox.trimmingCharacters(in: .whitespaces)
        if let open = address.lastIndex(of: "<"), address.hasSuffix(">") {
            address = String(address[address.index(after: open)..<address.index(before: address.endIndex)])
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              address.utf8.count <= 254,
              !address.contains(where: { $0.isWhitespace || $0.isNewline || "<>()[],;:\\\"".contains($0) }),
              !mailbox.contains(where: \.isNewline) else { return nil }
        return address
    }
}
