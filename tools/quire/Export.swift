import ArgumentParser
import Bus
import Foundation
import StorageAPI
import ToolKit
import ZIPFoundation

/// `quire export --config FILE --user NAME OUT.zip`: everything one user owns, to keep or to take
/// elsewhere. Works on any backend, beside a running server.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write everything of one user to a zip: each record as JSON, photos and drawings as files. Progress on stderr.",
        discussion: """
            The zip holds manifest.json (what is in it), records/<collection>/<id>.json and \
            files/<sha256>.<ext> for every stored file a record names. Sign-in credentials are left out. \
            The zip is written beside OUT and renamed when complete, so OUT is never half-written.
            """)

    @Option(name: .long, help: "The app's YAML file.")
    var config: String

    @Option(name: .long, help: "The user: a user name, or an account id (acc_…).")
    var user: String

    @Argument(help: "The zip to write; it must not exist yet.")
    var output: String

    func run() async throws {
        let session = AppSession(tool: "quire export", config: config)
        let output = URL(fileURLWithPath: self.output)
        guard !FileManager.default.fileExists(atPath: output.path) else {
            throw session.fail("\(self.output) already exists; name a new file.")
        }
        let user = self.user
        let summary = try await session.run(as: user) { bus, account in
            try await UserExport(bus: bus, account: account, user: user).write(to: output)
        }
        print("exported \(summary.records) records and \(summary.files) files of \(user) to \(self.output)")
    }
}

/// One user's records and files, gathered through the bus and written as a zip.
struct UserExport: Sendable {
    let bus: any MessageBus
    let account: String
    let user: String

    /// Collections never exported: what signs a person in is not theirs to carry around.
    static let withheld = ["auth."]

    struct Summary: Sendable {
        var records: Int
        var files: Int
    }

    func write(to output: URL) async throws -> Summary {
        let references = try await owned()
        let partial = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).partial")
        try? FileManager.default.removeItem(at: partial)
        let archive = try Archive(url: partial, accessMode: .create)
        var counts: [String: Int] = [:]
        var blobs: [String] = []
        var seen: Set<String> = []
        var written = 0
        for (index, reference) in references.enumerated() {
            let reply = try await bus.request(GetRecord(collection: reference.collection, id: reference.id, owner: account), timeout: .seconds(30))
            guard let record = reply.record else { continue }
            try add(archive, "records/\(reference.collection)/\(record.id).json", Self.json(record))
            counts[record.collection, default: 0] += 1
            written += 1
            for sha in Self.hashes(in: (try? record.data.parsed()) ?? .null) where seen.insert(sha).inserted { blobs.append(sha) }
            if (index + 1) % 100 == 0 || index + 1 == references.count {
                progress("\(index + 1)/\(references.count) records")
            }
        }
        var files = 0
        for (index, sha) in blobs.enumerated() {
            guard try await bus.request(StatBlob(sha256: sha), timeout: .seconds(30)).blob != nil else { continue }
            let bytes = try await bus.request(GetBlob(sha256: sha), timeout: .seconds(60)).bytes
            try add(archive, "files/\(sha).\(Self.fileExtension(bytes))", bytes)
            files += 1
            progress("\(index + 1)/\(blobs.count) files")
        }
        let manifest = JSONValue.object([
            "user": .string(user), "accountId": .string(account),
            "exportedAt": .string(ISO8601DateFormatter().string(from: Date())),
            "records": .number(Double(written)), "files": .number(Double(files)),
            "collections": .object(counts.mapValues { .number(Double($0)) }),
            "notIncluded": .string("sign-in credentials (passwords, device secrets, sessions)"),
        ])
        try add(archive, "manifest.json", Data(manifest.canonicalJSONText.utf8))
        try FileManager.default.moveItem(at: partial, to: output)
        return Summary(records: written, files: files)
    }

    /// Every record the user owns now: the latest change of each record in their change log
    /// (compaction keeps it), less the deleted ones and the withheld collections.
    private func owned() async throws -> [(collection: String, id: String)] {
        var latest: [String: (collection: String, id: String, deleted: Bool, sequence: Int64)] = [:]
        var after: Int64 = 0
        while true {
            let page = try await bus.request(ReadChanges(query: ChangeQuery(owner: account, after: after, limit: 1000)), timeout: .seconds(30))
            for change in page.changes where change.owner == account {
                latest[change.collection + "\u{0}" + change.recordID] = (change.collection, change.recordID, change.kind == .delete, change.sequence)
            }
            after = page.changes.last?.sequence ?? after
            if !page.hasMore { break }
        }
        return latest.values
            .filter { entry in !entry.deleted && !Self.withheld.contains { entry.collection.hasPrefix($0) } }
            .sorted { $0.sequence < $1.sequence }
            .map { ($0.collection, $0.id) }
    }

    private func add(_ archive: Archive, _ path: String, _ data: Data) throws {
        try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
            data.subdata(in: Int(position)..<Int(position) + size)
        }
    }

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data("quire export: \(text)\n".utf8))
    }

    /// A record as JSON: its identity and times, and its payload as stored.
    static func json(_ record: Record) -> Data {
        let head = [
            ("collection", JSONValue.string(record.collection)), ("id", .string(record.id)), ("version", .number(Double(record.version))),
            ("createdAt", .string(ISO8601DateFormatter().string(from: record.createdAt))),
            ("updatedAt", .string(ISO8601DateFormatter().string(from: record.updatedAt))),
        ].map { "\(JSONValue.string($0.0).canonicalJSONText):\($0.1.canonicalJSONText)" }
        return Data("{\(head.joined(separator: ",")),\"data\":".utf8) + record.data.bytes + Data("}\n".utf8)
    }

    /// The SHA-256 values a payload names (stored files: originals, renditions, drawings).
    static func hashes(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): return BlobRef.isValidHash(text) ? [text] : []
        case .array(let items): return items.flatMap(hashes)
        case .object(let fields): return fields.keys.sorted().flatMap { hashes(in: fields[$0] ?? .null) }
        default: return []
        }
    }

    /// A file name extension from the bytes' first few.
    static func fileExtension(_ bytes: Data) -> String {
        let head = [UInt8](bytes.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if head.count >= 12, head[0...3] == [0x52, 0x49, 0x46, 0x46], head[8...11] == [0x57, 0x45, 0x42, 0x50] { return "webp" }
        if head.count >= 12, head[4...7] == [0x66, 0x74, 0x79, 0x70] { return "heic" }
        if let first = head.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return "json"
        }
        return "bin"
    }
}
