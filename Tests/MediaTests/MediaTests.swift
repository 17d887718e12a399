import Bus
import Foundation
import Media
import MediaAPI
import Testing

/// Images made for a test with the `vips` and `exiftool` command-line tools (installed by tools/setup).
final class Fixtures: Sendable {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureFailure("\(tool) \(arguments): \(output)") }
        return output
    }

    /// A width × height image in the format of `name`'s extension, with a gradient so it is not blank.
    /// Noise, which no format compresses: an image whose file is as large as its pixels.
    func noise(_ name: String, width: Int, height: Int) throws -> Data {
        try run("vips", ["gaussnoise", path("noise.v"), "\(width)", "\(height)"])
        try run("vips", ["cast", path("noise.v"), path(name), "uchar"])
        return try Data(contentsOf: URL(fileURLWithPath: path(name)))
    }

    func image(_ name: String, width: Int, height: Int) throws -> Data {
        try run("vips", ["xyz", path("xyz.v"), "\(width)", "\(height)"])
        try run("vips", ["cast", path("xyz.v"), path(name), "uchar"])
        return try Data(contentsOf: URL(fileURLWithPath: path(name)))
    }

    struct FixtureFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

@Suite("Media: reading images")
struct MediaInspectionTests {
    @Test("info reads the same time taken, GPS, camera and orientation that exiftool wrote and reads back")
    func exifMatchesExiftool() throws {
        let fixtures = try Fixtures()
        _ = try fixtures.image("photo.jpg", width: 640, height: 480)
        let file = fixtures.path("photo.jpg")
        try fixtures.run("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2024:05:06 07:08:09", "-OffsetTimeOriginal=+02:00",
                                      "-GPSLatitude=48.858370", "-GPSLatitudeRef=N", "-GPSLongitude=2.294481", "-GPSLongitudeRef=E",
                                      "-GPSAltitude=35.5", "-GPSAltitudeRef=0", "-Make=Quire", "-Model=Test Cam", "-Orientation#=6", file])
        let readBack = try fixtures.run("exiftool", ["-n", "-j", "-GPSLatitude", "-GPSLongitude", "-GPSAltitude", "-DateTimeOriginal",
                                                     "-Orientation", "-Make", "-Model", file])
        let expected = try #require((try JSONSerialization.jsonObject(with: Data(readBack.utf8)) as? [[String: Any]])?.first)
        let info = try ImageInspector.inspect(try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(info.format == .jpeg && info.width == 640 && info.height == 480)
        #expect(info.orientation == expected["Orientation"] as? Int)
        #expect(abs((info.gps?.latitude ?? 0) - (expected["GPSLatitude"] as? Double ?? -1)) < 1e-6)
        #expect(abs((info.gps?.longitude ?? 0) - (expected["GPSLongitude"] as? Double ?? -1)) < 1e-6)
        #expect(abs((info.gps?.altitude ?? 0) - (expected["GPSAltitude"] as? Double ?? -1)) < 1e-6)
        #expect(info.takenAt == "2024-05-06T07:08:09+02:00")
        #expect((expected["DateTimeOriginal"] as? String) == "2024:05:06 07:08:09")
        #expect(info.camera == ImageInfo.Camera(make: expected["Make"] as? String, model: expected["Model"] as? String))
    }

    @Test("the format is read from the bytes, not the name", arguments: ["png", "webp", "gif", "jpg"])
    func sniffing(_ kind: String) throws {
        let fixtures = try Fixtures()
        let bytes = try fixtures.image("image.\(kind)", width: 32, height: 16)
        let info = try ImageInspector.inspect(bytes)
        #expect(info.format.rawValue == (kind == "jpg" ? "jpeg" : kind))
        #expect(info.width == 32 && info.height == 16)
    }

    @Test("refusals, before decoding: not an image, over the byte limit, too many pixels, truncated")
    func refusals() throws {
        let fixtures = try Fixtures()
        let jpeg = try fixtures.image("big.jpg", width: 400, height: 300)
        func code(_ body: () throws -> Void) -> BusError.Code? {
            do { try body() } catch let error as BusError { return error.code } catch { return nil }
            return nil
        }
        #expect(code { _ = try ImageInspector.inspect(Data("just text, named photo.jpg".utf8)) } == .unsupportedMedia)
        #expect(code { _ = try ImageInspector.inspect(jpeg, limits: MediaLimits(maxBytes: 100)) } == .tooLarge)
        #expect(code { _ = try ImageInspector.inspect(jpeg, limits: MediaLimits(maxPixels: 400 * 300 - 1)) } == .invalid)
        #expect(code { _ = try Thumbnailer.thumbnail(jpeg.prefix(jpeg.count / 2), width: 44, height: 44, fit: .cover) } == .invalid)
    }
}

@Suite("Media: renditions")
struct MediaRenditionTests {
    @Test("a cover thumbnail is exactly the box; contain fits inside it, after EXIF orientation")
    func thumbnails() throws {
        let fixtures = try Fixtures()
        _ = try fixtures.image("photo.jpg", width: 640, height: 480)
        try fixtures.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", fixtures.path("photo.jpg")])
        let photo = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("photo.jpg")))
        let cover = try ImageInspector.inspect(try Thumbnailer.thumbnail(photo, width: 44, height: 44, fit: .cover))
        #expect(cover.width == 44 && cover.height == 44)
        let contain = try ImageInspector.inspect(try Thumbnailer.thumbnail(photo, width: 200, height: 200, fit: .contain, output: .webp))
        #expect(contain.format == .webp)
        #expect(contain.width == 150 && contain.height == 200, "portrait once rotated: \(contain.width)x\(contain.height)")
        #expect(contain.orientation == 1, "renditions carry no EXIF orientation")
    }

    @Test("a thumbnail is never larger than the original")
    func noUpscale() throws {
        let fixtures = try Fixtures()
        let small = try fixtures.image("small.png", width: 20, height: 10)
        let info = try ImageInspector.inspect(try Thumbnailer.thumbnail(small, width: 200, height: 200, fit: .contain, output: .png))
        #expect(info.width == 20 && info.height == 10)
    }

    @Test("convert keeps the pixels' size and changes the format")
    func convert() throws {
        let fixtures = try Fixtures()
        let png = try fixtures.image("in.png", width: 120, height: 90)
        let info = try ImageInspector.inspect(try Thumbnailer.convert(png, output: .jpeg))
        #expect(info.format == .jpeg && info.width == 120 && info.height == 90)
    }
}
