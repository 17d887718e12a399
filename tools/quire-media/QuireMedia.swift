import ArgumentParser
import Bus
import Foundation
import Media
import MediaAPI
import ToolKit

/// `quire-media`: the media plugin's image work from the shell.
///
/// Exit codes: 0 done; 1 bad arguments or a file that cannot be read or written; 3 not an image
/// Quire reads; 4 an image that cannot be decoded or breaks a limit; 5 over the size limit.
@main
struct QuireMedia: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-media",
        abstract: "Inspect, thumbnail, convert and edit images the way Quire's media plugin does (libvips).",
        subcommands: [Info.self, Thumbnail.self, Convert.self, Edit.self, Serve.self])
}

struct LimitOptions: ParsableArguments {
    @Option(help: "Largest input in bytes.") var maxBytes = 10 << 20
    @Option(help: "Largest width × height.") var maxPixels = 100_000_000
    var limits: MediaLimits { MediaLimits(maxBytes: maxBytes, maxPixels: maxPixels) }
}

func readInput(_ path: String) throws -> Data {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("quire-media: cannot read \(path)\n".utf8))
        throw ExitCode(1)
    }
    return data
}

func fail(_ error: BusError) -> ExitCode {
    FileHandle.standardError.write(Data("quire-media: \(error.message) [\(error.code.rawValue)]\n".utf8))
    switch error.code {
    case .unsupportedMedia: return ExitCode(3)
    case .tooLarge: return ExitCode(5)
    default: return ExitCode(4)
    }
}

func write(_ data: Data, to path: String) throws {
    do {
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        FileHandle.standardError.write(Data("quire-media: cannot write \(path): \(error.localizedDescription)\n".utf8))
        throw ExitCode(1)
    }
}

func output(for path: String) throws -> Thumbnailer.Output {
    switch (path as NSString).pathExtension.lowercased() {
    case "jpg", "jpeg": return .jpeg
    case "webp": return .webp
    case "png": return .png
    default:
        FileHandle.standardError.write(Data("quire-media: the output name must end in .jpg, .webp or .png\n".utf8))
        throw ExitCode(1)
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print format, size and EXIF (time taken, GPS, camera) as JSON.")
    @Argument var file: String
    @OptionGroup var limits: LimitOptions

    func run() throws {
        do {
            let info = try ImageInspector.inspect(try readInput(file), limits: limits.limits)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } catch let error as BusError {
            throw fail(error)
        }
    }
}

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a thumbnail: quire-media thumbnail IN OUT --size 44x44 --fit cover")
    @Argument var input: String
    @Argument var output: String
    @Option(help: "WIDTHxHEIGHT") var size: String
    @Option(help: "cover (crop to fill) or contain (fit inside)") var fit = "cover"
    @Option(help: "JPEG/WebP quality 1-100") var quality = 82
    @OptionGroup var limits: LimitOptions

    func run() throws {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, let fit = Thumbnailer.Fit(rawValue: fit) else {
            throw ValidationError("--size is WIDTHxHEIGHT (e.g. 44x44) and --fit is cover or contain")
        }
        do {
            let data = try Thumbnailer.thumbnail(try readInput(input), width: parts[0], height: parts[1], fit: fit,
                                                 output: try QuireMediaOutput.of(output), quality: quality, limits: limits.limits)
            try write(data, to: output)
        } catch let error as BusError {
            throw fail(error)
        }
    }
}

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Convert to the format of OUT's extension, orientation applied.")
    @Argument var input: String
    @Argument var output: String
    @Option(help: "JPEG/WebP quality 1-100") var quality = 90
    @OptionGroup var limits: LimitOptions

    func run() throws {
        do {
            try write(try Thumbnailer.convert(try readInput(input), output: try QuireMediaOutput.of(output), quality: quality,
                                              limits: limits.limits), to: output)
        } catch let error as BusError {
            throw fail(error)
        }
    }
}

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Crop, then rotate, then resize: quire-media edit IN OUT [--crop X,Y,W,H] [--rotate 90] [--resize WxH]")
    @Argument var input: String
    @Argument var output: String
    @Option(help: "X,Y,WIDTH,HEIGHT in pixels of the image as seen (orientation applied)") var crop: String?
    @Option(help: "0, 90, 180 or 270 degrees clockwise") var rotate = 0
    @Option(help: "WIDTHxHEIGHT") var resize: String?
    @Option(help: "JPEG/WebP quality 1-100") var quality = 90
    @OptionGroup var limits: LimitOptions

    func run() throws {
        var edit = ImageEdit(rotate: rotate)
        if let crop {
            let parts = crop.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4 else { throw ValidationError("--crop is X,Y,WIDTH,HEIGHT, e.g. 10,20,300,200") }
            edit.crop = .init(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
        }
        if let resize {
            let parts = resize.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw ValidationError("--resize is WIDTHxHEIGHT, e.g. 800x600") }
            edit.resize = .init(width: parts[0], height: parts[1])
        }
        do {
            try write(try ImageEditor.edit(try readInput(input), edit, output: try QuireMediaOutput.of(output), quality: quality,
                                           limits: limits.limits), to: output)
        } catch let error as BusError {
            throw fail(error)
        }
    }
}

enum QuireMediaOutput {
    static func of(_ path: String) throws -> Thumbnailer.Output { try output(for: path) }
}

/// `quire-media serve`: the media plugin as a worker (see docs/bus-and-cluster.md, "A cluster").
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the app's media plugin alone, answering image work off NATS (the app's YAML lists media under bus.remote).")
    @OptionGroup var options: WorkerOptions

    func run() async throws {
        try await WorkerServe(tool: "quire-media", plugin: "media").run(options)
    }
}
