import CCairo
import DrawingAPI

/// Quire's own rasteriser for strokes (issue 42): a drawing's strokes into premultiplied ARGB32
/// pixels (cairo's `CAIRO_FORMAT_ARGB32` layout, native-endian), antialiased, without cairo.
///
/// A stroke with round caps and joins is every point within its half-width of its centre line,
/// so a pixel's coverage follows from its centre's distance `d` to that line: the overlap of the
/// pixel's width (`d ± ½`) with the stroke's (`±half`), which is exact for an edge along a pixel
/// row or column and within 0.05 of the covered area for a diagonal one. The centre line is the
/// Catmull-Rom curve through the kept points, flattened within a quarter pixel into
/// segments; a pressure stroke's half-width is interpolated along each segment (a tapered capsule).
/// A pixel takes the largest coverage of any of its stroke's segments — the distance to the
/// nearest — so the stroke is painted once wherever its segments overlap: a translucent stroke
/// is evenly translucent and joins are round. Each segment visits only the pixels of its own
/// rectangle (``cover(_:)``), into a coverage buffer the size of the stroke's box. Then the stroke
/// is composited, four pixels at a time: OVER in its colour, or an eraser clearing by its coverage.
///
/// cairo's own rasteriser (15 sub-scanlines per pixel, every one a sorted pass over the path's
/// edges) spent 1.2 G instructions on a 1,000-stroke scribble; this spends about 0.33 G.
struct StrokeRasteriser {
    let width: Int
    let height: Int
    /// Premultiplied ARGB, row after row (stride `width`).
    var pixels: [UInt32]
    /// The current stroke's coverage per pixel (0…1) of its bounding box (from `origin`,
    /// `stride` pixels a row), zero outside the rows' touched ranges. The box rather than the
    /// canvas: a stroke's few thousand pixels then sit together in the cache (a canvas-sized
    /// buffer, 3 MB at 1024×768, missed the cache on most of them).
    private var coverage: [Float] = []
    private var originX = 0, originY = 0, stride = 0
    /// Per row, the first and last pixel the current stroke touched (`lo > hi`: none).
    private var rowLo: [Int32]
    private var rowHi: [Int32]
    /// The current stroke's flattened centre line (reused from stroke to stroke).
    private var path: [PenPoint] = []
    private var top = Int(Int32.max), bottom = -1
    /// Pixels drawn into: those whose centres lie in the frame.
    private let clipX0: Int, clipX1: Int, clipY0: Int, clipY1: Int
    /// Every segment a whole capsule, round caps at both ends (what each segment visited before it
    /// was cut to its rectangle): the reference the tests compare the rectangles with.
    var capsEverySegment = false

    init(width: Int, height: Int, clip: (x: Double, y: Double, width: Double, height: Double)) {
        self.width = width
        self.height = height
        pixels = [UInt32](repeating: 0, count: width * height)
        rowLo = [Int32](repeating: Int32.max, count: height)
        rowHi = [Int32](repeating: -1, count: height)
        clipX0 = max(0, Int((clip.x - 0.5).rounded(.up)))
        clipX1 = min(width - 1, Int((clip.x + clip.width - 0.5).rounded(.down)))
        clipY0 = max(0, Int((clip.y - 0.5).rounded(.up)))
        clipY1 = min(height - 1, Int((clip.y + clip.height - 0.5).rounded(.down)))
    }

    /// One stroke's kept points (in canvas pixels), smoothed, flattened and covered; then
    /// composited in `color` (straight RGBA, 0…1) or, for an eraser, cleared.
    mutating func stroke(_ points: [PenPoint], pressure: Bool, color: RGBA?, eraser: Bool) {
        path.removeAll(keepingCapacity: true)
        guard let first = points.first else { return }
        path.append(first)
        for index in 0..<(points.count - 1) {
            let p1 = points[index], p2 = points[index + 1]
            let c = StrokeGeometry.controlPoints(points, index)
            // Uniform steps in t: the chord's distance from a cubic is at most ¾·d/n², d the
            // largest second difference of its control points.
            let ddx = max(abs(p1.x - 2 * c.x1 + c.x2), abs(c.x1 - 2 * c.x2 + p2.x))
            let ddy = max(abs(p1.y - 2 * c.y1 + c.y2), abs(c.y1 - 2 * c.y2 + p2.y))
            let dd = (ddx * ddx + ddy * ddy).squareRoot()
            let steps = min(64, max(1, Int((0.75 * dd / Self.flatness).squareRoot().rounded(.up))))
            for step in 1..<steps {
                let t = Double(step) / Double(steps), u = 1 - t
                path.append(PenPoint(
                    x: u * u * u * p1.x + 3 * u * u * t * c.x1 + 3 * u * t * t * c.x2 + t * t * t * p2.x,
                    y: u * u * u * p1.y + 3 * u * u * t * c.y1 + 3 * u * t * t * c.y2 + t * t * t * p2.y,
                    half: pressure ? p1.half + (p2.half - p1.half) * t : p1.half))
            }
            path.append(p2)
        }
        cover(path)
        composite(color: color, eraser: eraser)
    }

