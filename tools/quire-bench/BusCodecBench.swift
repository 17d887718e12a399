import ArgumentParser
import Bus
import BusNATS
import Foundation
import NIOCore
import StorageAPI

/// `quire-bench bus-codec`: the bus's message encodings alone, without NATS. Each round codes one
/// request and its reply each way, as two nodes do (encode and decode the request, encode and decode
/// the reply in its envelope), for a small message (`{"sequence":N}`) and a record-sized one.
/// Candidates, all JSON:
/// - `foundation_envelope`: Foundation's coders, the envelope a `Codable` enum (the bus before 2026-11-26);
/// - `hand_envelope`: the envelope written by hand (``ReplyEnvelope``) around Foundation's payload;
/// - `storage_parser_envelope`: storage's own JSON parser reading the envelope, then the reply member
///   written back out for the typed decode (`JSONValue` has no `Decoder`);
/// - `bus_json`: the hand-written envelope around the bus's own coder (``JSONPayloadCodec``), the bus now.
/// swift-protobuf for the envelope is not a dependency; BENCHMARKS.md (2026-11-26) has its figures
/// from a scratch package with the same rounds.
struct BusCodecBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bus-codec", abstract: "The bus's message encodings: encode and decode requests and replies, each way.")

    @Option(help: "Rounds per candidate and message size.") var count = 100_000
    @Option(help: "One candidate alone (foundation_envelope, hand_envelope, storage_parser_envelope, bus_json), for callgrind.")
    var only: String?
    @Option(help: "One message size alone (small, record), for callgrind.") var size: String?
    @Flag(help: "Run each round `count` times once, untimed (for callgrind: instructions per round are the difference of two counts).")
    var once = false

    static let candidates: [(String, @Sendable (Sample, Sample) throws -> Void)] = [
        ("foundation_envelope", { try foundation($0, $1) }),
        ("hand_envelope", { try hand($0, $1, codec: foundationCodec) }),
        ("storage_parser_envelope", { try storageParser($0, $1) }),
        ("bus_json", { try hand($0, $1, codec: codec) }),
    ]

    func run() throws {
        var results: [String: [String: Double]] = [:]
        for (size, request, reply) in [("small", Sample.small, Sample.smallReply), ("record", Sample.record, Sample.recordReply)]
        where self.size.map({ $0 == size }) ?? true {
            var row: [String: Double] = [:]
            for (name, round) in Self.candidates where only.map({ $0 == name }) ?? true {
                if once {
                    for _ in 0..<count { try round(request, reply) }
                    row[name] = Double(count)
                } else {
                    row[name] = try measure { try round(request, reply) }
                }
            }
            results[size] = row
        }
        guard !results.values.allSatisfy(\.isEmpty) else { throw ValidationError("no candidate named \(only ?? "") of size \(size ?? "")") }
        let data = try JSONSerialization.data(withJSONObject: [once ? "rounds" : "rounds_per_second": results, "count": count],
                                              options: [.sortedKeys, .prettyPrinted])
        print(String(decoding: data, as: UTF8.self))
    }

    /// Rounds per second (the best of three runs of `count`).
    private func measure(_ round: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        for _ in 0..<max(1, count / 10) { try round() }
        var best = Duration.seconds(1_000_000)
        for _ in 0..<3 {
            let start = clock.now
            for _ in 0..<count { try round() }
            best = min(best, clock.now - start)
        }
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
        return (Double(count) / seconds).rounded()
    }

    private static let codec = JSONPayloadCodec()
    private static let foundationCodec = JSONPayloadCodec(fast: false)
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    /// The request's JSON both ways; the reply as today's `{"reply":…}` through a `Codable` enum.
    static func foundation(_ request: Sample, _ reply: Sample) throws {
        let sent = try decoder.decode(Sample.self, from: encoder.encode(request))
        let bytes = ByteBuffer(bytes: try encoder.encode(CodableEnvelope<Sample>.reply(sent.answered(reply))))
        guard case .reply = try decoder.decode(CodableEnvelope<Sample>.self, from: Data(bytes.readableBytesView)) else { throw ValidationError("no reply") }
    }

    static func hand(_ request: Sample, _ reply: Sample, codec: JSONPayloadCodec) throws {
        let sent = try codec.decode(Sample.self, from: codec.encode(request))
        let bytes = ReplyEnvelope.reply(try codec.encode(sent.answered(reply)))
        guard case .success = try ReplyEnvelope.read(Sample.self, from: bytes, codec: codec) else { throw ValidationError("no reply") }
    }

    static func storageParser(_ request: Sample, _ reply: Sample) throws {
        let sent = try decoder.decode(Sample.self, from: encoder.encode(request))
        let bytes = ReplyEnvelope.reply(Array(try encoder.encode(sent.answered(reply))))
        guard case .object(let members) = try JSONDocument(trustedBytes: Data(bytes.readableBytesView)).parsed(), let member = members["reply"]
        else { throw ValidationError("no reply") }
        _ = try decoder.decode(Sample.self, from: Data(member.canonicalJSONText.utf8))
    }
}

/// The envelope as the bus wrote it before 2026-11-26: a `Codable` enum through Foundation's coders.
private enum CodableEnvelope<Reply: Codable>: Codable {
    case reply(Reply)
    case failure(BusError)

    enum Keys: String, CodingKey { case reply, error }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if container.contains(.error) {
            self = .failure(try container.decode(BusError.self, forKey: .error))
        } else {
            self = .reply(try container.decode(Reply.self, forKey: .reply))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .reply(let reply): try container.encode(reply, forKey: .reply)
        case .failure(let error): try container.encode(error, forKey: .error)
        }
    }
}

/// A message of the bench: `{"sequence":N}` alone, or with a record's fields (a note's size).
struct Sample: Codable {
    var sequence: Int
    var id: String?
    var title: String?
    var body: String?
    var tags: [String]?
    var updatedAt: Date?
    var version: Int?

    func answered(_ reply: Sample) -> Sample {
        var reply = reply
        reply.sequence = sequence
        return reply
    }

    static let small = Sample(sequence: 1)
    static let smallReply = Sample(sequence: 0)
    static let record = Sample(sequence: 1, id: "0193a4c2-7d1e-7f00-9c1a-3b2f1e0d9a11", title: nil, body: nil, tags: nil, updatedAt: nil, version: 7)
    static let recordReply = Sample(sequence: 0, id: "0193a4c2-7d1e-7f00-9c1a-3b2f1e0d9a11", title: "Shopping on Saturday",
                                    body: String(repeating: "Bread, milk, two lemons and the good olive oil. ", count: 6),
                                    tags: ["home", "errands", "weekend"], updatedAt: Date(timeIntervalSince1970: 1_795_000_000), version: 8)
}
