import Bus
@testable import BusNATS
import Foundation
import NIOCore
import Testing

/// The bus's JSON (``JSONPayloadCodec``): its own coder writes what Foundation's reads and reads what
/// Foundation's writes, takes the shapes bus messages have without falling back, and hands the rest
/// to Foundation. The reply envelope keeps the bytes the bus wrote before.
@Suite("Bus payload codec: JSON")
struct BusPayloadCodecTests {
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case square(side: Int, label: String?)
        case none
    }

    struct Record: Codable, Equatable {
        var id: String
        var title: String?
        var body: String
        var tags: [String]
        var shapes: [Shape]
        var counts: [String: [Int]]
        var byNumber: [Int: String]
        var data: Data
        var url: URL
        var missing: Int?
        var present: Int?
        var double: Double
        var negativeZero: Double
        var smallest: Int
        var largest: UInt64
        var flag: Bool
        var date: Date
        var nested: [[Bool?]]
    }

    static let record = Record(
        id: "0193a4c2-7d1e", title: nil, body: "a/b \"quoted\" back\\slash\nnew line\u{1} tab\t é 😀", tags: ["home", ""],
        shapes: [.circle(radius: 1.5), .square(side: 2, label: nil), .none, .circle(radius: 1.0), .circle(radius: 1e-7)],
        counts: ["a": [1, -2], "b": []], byNumber: [3: "three"], data: Data([0, 1, 2, 250]), url: URL(string: "https://example.org/a?b=c")!,
        missing: nil, present: 0, double: 123456789.125, negativeZero: -0.0, smallest: Int.min, largest: UInt64.max, flag: true,
        date: Date(timeIntervalSinceReferenceDate: 816_692_800.25), nested: [[true, nil], []])

    static let codec = JSONPayloadCodec()

    static func encodeFast<Value: Encodable>(_ value: Value) throws -> [UInt8] { try BusJSONEncoder.encode(value) }

    static func decodeFast<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8]) throws -> Value {
        try bytes.withUnsafeBytes { try BusJSONDecoder.decode(type, from: $0) }
    }

    @Test("a record-sized message: the fast path writes what Foundation reads, and reads what Foundation writes")
    func roundTrips() throws {
        let ours = try Self.encodeFast(Self.record)
        #expect(try JSONDecoder().decode(Record.self, from: Data(ours)) == Self.record)
        #expect(try Self.decodeFast(Record.self, Array(JSONEncoder().encode(Self.record))) == Self.record)
        #expect(try Self.decodeFast(Record.self, ours) == Self.record)
        // The same JSON values as Foundation's (it writes an object's members in another order).
        let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.record)) as? NSDictionary
        #expect(try JSONSerialization.jsonObject(with: Data(ours)) as? NSDictionary == theirs)
    }

    @Test("small messages and fragments are the bytes Foundation writes")
    func sameBytes() throws {
        struct Ping: Codable, Equatable { var sequence: Int }
        #expect(try Self.encodeFast(Ping(sequence: -42)) == Array(JSONEncoder().encode(Ping(sequence: -42))))
        #expect(try Self.encodeFast(Empty()) == Array("{}".utf8))
        #expect(try Self.encodeFast(Empty()) == Array(JSONEncoder().encode(Empty())))
        #expect(try Self.encodeFast(Int?.none) == Array("null".utf8))
        #expect(try Self.encodeFast(7) == Array("7".utf8))
        #expect(try Self.encodeFast("a/b") == Array(JSONEncoder().encode("a/b")))
        #expect(try Self.encodeFast([1.0, 2.5, 1e21]) == Array(JSONEncoder().encode([1.0, 2.5, 1e21])))
        #expect(try Self.decodeFast(Empty.self, Array("{}".utf8)) == Empty())
        #expect(try Self.decodeFast(Int?.self, Array(" null ".utf8)) == nil)
        let error = BusError(.notFound, "No note 7.", details: ["id": "7"])
        #expect(try Self.decodeFast(BusError.self, Self.encodeFast(error)) == error)
    }

    @Test("what the fast path does not take, Foundation does, and its errors are Foundation's")
    func fallsBack() throws {
        // Integers written as Foundation also reads them.
        #expect(throws: BusJSONFallback.self) { try Self.decodeFast(Int.self, Array("1.0".utf8)) }
        #expect(try Self.codec.decode(Int.self, from: Array("1.0".utf8)) == 1)
        #expect(try Self.codec.decode(Int.self, from: Array("1e3".utf8)) == 1000)
        #expect(try Self.codec.decode(Float.self, from: Array("0.1".utf8)) == Float(0.1))
        #expect(try Self.codec.encode(Float(0.5)) == Array("0.5".utf8))
        // Refused by both: the error a caller sees is Foundation's.
        for text in ["1.5", "true", "\"5\"", "01", "[1,]", "{\"a\":1,}", "\"\u{1}\"", "1 2", "", "nul", "\"\\ud800\""] {
            #expect(throws: DecodingError.self, "\(text)") { try Self.codec.decode(Int.self, from: Array(text.utf8)) }
        }
        #expect(throws: (any Error).self) { try Self.codec.encode(Double.nan) }
        // Invalid UTF-8 in a string.
        #expect(throws: DecodingError.self) { try Self.codec.decode(String.self, from: [0x22, 0xFF, 0x22]) }
        #expect(try Self.codec.decode(String.self, from: Array("\"\\u00e9\\ud83d\\ude00\\/\"".utf8)) == "é😀/")
        // A number past Int and a missing member.
        #expect(throws: DecodingError.self) { try Self.codec.decode(Int.self, from: Array("9223372036854775808".utf8)) }
        #expect(throws: DecodingError.self) { try Self.codec.decode(Record.self, from: Array("{}".utf8)) }
    }

    @Test("the reply envelope: the bytes the bus wrote before, and every spelling of it read")
    func envelope() throws {
        struct Pong: Codable, Equatable { var sequence: Int }
        let reply = ReplyEnvelope.reply(try Self.codec.encode(Pong(sequence: 5)))
        #expect(reply == ByteBuffer(string: #"{"reply":{"sequence":5}}"#))
        #expect(try ReplyEnvelope.read(Pong.self, from: reply, codec: Self.codec).get() == Pong(sequence: 5))
        #expect(ReplyEnvelope.reply(try Self.codec.encode(Int?.none)) == ByteBuffer(string: #"{"reply":null}"#))
        #expect(try ReplyEnvelope.read(Int?.self, from: ByteBuffer(string: #"{"reply":null}"#), codec: Self.codec).get() == nil)
        // Written by another JSON writer: spaces, members in another order; an error wins over a reply.
        #expect(try ReplyEnvelope.read(Pong.self, from: ByteBuffer(string: #" { "reply" : { "sequence" : 6 } } "#), codec: Self.codec).get() == Pong(sequence: 6))
        let error = BusError(.notFound, "No note 7.", details: ["id": "7"])
        let failure = ReplyEnvelope.failure(try Self.codec.encode(error))
        #expect(throws: error) { try ReplyEnvelope.read(Pong.self, from: failure, codec: Self.codec).get() }
        let both = ByteBuffer(string: #"{"reply":{"sequence":1},"error":{"code":"not_found","message":"No note 7.","details":{"id":"7"}}}"#)
        #expect(throws: error) { try ReplyEnvelope.read(Pong.self, from: both, codec: Self.codec).get() }
        #expect(throws: DecodingError.self) { try ReplyEnvelope.read(Pong.self, from: ByteBuffer(string: #"{"reply":"five"}"#), codec: Self.codec) }
        #expect(throws: DecodingError.self) { try ReplyEnvelope.read(Pong.self, from: ByteBuffer(string: "{}"), codec: Self.codec) }
    }
}
