import Foundation
@testable import StorageAPI
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    /// Random values, encoded by Foundation, must parse back to themselves.
    @Test("parses what JSONEncoder writes, for thousands of random values")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        func random(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .number(Bool.random(using: &generator) ? Double(Int.random(in: -1_000_000...1_000_000, using: &generator))
                                                                  : Double.random(in: -1e9...1e9, using: &generator))
            case 3:
                let pool: [Character] = ["a", "é", "漢", "🙂", "\"", "\\", "\n", "\t", "\u{01}", "/", " ", "Z"]
                return .string(String((0..<Int.random(in: 0...12, using: &generator)).map { _ in pool.randomElement(using: &generator) ?? "a" }))
            case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in random(depth + 1) })
            default:
                var object: [String: JSONValue] = [:]
                for index in 0..<Int.random(in: 0...4, using: &generator) { object["k\(index)é"] = random(depth + 1) }
                return .object(object)
            }
        }
        for _ in 0..<3000 {
            let value = random(0)
            let data = try JSONEncoder().encode(value)
            let parsed = try JSONParser.parse(data)
            #expect(parsed == value, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    @Test("escapes, surrogate pairs and whitespace")
    func escapes() throws {
        let text = #" { "a" : "\u00e9\ud83d\ude42\n\/" , "b" : [ 1.5e3 , -0 , true , null ] } "#
        #expect(try JSONParser.parse(Data(text.utf8)) == .object(["a": .string("é🙂\n/"), "b": .array([.number(1500), .number(0), .bool(true), .null])]))
    }

    @Test("malformed JSON is refused with 'invalid'", arguments: [
        "", "{", "{\"a\"}", "{\"a\":}", "[1,]", "tru", "\"open", "\"bad \\x escape\"", "\"\\ud83d alone\"", "1 2", "{\"a\":1}}", "nan",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ])
    func malformed(_ text: String) {
        #expect(throws: StorageError.self) { try JSONParser.parse(Data(text.utf8)) }
    }
}
