public import Hummingbird
import Foundation

/// The one list envelope of the API: `{"items": […], "nextCursor": "…"}`, with `nextCursor` always
/// present and `null` on the last page. Every list route answers it and takes `limit` and `cursor`.
public struct ListPage<Item: Encodable>: Encodable {
    public var items: [Item]
    /// Send back as `?cursor=` for the next page; nil on the last page.
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey { case items, nextCursor }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)  // null, not absent, on the last page
    }
}

extension ListPage {
    /// One page of a list the service returns whole (a user's tags, collections, links: small and
    /// in a stable order): `?limit` (default `pageSize`, at most `max`) and `?cursor` from the
    /// previous page.
    public static func slice(_ all: [Item], request: Request, pageSize: Int, max: Int) throws -> ListPage {
        let limit = try request.limit(default: pageSize, max: max)
        let start = try OffsetCursor.decode(try request.query("cursor"))
        guard start <= all.count else { return ListPage(items: [], nextCursor: nil) }
        let end = Swift.min(all.count, start + limit)
        return ListPage(items: Array(all[start..<end]), nextCursor: end < all.count ? OffsetCursor.encode(end) : nil)
    }
}

/// Cursor text as clients carry it: base64url without padding, opaque to them.
public enum OpaqueCursor {
    public static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// The text a cursor carries; nil when it is longer than `maxLength` or not one `encode` made.
    public static func decode(_ cursor: String, maxLength: Int) -> String? {
        guard cursor.count <= maxLength else { return nil }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).flatMap { String(data: $0, encoding: .utf8) }
    }
}

/// A position in a short list, opaque to clients.
public enum OffsetCursor {
    public static func encode(_ offset: Int) -> String { OpaqueCursor.encode("o:\(offset)") }

    /// The offset a cursor stands for (0 without one); 400 for a cursor this API did not give.
    public static func decode(_ text: String?) throws -> Int {
        guard let text else { return 0 }
        guard let decoded = OpaqueCursor.decode(text, maxLength: 40), decoded.hasPrefix("o:"),
              let offset = Int(decoded.dropFirst(2)), offset >= 0 else {
            throw Problem.badRequest("The cursor is not one this list gave; start from the first page.", field: "cursor")
        }
        return offset
    }
}
