import Foundation
import HTTPKit
import Hummingbird
import NIOCore
import Synchronization
import Testing

@Suite("Streamed uploads")
struct SpoolUploadTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-spool-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func request(_ body: RequestBody, length: Int? = nil) -> Request {
        var head = HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/api/v1/album/photos")
        head.headerFields[.contentType] = "image/jpeg"
        if let length { head.headerFields[.contentLength] = String(length) }
        return Request(head: head, body: body)
    }

    static func files(in directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    static let jpegHead: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x11, count: 60)

    @Test("the body is written to a file piece by piece as it arrives, never collected whole")
    func streams() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (body, source) = RequestBody.makeStream()
        let request = Self.request(body)
        let heads = ManagedHeads()
        let upload = Task {
            try await request.spoolUpload(limit: 1 << 20, what: "a photo", into: directory) { head in heads.append(head) }
        }
        let first = Self.jpegHead + Array(repeating: 0x22, count: 4000)
        await source.yield(ByteBuffer(bytes: first))
        // The first piece is on disk while the rest has not been sent: the handler consumes the stream.
        #expect(await eventually { Self.files(in: directory).count == 1
            && Self.size(of: directory.appendingPathComponent(Self.files(in: directory)[0]).path) == first.count })
        #expect(heads.all.count == 1)  // the first bytes were checked before anything more was read
        let second = Array(repeating: UInt8(0x33), count: 7000)
        await source.yield(ByteBuffer(bytes: second))
        source.finish()
        let spooled = try await upload.value
        #expect(spooled.size == first.count + second.count)
        #expect(spooled.file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        #expect(try Data(contentsOf: spooled.file) == Data(first + second))
        #expect(heads.all == [Data(first.prefix(32))])
    }

    @Test("an upload whose first bytes are refused stops there: nothing more is read and no file is left")
    func refusedByItsHead() async throws {
        struct NotAnImage: Error {}
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (body, source) = RequestBody.makeStream()
        let request = Self.request(body)
        let upload = Task {
            try await request.spoolUpload(limit: 1 << 20, what: "a photo", into: directory) { head in
                if head.first != 0xFF { throw NotAnImage() }
            }
        }
        await source.yield(ByteBuffer(bytes: Array("<html> not a picture at all, but long enough to check </html>".utf8)))
        await #expect(throws: NotAnImage.self) { try await upload.value }
        #expect(Self.files(in: directory).isEmpty)
        source.finish()
    }

    @Test("a body past the limit is refused with 413 as it passes it, and its file removed")
    func overLimit() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (body, source) = RequestBody.makeStream()
        let request = Self.request(body)
        let upload = Task { try await request.spoolUpload(limit: 10_000, what: "a photo", into: directory) { _ in } }
        await source.yield(ByteBuffer(bytes: Self.jpegHead + Array(repeating: 0x44, count: 6000)))
        await source.yield(ByteBuffer(bytes: Array(repeating: UInt8(0x44), count: 6000)))
        let problem = await #expect(throws: Problem.self) { try await upload.value }
        #expect(problem?.status == .contentTooLarge)
        #expect(problem?.code == "too_large")
        #expect(Self.files(in: directory).isEmpty)
        source.finish()
    }

    @Test("a declared length over the limit is refused before a byte is read; an empty body is refused too")
    func declaredAndEmpty() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tooLong = Self.request(RequestBody(buffer: ByteBuffer(bytes: Self.jpegHead)), length: 50_000)
        let problem = await #expect(throws: Problem.self) {
            try await tooLong.spoolUpload(limit: 10_000, what: "a photo", into: directory) { _ in }
        }
        #expect(problem?.status == .contentTooLarge)
        let empty = Self.request(RequestBody(buffer: ByteBuffer()))
        let emptyProblem = await #expect(throws: Problem.self) {
            try await empty.spoolUpload(limit: 10_000, what: "a photo", into: directory) { _ in }
        }
        #expect(emptyProblem?.status == .badRequest)
        #expect(Self.files(in: directory).isEmpty)
    }

    @Test("a body shorter than the head size is still checked, whole")
    func shortBody() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let heads = ManagedHeads()
        let request = Self.request(RequestBody(buffer: ByteBuffer(bytes: [0xFF, 0xD8, 0xFF])))
        let spooled = try await request.spoolUpload(limit: 10_000, what: "a photo", into: directory) { heads.append($0) }
        #expect(heads.all == [Data([0xFF, 0xD8, 0xFF])])
        #expect(spooled.size == 3)
    }
}

/// The heads a check saw.
final class ManagedHeads: Sendable {
    private let heads = Mutex<[Data]>([])
    func append(_ head: Data) { heads.withLock { $0.append(head) } }
    var all: [Data] { heads.withLock { $0 } }
}

@Suite("Refused uploads")
struct RefusedUploadTests {
    @Test("a refused upload's body is read to its end before the 503, so a client sending it sees the answer")
    func drainsBeforeRefusing() async throws {
        let budget = MemoryBudget(bytes: 100, wait: .milliseconds(1), trim: {})
        let door = Door()
        let holder = Task { try await budget.withReservation(100, for: "the first") { await door.wait() } }
        #expect(await eventually { budget.inUseBytes == 100 })
        let (body, source) = RequestBody.makeStream()
        let request = SpoolUploadTests.request(body)
        let ran = Shared(false)
        let refused = Task {
            try await budget.withReservation(60, for: "this photo", draining: request, limit: 1 << 20) { ran.withLock { $0 = true } }
        }
        // The sender pushes its whole body (more than the stream buffers); each push returns only
        // because the refusal reads it.
        for _ in 0..<16 { await source.yield(ByteBuffer(bytes: Array(repeating: UInt8(0x55), count: 8192))) }
        source.finish()
        let problem = await #expect(throws: Problem.self) { try await refused.value }
        #expect(problem?.status == .serviceUnavailable)
        #expect(problem?.headers[.retryAfter] != nil)
        #expect(ran.withLock { $0 } == false)
        door.open()
        try await holder.value
    }
}