    /// How far a flattened segment may stray from the curve: a quarter pixel (cairo's default is
    /// 0.1; at 0.25 the render is as close to cairo's and 20 % cheaper).
    static let flatness = 0.25

    /// Covers the pixels within reach of the polyline's segments (each a tapered capsule). Each
    /// segment visits only its own rectangle (`quire_cover_segment`): a pixel past a segment's end
    /// is as near or nearer to the next segment, whose rectangle holds it — but for the outer
    /// wedge of a turn, within reach·sin(turn) before the next segment's start, which that segment
    /// visits too, and where a disc bulges past a narrowing neighbour (pressure). The polyline's
    /// two ends get round caps (a whole reach), as does a point. The rectangles rather than whole
    /// capsules: the segments are 1–4 px long and their caps were most of what each visited. The
    /// picture is the capsules' (SegmentRectangleTests).
    private mutating func cover(_ path: [PenPoint]) {
        // The stroke's box: its points ± their half-widths, a pixel more, within the clip.
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for point in path {
            minX = min(minX, point.x - point.half)
            maxX = max(maxX, point.x + point.half)
            minY = min(minY, point.y - point.half)
            maxY = max(maxY, point.y + point.half)
        }
        let clamp = { (v: Double) -> Int in Int(max(-1e6, min(1e6, v.isNaN ? -1e6 : v))) }
        let boxX0 = max(clipX0, clamp(minX) - 2), boxX1 = min(clipX1, clamp(maxX) + 2)
        let boxY0 = max(clipY0, clamp(minY) - 2), boxY1 = min(clipY1, clamp(maxY) + 2)
        guard boxX0 <= boxX1, boxY0 <= boxY1 else { return }
        (originX, originY, stride) = (boxX0, boxY0, boxX1 - boxX0 + 1)
        if stride * (boxY1 - boxY0 + 1) <= 65_536 {  // at most a quarter of the L2 cache
            pixels.withUnsafeBufferPointer { pixels in
                guard let base = pixels.baseAddress else { return }
                quire_prefetch_box(base, Int32(width), Int32(boxX0), Int32(boxX1), Int32(boxY0), Int32(boxY1))
            }
        }
        let needed = stride * (boxY1 - boxY0 + 1)
        if coverage.count < needed { coverage.append(contentsOf: repeatElement(0, count: needed - coverage.count)) }
        let (stride, originX, originY, capsEverySegment) = (Int32(stride), Int32(originX), Int32(originY), capsEverySegment)
        let (clipX0, clipX1, clipY0, clipY1) = (Int32(boxX0), Int32(boxX1), Int32(boxY0), Int32(boxY1))
        var top = Int32(self.top), bottom = Int32(self.bottom)
        coverage.withUnsafeMutableBufferPointer { cover in
            rowLo.withUnsafeMutableBufferPointer { rowLo in
                rowHi.withUnsafeMutableBufferPointer { rowHi in
                    path.withUnsafeBufferPointer { path in
                        guard let base = cover.baseAddress, let lo = rowLo.baseAddress, let hi = rowHi.baseAddress,
                              let first = path.first else { return }
                        if path.count == 1 {
                            quire_cover_segment(base, stride, originX, originY, lo, hi, clipX0, clipX1, clipY0, clipY1,
                                                first.x, first.y, first.half, first.x, first.y, first.half, 0, 0, &top, &bottom)
                            return
                        }
                        // The previous segment's unit direction (none yet: a cap).
                        var previousX = 0.0, previousY = 0.0, previousHalf = 0.0, previous = false
                        let last = path.count - 2
                        for index in 0...last {
                            let a = path[index], b = path[index + 1]
                            let dx = b.x - a.x, dy = b.y - a.y, length = (dx * dx + dy * dy).squareRoot()
                            let reach = max(a.half, b.half) + 0.5
                            guard length > 1e-6 else {
                                // A point: its whole disc.
                                quire_cover_segment(base, stride, originX, originY, lo, hi, clipX0, clipX1, clipY0, clipY1,
                                                    a.x, a.y, reach - 0.5, a.x, a.y, reach - 0.5, 0, 0, &top, &bottom)
                                previous = false
                                continue
                            }
                            let ux = dx / length, uy = dy / length
                            var before = reach, after = reach
                            if previous && !capsEverySegment {
                                let cosine = previousX * ux + previousY * uy
                                if cosine > 0 {
                                    // The turn's outer wedge, and where a's disc bulges past the
                                    // previous segment's taper (its half-width growing towards a).
                                    before = min(reach, reach * abs(previousX * uy - previousY * ux)
                                        + Self.bulge(a.half - previousHalf, reach: reach) + 0.01)
                                }
                            }
                            if index < last && !capsEverySegment {
                                // Where b's disc bulges past the next segment's taper (narrowing from b).
                                let c = path[index + 2]
                                let next = ((c.x - b.x) * (c.x - b.x) + (c.y - b.y) * (c.y - b.y)).squareRoot()
                                after = next > 1e-6 ? Self.bulge(b.half - c.half, reach: reach) + 0.01 : reach
                            }
                            quire_cover_segment(base, stride, originX, originY, lo, hi, clipX0, clipX1, clipY0, clipY1,
                                                a.x, a.y, a.half, b.x, b.y, b.half, before, after, &top, &bottom)
                            previousX = ux
                            previousY = uy
                            previousHalf = a.half
                            previous = true
                        }
                    }
                }
            }
        }
        self.top = Int(top)
        self.bottom = Int(bottom)
    }

