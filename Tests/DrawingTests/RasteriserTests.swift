import Drawing
import DrawingAPI
import Foundation
import Testing

/// Quire's own stroke rasteriser and PNG encoder (issue 42) against cairo's, which drew the PNGs before.
@Suite("Drawing rasterised without cairo")
struct RasteriserTests {
    /// Per pixel, the largest difference of a premultiplied channel (what is seen over any background).
    static func compare(_ a: Pixels, _ b: Pixels) -> (drawn: Int, over8: Int, over32: Int, over128: Int, mean: Double) {
        var drawn = 0, over8 = 0, over32 = 0, over128 = 0, total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.value(x, y), q = b.value(x, y)
                guard p >> 24 != 0 || q >> 24 != 0 else { continue }
                drawn += 1
                var worst = 0
                for shift in [0, 8, 16, 24] as [UInt32] { worst = max(worst, abs(Int(p >> shift & 0xFF) - Int(q >> shift & 0xFF))) }
                total += worst
                if worst > 8 { over8 += 1 }
                if worst > 32 { over32 += 1 }
                if worst > 128 { over128 += 1 }
            }
        }
        return (drawn, over8, over32, over128, Double(total) / Double(max(drawn, 1)))
    }

    @Test("hand-drawn strokes (pressure, translucency, an eraser, a text) look as cairo drew them")
    func sameAsCairo() throws {
        let drawing = SimplificationTests.drawing
        let ours = try Pixels(png: try DrawingRenderer.render(drawing, width: 1024, height: 768, as: .png))
        let cairo = try Pixels(png: try DrawingRenderer.renderWithCairo(drawing, width: 1024, height: 768))
        let difference = Self.compare(ours, cairo)
        #expect(difference.drawn > 20_000, "the drawing covers something: \(difference)")
        #expect(difference.mean < 3, "mean difference per drawn pixel: \(difference)")
        #expect(Double(difference.over32) <= 0.01 * Double(difference.drawn), "pixels off by more than 32 of 255: \(difference)")
        #expect(Double(difference.over128) <= 0.0005 * Double(difference.drawn), "pixels off by more than half: \(difference)")
    }

    @Test("a letterboxed drawing is clipped to its frame as cairo clipped it")
    func letterboxed() throws {
        var drawing = Drawing(strokes: [.init(color: "#ff0000", width: 0.05, points: [.init(x: -0.2, y: 0.5), .init(x: 1.2, y: 0.5)])])
        drawing.aspect = 1
        let ours = try Pixels(png: try DrawingRenderer.render(drawing, width: 300, height: 100, as: .png))
        #expect(ours.alpha(99, 50) == 0 && ours.alpha(201, 50) == 0, "nothing outside the 100×100 frame")
        #expect(ours.alpha(101, 50) == 255 && ours.alpha(198, 50) == 255, "the line inside it")
        let difference = Self.compare(ours, try Pixels(png: try DrawingRenderer.renderWithCairo(drawing, width: 300, height: 100)))
        #expect(difference.over32 == 0, "\(difference)")
    }

    @Test("the PNG encoder's stream inflates to the pixels it was given: runs, edges, translucency")
    func encoderRoundTrip() throws {
        // Transparent canvas, runs of one colour longer than a deflate match (258 bytes), and
        // translucent strokes whose colours change every pixel.
        var strokes: [Drawing.Stroke] = []
        for index in 0..<40 {
            var points: [Drawing.Point] = []
            for step in 0...20 {
                let wave: Double = 0.01 * sin(Double(step + index))
                points.append(Drawing.Point(x: Double(step) / 20, y: 0.02 + Double(index) * 0.024 + wave))
            }
            let color = index % 2 == 0 ? "#0080ff" : "#ff000080"
            strokes.append(Drawing.Stroke(color: color, width: 0.02 + 0.001 * Double(index), points: points))
        }
        strokes.append(Drawing.Stroke(color: "#00ff00", width: 0.5, points: [Drawing.Point(x: 0.3, y: 0.5), Drawing.Point(x: 0.7, y: 0.5)]))
        let drawing = Drawing(strokes: strokes)
        let png = try DrawingRenderer.render(drawing, width: 1000, height: 600, as: .png)
        let pixels = try Pixels(png: png)  // cairo's libpng inflates and checks the stream's Adler-32 and the chunks' CRCs
        #expect(pixels.width == 1000 && pixels.height == 600)
        #expect(pixels.value(500, 300) == 0xFF00_FF00, "inside the wide green stroke: opaque green")
        #expect(pixels.alpha(0, 599) == 0, "the canvas' corner is transparent")
        let cairo = try Pixels(png: try DrawingRenderer.renderWithCairo(drawing, width: 1000, height: 600))
        let difference = Self.compare(pixels, cairo)
        #expect(difference.mean < 3 && Double(difference.over32) <= 0.01 * Double(difference.drawn), "\(difference)")
    }
}
