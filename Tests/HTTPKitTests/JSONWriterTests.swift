import Foundation
import HTTPKit
import Testing

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test("strings with quotes, backslashes, control characters and unicode parse back as written",
          arguments: ["plain", "quote \" and \\ backslash", "line\nbreak\ttab\r", "\u{01}\u{1F}", "é 漢字 🙂", ""])
    func escaping(_ text: String) throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("t", text)
        writer.key("n", 42)
        writer.key("missing")
        writer.null()
        writer.endObject()
        let parsed = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any]
        #expect(parsed?["t"] as? String == text)
        #expect(parsed?["n"] as? Int == 42)
        #expect(parsed?["missing"] is NSNull)
    }

    @Test("spliced members join the object's own, in arrays too")
    func splice() throws {
        var writer = JSONWriter()
        writer.beginArray()
        for index in 0..<3 {
            writer.beginObject()
            writer.key("id", "r\(index)")
            writer.members(ofObject: Data(#"{"a":1,"b":"x"}"#.utf8))
            writer.endObject()
        }
        writer.endArray()
        let parsed = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [[String: Any]]
        #expect(parsed?.count == 3)
        #expect(parsed?[2]["id"] as? String == "r2")
        #expect(parsed?[2]["b"] as? String == "x")
    }

    @Test("integers are written as String(_:) writes them, from the digit-pair table; escapes are the short ones")
    func integersAndEscapes() {
        var generator = SystemRandomNumberGenerator()
        let fixed: [Int64] = [0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, 12_345, -100, Int64.max, Int64.min, Int64.min + 1]
        for value in fixed + (0..<2000).map({ _ in Int64.random(in: Int64.min...Int64.max, using: &generator) >> Int64.random(in: 0...62, using: &generator) }) {
            var writer = JSONWriter()
            writer.int(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
        }
        var writer = JSONWriter()
        writer.string("a\"b\\c\nd\re\tf\u{1}\u{1F}\u{7F}é")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""a\"b\\c\nd\re\tf\u0001\u001f\#u{7F}é""#)
    }

    @Test("ISO 8601 dates agree with Foundation's formatter, before and after 1970 and across leap days")
    func dates() {
        let formatter = ISO8601DateFormatter()
        var generator = SystemRandomNumberGenerator()
        let fixed: [TimeInterval] = [0, -1, 951_782_400, 1_709_164_800, 4_102_444_799, -2_208_988_800]
        let random = (0..<2000).map { _ in TimeInterval(Int64.random(in: -5_000_000_000...5_000_000_000, using: &generator)) }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(JSONWriter.iso8601(date) == formatter.string(from: date), "\(seconds)")
        }
    }
}

import Bus

@Suite("Problem documents")
struct ProblemStatusTests {
    @Test("bus error codes map to their HTTP statuses", arguments: [
        (BusError.Code.invalid, 422), (.notFound, 404), (.conflict, 409), (.preconditionFailed, 412), (.unauthenticated, 401),
        (.rateLimited, 429), (.tooLarge, 413), (.unsupportedMedia, 415), (.deadlineExceeded, 504), (.unavailable, 503), (.internal, 500),
    ])
    func statuses(_ code: BusError.Code, _ status: Int) {
        #expect(Int(Problem(BusError(code, "x")).status.code) == status)
    }
}
