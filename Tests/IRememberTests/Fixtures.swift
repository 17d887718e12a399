import AppHost
import AppHostTestKit
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// iRemember's plugins as a test app: in-memory storage, the same renditions as the shipped YAML,
/// URL imports allowed to reach the test web server on 127.0.0.2 only.
enum IRemember {
    static func yaml(shareLink: String = "{ resolves_per_minute: 1000 }", media: String = "max_upload_bytes: 10485760") -> String {
        TestApp.yaml(app: "iremember-test", extraPlugins: plugins(shareLink: shareLink, media: media))
    }

    static func plugins(shareLink: String = "{ resolves_per_minute: 1000 }", media: String = "max_upload_bytes: 10485760") -> String {
        """
          media: { \(media), renditions: [{ name: thumb, width: 64, height: 64, fit: cover }, { name: display, width: 320, height: 320, format: webp }, { name: share, width: 400, height: 400, format: jpeg }] }
          drawing: {}
          geo: {}
          share-link: \(shareLink)
          album: { import_allow_networks: [127.0.0.2/32], import_timeout_seconds: 10 }

        """
    }

    /// The app; with `clock`, the plugins read the time from it.
    static func run(yaml: String = IRemember.yaml(), clock: ManualClock? = nil,
                    _ body: @Sendable (APIClient, AppHost) async throws -> Void) async throws {
        if let clock {
            try await TestApp.run(yaml: yaml, clock: clock.pluginClock, body)
        } else {
            try await TestApp.run(yaml: yaml, body)
        }
    }
}

/// Test images made with vips, EXIF written with exiftool (both installed by tools/setup). Each
/// distinct image is made once per test process: the tools cost CPU that other suites' deadlines need.
final class Photos: Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-album-\(UUID().uuidString)")
    private static let made = Mutex<[String: Data]>([:])
    init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: directory) }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestAppFailure("\(arguments.joined(separator: " ")) failed") }
    }

    /// A JPEG whose pixels depend on `seed`, with EXIF GPS and time when given.
    /// The tools run on a thread of their own: waiting for a process must not hold one of the test
    /// run's few cooperative threads (every other suite's bus deadlines depend on them).
    func jpeg(seed: Int = 0, latitude: Double? = nil, longitude: Double? = nil, taken: String? = nil) async throws -> Data {
        let key = "\(seed)|\(latitude ?? .nan)|\(longitude ?? .nan)|\(taken ?? "")"
        if let data = Self.made.withLock({ $0[key] }) { return data }
        let result: Result<Data, any Error> = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Result { try self.make(seed: seed, latitude: latitude, longitude: longitude, taken: taken) })
            }.start()
        }
        let data = try result.get()
        Self.made.withLock { $0[key] = data }
        return data
    }

    private func make(seed: Int, latitude: Double?, longitude: Double?, taken: String?) throws -> Data {
        let name = "p\(seed)-\(UUID().uuidString)"
        let xyz = directory.appendingPathComponent(name + ".v").path
        let out = directory.appendingPathComponent(name + ".jpg").path
        try run(["vips", "xyz", xyz, "320", "240"])
        try run(["vips", "linear", xyz, out, "1", "\(seed % 200)", "--uchar"])
        var tags: [String] = []
        if let latitude, let longitude {
            tags += ["-GPSLatitude=\(abs(latitude))", "-GPSLatitudeRef=\(latitude < 0 ? "S" : "N")",
                     "-GPSLongitude=\(abs(longitude))", "-GPSLongitudeRef=\(longitude < 0 ? "W" : "E")"]
        }
        if let taken { tags.append("-DateTimeOriginal=\(taken)") }
        if !tags.isEmpty { try run(["exiftool", "-q", "-overwrite_original"] + tags + [out]) }
        return try Data(contentsOf: URL(fileURLWithPath: out))
    }
}

extension APIClient {
    /// A password-less device account, signed in ("Get Started").
    func getStarted() async throws -> String {
        let reply = try await send(.post, "/api/v1/auth/device")
        guard reply.status == 201, let token = reply["access_token"] else { throw TestAppFailure("device sign-up: \(reply.status) \(reply.text)") }
        return token
    }

    /// Uploads a photo; answers the mark-up screen's `photo`.
    func addPhoto(_ bytes: Data, token: String, query: String = "") async throws -> [String: any Sendable] {
        let reply = try await upload(.post, "/api/v1/album/photos\(query.isEmpty ? "" : "?" + query)", bytes: bytes, contentType: "image/jpeg", token: token)
        guard reply.status == 201, let photo = reply.json["photo"] as? [String: any Sendable] else {
            throw TestAppFailure("upload: \(reply.status) \(reply.text)")
        }
        return photo
    }

    /// The ids of a photo list.
    func photoIDs(_ path: String, token: String) async throws -> [String] {
        let reply = try await send(.get, path, token: token)
        guard reply.status == 200 else { throw TestAppFailure("\(path): \(reply.status) \(reply.text)") }
        return reply.items.compactMap { $0["id"] as? String }
    }
}

extension Dictionary where Key == String, Value == any Sendable {
    subscript(string key: String) -> String? { self[key] as? String }
    subscript(object key: String) -> [String: any Sendable]? { self[key] as? [String: any Sendable] }
}
