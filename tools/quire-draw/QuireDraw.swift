import ArgumentParser
import Bus
import Drawing
import DrawingAPI
import Foundation
import Media
import ToolKit

/// `quire-draw`: render a drawing document (JSON) to PNG or SVG.
///
/// Exit codes: 0 done; 1 bad arguments or a file that cannot be read or written; 4 a drawing that
/// is not valid (the message names the field).
@main
struct QuireDraw: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-draw", abstract: "Render Quire drawings with cairo.", subcommands: [Render.self, Serve.self])
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "quire-draw render DRAWING.json OUT.png|OUT.svg [--over PHOTO] [--size WxH]")
    @Argument var drawing: String
    @Argument var output: String
    @Option(help: "WIDTHxHEIGHT of the canvas (ignored with --over: the photo's size is used)") var size = "1024x768"
    @Option(help: "Lay the drawing over this photo (its file is not changed); writes PNG") var over: String?

    func run() throws {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { throw ValidationError("--size is WIDTHxHEIGHT, e.g. 1024x768") }
        guard let format = DrawingRenderer.Output(rawValue: (output as NSString).pathExtension.lowercased()) else {
            throw ValidationError("the output name must end in .png or .svg")
        }
        guard let json = FileManager.default.contents(atPath: drawing) else {
            FileHandle.standardError.write(Data("quire-draw: cannot read \(drawing)\n".utf8))
            throw ExitCode(1)
        }
        let document: Drawing
        do {
            document = try JSONDecoder().decode(Drawing.self, from: json)
        } catch {
            FileHandle.standardError.write(Data("quire-draw: \(drawing) is not a drawing document: \(error)\n".utf8))
            throw ExitCode(4)
        }
        do {
            let bytes: Data
            if let over {
                guard format == .png else { throw ValidationError("a drawing laid over a photo is written as .png") }
                guard let photo = FileManager.default.contents(atPath: over) else {
                    FileHandle.standardError.write(Data("quire-draw: cannot read \(over)\n".utf8))
                    throw ExitCode(1)
                }
                let canvas = try Compositor.orientedSize(of: photo)
                let layer = try DrawingRenderer.render(document, width: canvas.width, height: canvas.height, as: .png)
                bytes = try Compositor.composite(photo: photo, overlayPNG: layer)
            } else {
                bytes = try DrawingRenderer.render(document, width: parts[0], height: parts[1], as: format)
            }
            try bytes.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch let error as BusError {
            FileHandle.standardError.write(Data("quire-draw: \(error.message)\(error.details["field"].map { " (\($0))" } ?? "") [\(error.code.rawValue)]\n".utf8))
            throw ExitCode(4)
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch {
            FileHandle.standardError.write(Data("quire-draw: cannot write \(output): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// `quire-draw serve`: the drawing plugin as a worker (see docs/bus-and-cluster.md, "A cluster").
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the app's drawing plugin alone, answering drawing renders off NATS (the app's YAML lists drawing under bus.remote).")
    @OptionGroup var options: WorkerOptions

    func run() async throws {
        try await WorkerServe(tool: "quire-draw", plugin: "drawing").run(options)
    }
}
