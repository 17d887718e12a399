import ArgumentParser
import Drawing
import DrawingAPI
import Foundation
#if canImport(Glibc)
import Glibc  // clock(): the CPU time of a render
#endif

/// `quire-bench drawing`: renders per second of a 1,000-stroke drawing at 1024×768, PNG and SVG.
struct DrawingBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drawing", abstract: "Renders per second of a many-stroke drawing (cairo through the drawing plugin's renderer).")

    @Option(help: "Strokes in the drawing.") var strokes = 1000
    @Option(help: "Points per stroke.") var points = 32
    @Option(help: "Canvas WIDTHxHEIGHT.") var size = "1024x768"
    @Option(help: "Seconds to render each format for (after a warm-up render).") var seconds = 3.0
    @Option(help: "How far (pixels) simplification may move a stroke's edge; 0 draws every point.") var tolerance = StrokeGeometry.tolerance

    func run() throws {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { throw ValidationError("--size is WIDTHxHEIGHT") }
        let drawing = Self.scribble(strokes: strokes, points: points)
        var results: [String: Any] = ["strokes": strokes, "points": strokes * points, "width": parts[0], "height": parts[1]]
        for output in DrawingRenderer.Output.allCases {
            var bytes = try DrawingRenderer.render(drawing, width: parts[0], height: parts[1], as: output, tolerance: tolerance)
            let clock = ContinuousClock()
            let started = clock.now, cpuStarted = Self.cpuMilliseconds()
            var renders = 0
            while clock.now - started < .seconds(seconds) {
                bytes = try DrawingRenderer.render(drawing, width: parts[0], height: parts[1], as: output, tolerance: tolerance)
                renders += 1
            }
            let elapsed = clock.now - started
            let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            results["\(output.rawValue)_per_second"] = Double(renders) / total
            // CPU time per render as well: on a machine shared with other work, wall time
            // measures the load as much as the renderer.
            results["\(output.rawValue)_cpu_ms"] = (Self.cpuMilliseconds() - cpuStarted) / Double(max(renders, 1))
            results["\(output.rawValue)_bytes"] = bytes.count
        }
        let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    /// The process's CPU time (C's `clock()`, in microseconds on Linux): a render's cost on a machine
    /// busy with other work, where wall time is not.
    static func cpuMilliseconds() -> Double {
        Double(clock()) * 1e3 / Double(CLOCKS_PER_SEC)
    }

    /// A deterministic scribble: wandering strokes, every other one with stylus pressure, some translucent, a few erasers.
    static func scribble(strokes: Int, points: Int) -> Drawing {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let colours = ["#1e90ff", "#ff4500", "#2e8b57", "#00000080", "#ffd700c0"]
        return Drawing(strokes: (0..<strokes).map { index in
            var x = next(), y = next()
            let pressured = index % 2 == 0
            let line: [Drawing.Point] = (0..<points).map { _ in
                x = min(1, max(0, x + (next() - 0.5) * 0.04))
                y = min(1, max(0, y + (next() - 0.5) * 0.04))
                return Drawing.Point(x: x, y: y, pressure: pressured ? 0.3 + next() * 0.7 : nil)
            }
            return Drawing.Stroke(tool: index % 50 == 49 ? .eraser : .pen, color: colours[index % colours.count],
                                  width: 0.002 + next() * 0.01, points: line)
        })
    }
}
