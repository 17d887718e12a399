import Foundation
@testable import Mail
import Testing

/// The message as it goes on the wire, and the addresses the plugin takes.
@Suite("Mail: the message and the addresses")
struct MailMessageTests {
    @Test("headers encoded where they need to be, CRLF lines no longer than 78, the photo in base64, a lone dot stuffed")
    func rendered() throws {
        let photo = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        let message = MIMEMessage(from: "Napkin Notes <notes@napkin.example>", to: "friend@example.org", subject: "Crème brûlée\r\nBcc: x@y.z",
                                  messageID: "<1@napkin.example>", date: Date(timeIntervalSince1970: 1_800_000_000),
                                  text: "one\n.\ntwo", attachments: [("photo.jpg", "image/jpeg", photo)], boundary: "quire-test-boundary")
        let text = message.rendered
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 78 })
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n") && !text.replacingOccurrences(of: "\r\n", with: "").contains("\r"),
                "no bare line breaks")
        #expect(lines.contains("Subject: =?utf-8?B?" + Data("Crème brûlée  Bcc: x@y.z".utf8).base64EncodedString() + "?="),
                "a line break in the subject cannot start a header")
        #expect(lines.contains("Date: Fri, 15 Jan 2027 08:00:00 +0000"))
        #expect(lines.contains(" filename=\"photo.jpg\""))
        let stuffed = SMTPClient.dotStuffed("a\r\n.\r\nb\r\n")
        #expect(stuffed == "a\r\n..\r\nb\r\n")
        // The attachment decodes back to the bytes.
        let start = try #require(lines.firstIndex(of: " filename=\"photo.jpg\"")) + 2
        let end = try #require(lines[start...].firstIndex { $0.hasPrefix("--quire-") })
        #expect(Data(base64Encoded: lines[start..<end].joined()) == photo)
    }

    @Test("addresses: plain or Name <address>; anything that could add a header or a recipient is refused")
    func addresses() {
        #expect(MailRules.address(of: "friend@example.org") == "friend@example.org")
        #expect(MailRules.address(of: "Napkin Notes <notes@napkin.example>") == "notes@napkin.example")
        for bad in ["x@example.org\r\nBcc: all@example.org", "not an address", "a@b", "a@@b.c", "a@.b.c", "a b@c.d", "a@b.c>, <d@e.f", ""] {
            #expect(MailRules.address(of: bad) == nil, "\(bad)")
        }
    }
}
