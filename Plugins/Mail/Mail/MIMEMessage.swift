import Foundation

/// A message as it goes on the wire (RFC 5322, MIME): headers, then a text part and any
/// attachments in base64, every line ending CRLF and none longer than 78 characters.
struct MIMEMessage {
    var from: String
    var to: String
    var subject: String
    var messageID: String
    var date: Date
    var text: String
    var attachments: [(filename: String, contentType: String, bytes: Data)]
    /// Separates the parts when there are attachments: unique to the message (the plugin's id source).
    var boundary: String

    var rendered: String {
        var lines = [
            "From: \(Self.header(from))",
            "To: <\(to)>",
            "Subject: \(Self.encodedWord(subject))",
            "Date: \(Self.rfc5322(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
        ]
        let textPart = ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", "", Self.base64Lines(Data(text.utf8))]
        if attachments.isEmpty {
            lines += textPart
        } else {
            lines += ["Content-Type: multipart/mixed;", " boundary=\"\(boundary)\"", "", "--\(boundary)"] + textPart
            for file in attachments {
                let name = Self.safeFilename(file.filename)
                lines += ["--\(boundary)", "Content-Type: \(Self.safeType(file.contentType));", " name=\"\(name)\"", "Content-Transfer-Encoding: base64",
                          "Content-Disposition: attachment;", " filename=\"\(name)\"", "", Self.base64Lines(file.bytes)]
            }
            lines.append("--\(boundary)--")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Base64 in lines of 76 characters.
    static func base64Lines(_ data: Data) -> String {
        data.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
    }

    /// Text for a header: ASCII as it is, anything else as an RFC 2047 encoded word; never a line break.
    static func encodedWord(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.allSatisfy({ $0.isASCII }) && flat.count <= 900 { return flat }
        return "=?utf-8?B?" + Data(String(flat.prefix(200)).utf8).base64EncodedString() + "?="
    }

    /// A From header: `Name <address>` with the name encoded when it needs to be.
    static func header(_ mailbox: String) -> String {
        guard let open = mailbox.lastIndex(of: "<") else { return mailbox }
        let name = mailbox[..<open].trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? String(mailbox[open...]) : "\(encodedWord(name)) \(mailbox[open...])"
    }

    static func safeFilename(_ name: String) -> String {
        let kept = name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._- ".contains($0)) }
        return kept.isEmpty ? "attachment" : String(kept.prefix(100))
    }

    static func safeType(_ type: String) -> String {
        type.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/.+-".contains($0)) } && type.contains("/") ? type : "application/octet-stream"
    }

    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss +0000"
        return formatter.string(from: date)
    }
}
