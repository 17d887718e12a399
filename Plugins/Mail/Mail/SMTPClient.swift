import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Mail submission over SMTP (RFC 5321, 6409): EHLO, STARTTLS (RFC 3207) and then EHLO again,
/// AUTH PLAIN (RFC 4954), MAIL, RCPT, DATA with dot-stuffing, QUIT. One connection per message.
struct SMTPClient: Sendable {
    struct Settings: Sendable {
        var host: String
        var port: Int
        var startTLS: Bool
        var username: String?
        var password: String?
        var caFile: String?
        var timeout: Duration
        var helloName: String
    }

    struct Failure: Error, CustomStringConvertible {
        /// What happened, for the log (the server's own words included).
        var message: String
        /// Whether trying later may work (the server said 4xx, or could not be reached).
        var transient: Bool
        /// The server refused the recipient's address: the user's to fix, not the operator's.
        var recipientRefused = false
        var description: String { message }
    }

    let settings: Settings

    /// Sends `message` (its headers and body, CRLF lines) from `from` to `to`.
    func send(from: String, to: String, message: String) async throws(Failure) {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.session(from: from, to: to, message: message) }
                group.addTask {
                    try await Task.sleep(for: settings.timeout)
                    throw Failure(message: "The mail server did not finish within \(settings.timeout).", transient: true)
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "The mail server could not be reached (\(settings.host):\(settings.port)).", transient: true)
        }
    }

    private func session(from: String, to: String, message: String) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        try await channel.executeThenClose { inbound, outbound in
            var lines = ReplyReader(inbound.makeAsyncIterator())
            try await lines.expect(220, "greeting")
            var capabilities = try await hello(&lines, outbound)
            if settings.startTLS {
                guard capabilities.contains("STARTTLS") else {
                    throw Failure(message: "The mail server does not offer STARTTLS; it is required (mail.starttls).", transient: false)
                }
                try await outbound.write(ByteBuffer(string: "STARTTLS\r\n"))
                try await lines.expect(220, "STARTTLS")
                let settings = self.settings
                let underlying = channel.channel
                try await underlying.eventLoop.submit {
                    try underlying.pipeline.syncOperations.addHandler(try Self.tlsHandler(settings), position: .first)
                }.get()
                capabilities = try await hello(&lines, outbound)
            }
            if let username = settings.username, let password = settings.password {
                guard capabilities.contains(where: { $0.hasPrefix("AUTH") && $0.contains("PLAIN") }) else {
                    throw Failure(message: "The mail server offers no AUTH PLAIN; Quire cannot sign in to it.", transient: false)
                }
                let token = Data(("\u{0}" + username + "\u{0}" + password).utf8).base64EncodedString()
                try await outbound.write(ByteBuffer(string: "AUTH PLAIN \(token)\r\n"))
                try await lines.expect(235, "sign-in (check mail.username and mail.password)")
            }
            try await outbound.write(ByteBuffer(string: "MAIL FROM:<\(Self.address(from))>\r\n"))
            try await lines.expect(250, "sender")
            try await outbound.write(ByteBuffer(string: "RCPT TO:<\(to)>\r\n"))
            try await lines.expect(250, "recipient", alsoOK: [251])
            try await outbound.write(ByteBuffer(string: "DATA\r\n"))
            try await lines.expect(354, "message")
            try await outbound.write(ByteBuffer(string: Self.dotStuffed(message) + ".\r\n"))
            try await lines.expect(250, "message")
            try await outbound.write(ByteBuffer(string: "QUIT\r\n"))
            _ = try? await lines.reply()
        }
    }

    private func hello(_ lines: inout ReplyReader, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws -> [String] {
        try await outbound.write(ByteBuffer(string: "EHLO \(settings.helloName)\r\n"))
        let reply = try await lines.expect(250, "EHLO")
        return reply.lines.dropFirst().map { $0.uppercased() }
    }

    private static func tlsHandler(_ settings: Settings) throws -> NIOSSLClientHandler {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile { configuration.trustRoots = .file(caFile) }
        let context = try NIOSSLContext(configuration: configuration)
        let isAddress = settings.host.contains(":") || settings.host.allSatisfy { $0.isNumber || $0 == "." }
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : settings.host)
    }

    /// The address inside `Name <address>`, or the whole when there are no brackets.
    static func address(_ mailbox: String) -> String {
        guard let open = mailbox.lastIndex(of: "<"), let close = mailbox.lastIndex(of: ">"), open < close else { return mailbox }
        return String(mailbox[mailbox.index(after: open)..<close])
    }

    /// A line starting with "." gets another (RFC 5321 4.5.2), so that no line ends the message early.
    static func dotStuffed(_ message: String) -> String {
        var text = message.replacingOccurrences(of: "\r\n.", with: "\r\n..")
        if text.hasPrefix(".") { text = "." + text }
        if !text.hasSuffix("\r\n") { text += "\r\n" }
        return text
    }
}

/// Reads SMTP replies (a code, and lines `250-…` continued until `250 …`) from the bytes as they come.
struct ReplyReader {
    struct Reply {
        var code: Int
        var lines: [String]
    }

    var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    var pending = ""

    init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) { self.iterator = iterator }

    mutating func line() async throws -> String {
        while true {
            if let end = pending.range(of: "\r\n") {
                let line = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                return line
            }
            guard pending.utf8.count < 64 * 1024, var buffer = try await iterator.next() else {
                throw SMTPClient.Failure(message: "The mail server closed the connection.", transient: true)
            }
            pending += buffer.readString(length: buffer.readableBytes) ?? ""
        }
    }

    mutating func reply() async throws -> Reply {
        var lines: [String] = []
        while true {
            let line = try await line()
            guard line.utf8.count >= 3, let code = Int(line.prefix(3)) else {
                throw SMTPClient.Failure(message: "The mail server answered something that is not SMTP.", transient: false)
            }
            lines.append(line.count > 4 ? String(line.dropFirst(4)) : "")
            if line.count < 4 || line[line.index(line.startIndex, offsetBy: 3)] != "-" { return Reply(code: code, lines: lines) }
        }
    }

    /// The next reply, which must be `code`; otherwise a failure naming the step and the server's words.
    @discardableResult
    mutating func expect(_ code: Int, _ step: String, alsoOK: [Int] = []) async throws -> Reply {
        let reply = try await reply()
        guard reply.code == code || alsoOK.contains(reply.code) else {
            let said = reply.lines.joined(separator: " ").prefix(200)
            throw SMTPClient.Failure(message: "The mail server refused the \(step): \(reply.code) \(said)", transient: (400..<500).contains(reply.code),
                                     recipientRefused: step == "recipient" && (500..<600).contains(reply.code))
        }
        return reply
    }
}
