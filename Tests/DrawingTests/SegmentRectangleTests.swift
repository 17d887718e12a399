import CCairo
@testable import Drawing
import DrawingAPI
import Foundation
import Testing

/// The rasteriser's segments cover only their own rectangles (issue 42): a pixel past a segment's
/// end is left to the neighbouring segment, but for a turn's outer wedge and where a disc bulges
/// past a narrowing neighbour. The picture must be the one whole capsules (every segment capped at
/// both ends, as before) give.
@Suite("Drawing rasterised segment by segment")
struct SegmentRectangleTests {
    /// Wandering pressure strokes whose half-width jumps from point to point (pressure 0.05 to 1:
    /// hairlines beside thick ends) and turns sharply, some translucent.
    static let tapers: Drawing = {
        var state: UInt64 = 42
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        return Drawing(strokes: (0..<150).map { index in
            var x = next(), y = next()
            let points: [Drawing.Point] = (0..<24).map { _ in
                x = min(1, max(0, x + (next() - 0.5) * 0.06))
                y = min(1, max(0, y + (next() - 0.5) * 0.06))
                return Drawing.Point(x: x, y: y, pressure: 0.05 + next() * 0.95)
            }
            return Drawing.Stroke(color: index % 3 == 0 ? "#00000080" : "#1e90ff", width: 0.005 + next() * 0.025, points: points)
        })
    }()

    @Test("steep pressure tapers and sharp turns: the same pixels as whole capsules")
    func rectanglesAsCapsules() throws {
        for drawing in [Self.tapers, SimplificationTests.drawing] {
            let ours = try Pixels(png: try DrawingRenderer.rasterise(drawing, width: 1024, height: 768, tolerance: 0.5))
            let capsules = try Pixels(png: try DrawingRenderer.rasterise(drawing, width: 1024, height: 768, tolerance: 0.5,
                                                                         capsEverySegment: true))
            let difference = RasteriserTests.compare(ours, capsules)
            #expect(difference.drawn > 20_000, "the drawing covers something: \(difference)")
            #expect(difference.over8 == 0 && difference.mean < 0.01, "\(difference)")
        }
    }

    @Test("the compositor four pixels at a time (SSE2) gives what it gives one at a time, bit for bit: OVER and the eraser")
    func compositorFourAtATime() {
        var state: UInt64 = 7
        func next() -> UInt32 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt32(truncatingIfNeeded: state >> 33)
        }
        var differing = 0
        for round in 0..<2_000 {
            // Premultiplied destinations (each channel at most alpha), coverage 0…1 with its ends.
            let destinations: [UInt32] = (0..<4).map { _ in
                let alpha = next() % 256
                return alpha << 24 | (next() % (alpha + 1)) << 16 | (next() % (alpha + 1)) << 8 | next() % (alpha + 1)
            }
            let coverage: [Float] = (0..<4).map { index in index == 0 ? Float(round % 3) / 2 : Float(next() % 1001) / 1000 }
            let alpha = Float(next() % 256), red = next() % 256, green = next() % 256, blue = next() % 256
            let eraser: Int32 = round % 5 == 0 ? 1 : 0
            var four = destinations, fourCover = coverage
            quire_composite_row(&four, &fourCover, 4, alpha, red, green, blue, eraser)
            var one = destinations, oneCover = coverage
            for index in 0..<4 {
                one.withUnsafeMutableBufferPointer { pixels in
                    oneCover.withUnsafeMutableBufferPointer { cover in
                        if let pixels = pixels.baseAddress, let cover = cover.baseAddress {
                            quire_composite_row(pixels + index, cover + index, 1, alpha, red, green, blue, eraser)
                        }
                    }
                }
            }
            if four != one { differing += 1 }
            #expect(fourCover == [0, 0, 0, 0] && oneCover == [0, 0, 0, 0], "the coverage is cleared as it is used")
        }
        #expect(differing == 0, "\(differing) of 2,000 groups of four differ")
    }
}
