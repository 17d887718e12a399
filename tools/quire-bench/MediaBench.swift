import ArgumentParser
import Foundation
import Media

/// Thumbnails through the media plugin's code path, in-process, from bytes already in memory (as
/// an upload is). Prints one JSON object: milliseconds per image for each size.
struct MediaBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media", abstract: "Thumbnail time per image, in-process (libvips through Quire's media plugin code).")

    @Argument(help: "JPEG files to thumbnail.") var files: [String]
    @Option(help: "Passes over the files (after one warm-up pass).") var rounds = 3

    func run() throws {
        let images = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        var results: [String: Double] = [:]
        for (name, width, height, fit) in [("cover_44", 44, 44, Thumbnailer.Fit.cover), ("contain_200", 200, 200, .contain)] {
            for image in images { _ = try Thumbnailer.thumbnail(image, width: width, height: height, fit: fit) }
            let clock = ContinuousClock()
            let started = clock.now
            for _ in 0..<rounds {
                for image in images { _ = try Thumbnailer.thumbnail(image, width: width, height: height, fit: fit) }
            }
            let elapsed = clock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            results["\(name)_ms"] = seconds * 1000 / Double(rounds * images.count)
        }
        let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}
