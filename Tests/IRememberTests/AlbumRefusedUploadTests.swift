import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Testing

/// An upload the album refuses (not a picture, or a field it does not take) leaves no blob behind:
/// the bytes streamed into storage go at once, not at the next sweep.
@Suite("iRemember: a refused upload's bytes")
struct AlbumRefusedUploadTests {
    let photos: Photos
    init() throws { photos = try Photos() }

    /// The blob files under `blobs`, leaving out storage's scratch folders (names starting with a dot).
    static func blobFiles(_ blobs: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(at: blobs, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [String] = []
        for case let url as URL in walk {
            let relative = url.path.dropFirst(blobs.path.count)
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                  (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            files.append(String(relative))
        }
        return files
    }

    @Test("not a picture, and a picture with a bad takenAt: refused, and no blob is left (the sweep is an hour away)")
    func refusedLeavesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-refused-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let blobs = directory.appendingPathComponent("blobs")
        let storage = "{ backend: sqlite, path: \(directory.path)/album.sqlite, blobs: \(blobs.path), blob_grace_seconds: 0 }"
        let yaml = TestApp.yaml(app: "iremember-test", extraPlugins: IRemember.plugins(), storage: storage)
        let jpeg = try await photos.jpeg(seed: 31)
        try await IRemember.run(yaml: yaml) { client, _ in
            let token = try await client.getStarted()
            var garbage = Data("\u{FF}\u{D8}\u{FF}".utf8)
            garbage.append(Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
            let notPicture = try await client.addPhotoReply(garbage, token: token)
            #expect((400..<500).contains(notPicture.status), "\(notPicture.status) \(notPicture.text)")
            let badTime = try await client.addPhotoReply(jpeg, token: token, query: "takenAt=yesterday")
            #expect(badTime.status == 422 || badTime.status == 400, "\(badTime.status) \(badTime.text)")
            #expect(Self.blobFiles(blobs).isEmpty, "left behind: \(Self.blobFiles(blobs))")
            // A photo that is taken keeps its blob: the check above sees blobs at all.
            #expect(try await client.addPhotoReply(jpeg, token: token).status == 201)
            #expect(!Self.blobFiles(blobs).isEmpty)
        }
    }
}