    /// How far past a segment's end its end disc still covers more than the neighbouring segment,
    /// whose half-width falls from the disc's by `drop`: nowhere if the neighbour
    /// does not narrow; else a whole cap. (A pixel at `s` along and `c` across gains from the disc
    /// while √(s² + c²) − |c| < s·k, k = drop/length — but a hairline's coverage follows its width
    /// as well as the distance, and bounding that too saved less than it risked: 2·|c|·k/(1 − k²)
    /// left pixels of steep hairline tapers off by up to 87 of 255.)
    @inline(__always)
    static func bulge(_ drop: Double, reach: Double) -> Double {
        drop > 0 ? reach : 0
    }

    /// Paints the covered pixels and clears the coverage for the next stroke (a row at a time,
    /// `quire_composite_row`).
    private mutating func composite(color: RGBA?, eraser: Bool) {
        guard top <= bottom else { return }
        let alpha = Float(color?.alpha ?? 1) * 255
        let red = UInt32(((color?.red ?? 0) * 255).rounded()), green = UInt32(((color?.green ?? 0) * 255).rounded())
        let blue = UInt32(((color?.blue ?? 0) * 255).rounded())
        let (width, originX, originY, stride, top, bottom) = (width, originX, originY, stride, top, bottom)
        pixels.withUnsafeMutableBufferPointer { pixels in
            coverage.withUnsafeMutableBufferPointer { cover in
                rowLo.withUnsafeMutableBufferPointer { rowLo in
                    rowHi.withUnsafeMutableBufferPointer { rowHi in
                        guard let pixels = pixels.baseAddress, let cover = cover.baseAddress else { return }
                        for y in top...bottom {
                            let lo = Int(rowLo[y]), hi = Int(rowHi[y])
                            guard lo <= hi else { continue }
                            rowLo[y] = Int32.max
                            rowHi[y] = -1
                            quire_composite_row(pixels + y * width + lo, cover + (y - originY) * stride + (lo - originX), Int32(hi - lo + 1),
                                                alpha, red, green, blue, eraser ? 1 : 0)
                        }
                    }
                }
            }
        }
        self.top = Int(Int32.max)
        self.bottom = -1
    }
}
