public import Foundation
public import Hummingbird

/// How one kind of upload is taken in under the server's memory budget: what it reserves, where its
/// body may be written, how its first bytes are checked and what a written file or the collected
/// bytes become. The plugin that knows the kind builds it (images: `ImageUpload.intake` in MediaAPI);
/// ``Request/withBudgetedUpload(_:limit:_:)`` does the rest, the same for every route.
public struct UploadIntake<Upload> {
    /// What the upload is, as an answer names it ("a photo").
    public var what: String
    /// What the reservation is for, as a refusal names it ("this photo").
    public var reservation: String
    /// The bytes to reserve, from the declared body size (nil when none was declared) and the limit.
    public var cost: (_ declaredBytes: Int?, _ limit: Int) -> Int
    /// Where to write the body, or nil to collect it in memory (storage keeps no files here).
    public var spoolDirectory: () async -> URL?
    /// Refuses a body by its first bytes, before the rest is read.
    public var checkHead: (Data) throws -> Void
    /// The written file as the upload (the file is the callee's afterwards).
    public var fromFile: (URL) async throws -> Upload
    /// The collected body as the upload.
    public var fromBytes: (Data) async throws -> Upload

    public init(what: String, reservation: String, cost: @escaping (_ declaredBytes: Int?, _ limit: Int) -> Int,
                spoolDirectory: @escaping () async -> URL?, checkHead: @escaping (Data) throws -> Void,
                fromFile: @escaping (URL) async throws -> Upload, fromBytes: @escaping (Data) async throws -> Upload) {
        self.what = what
        self.reservation = reservation
        self.cost = cost
        self.spoolDirectory = spoolDirectory
        self.checkHead = checkHead
        self.fromFile = fromFile
        self.fromBytes = fromBytes
    }
}

extension Request {
    /// Takes the body in as `intake` says, under ``MemoryBudget/shared``, and runs `work` with it
    /// while the reservation holds: the cost is reserved before a byte is read (a refusal drains the
    /// body, then answers 503); the body is written to a file in the spool directory as it arrives
    /// (its first bytes checked first) or, when there is none, collected in memory; both under `limit`.
    public mutating func withBudgetedUpload<Upload, Result>(_ intake: UploadIntake<Upload>, limit: Int,
                                                            isolation: isolated (any Actor)? = #isolation,
                                                            _ work: (Upload) async throws -> Result) async throws -> Result {
        let cost = intake.cost(headers[.contentLength].flatMap { Int($0) }, limit)
        return try await MemoryBudget.shared.withReservation(cost, for: intake.reservation, draining: self, limit: limit) {
            let upload: Upload
            if let directory = await intake.spoolDirectory() {
                let spooled = try await spoolUpload(limit: limit, what: intake.what, into: directory, checkHead: intake.checkHead)
                upload = try await intake.fromFile(spooled.file)
            } else {
                upload = try await intake.fromBytes(try await collectUpload(limit: limit, what: intake.what))
            }
            return try await work(upload)
        }
    }
}
