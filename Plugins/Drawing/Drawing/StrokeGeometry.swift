public import DrawingAPI

/// A stroke's point on the canvas, in pixels, with the half-width the stroke has there.
public struct PenPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double
    /// Half the line's width at this point, in pixels.
    public var half: Double
}

/// A stroke as the renderers draw it: its points in pixels, simplified to the output's resolution.
///
/// Simplification is what keeps a render's cost proportional to what can be seen: a stylus
/// reports a point every few milliseconds, many of them closer together than a pixel at the
/// size rendered, and each point costs curve segments in cairo's rasteriser and bytes in an SVG.
public enum StrokeGeometry {
    /// The default tolerance: half a pixel, below what antialiasing shows.
    public static let tolerance = 0.5

    /// The stroke's points scaled into `frame` (relative 0…1 → pixels), with their half-widths:
    /// `max(0.5, width × pressure) / 2` for a pressure stroke (a hairline never vanishes), else
    /// the base width's half.
    public static func pixels(of stroke: Drawing.Stroke, width: Double, height: Double, into points: inout [PenPoint]) {
        points.removeAll(keepingCapacity: true)
        let baseWidth = stroke.width * min(width, height)
        let pressured = stroke.points.contains { $0.pressure != nil }
        for point in stroke.points {
            let half = pressured ? max(0.5, baseWidth * (point.pressure ?? 1)) / 2 : baseWidth / 2
            points.append(PenPoint(x: point.x * width, y: point.y * height, half: half))
        }
    }

    /// Ramer–Douglas–Peucker over `points`: the first and last are kept, and a point is dropped
    /// only when the stroke's edge there stays within `tolerance` pixels of where the kept
    /// points put it — the point's distance from the chord between its kept neighbours, plus how
    /// far its half-width is from the chord's (interpolated) half-width. `tolerance` 0 keeps
    /// every point but exact repeats of a collinear run.
    ///
    /// `stack` and `keep` are scratch space the caller reuses from stroke to stroke, so that a
    /// drawing of thousands of strokes allocates once.
    public static func simplify(_ points: [PenPoint], tolerance: Double, into kept: inout [PenPoint],
                                keep: inout [Bool], stack: inout [(Int, Int)]) {
        kept.removeAll(keepingCapacity: true)
        guard points.count > 2, tolerance > 0 else {
            kept.append(contentsOf: points)
            return
        }
        keep.removeAll(keepingCapacity: true)
        keep.append(contentsOf: repeatElement(false, count: points.count))
        keep[0] = true
        keep[points.count - 1] = true
        stack.removeAll(keepingCapacity: true)
        stack.append((0, points.count - 1))
        while let (first, last) = stack.popLast() {
            guard last - first > 1 else { continue }
            var worst = -1.0, worstIndex = first
            for index in (first + 1)..<last {
                let error = deviation(of: points[index], from: points[first], to: points[last])
                if error > worst { worst = error; worstIndex = index }
            }
            if worst > tolerance {
                keep[worstIndex] = true
                stack.append((first, worstIndex))
                stack.append((worstIndex, last))
            }
        }
        refine(points, tolerance: tolerance, keep: &keep, kept: &kept)
        kept.removeAll(keepingCapacity: true)
        for index in points.indices where keep[index] { kept.append(points[index]) }
    }

    /// The renderers draw a smooth curve through the kept points, not the polyline, and the
    /// curve through fewer, farther points bulges differently: a dropped point is kept after all
    /// when the curve the kept points make (sampled finely) passes further than `tolerance` from
    /// it. Adds the worst point of each segment that strays, until none does; only ever adds.
    static func refine(_ points: [PenPoint], tolerance: Double, keep: inout [Bool], kept indices: inout [PenPoint]) {
        var changed = true
        while changed {
            changed = false
            // Indices of the kept points, carried in `indices`' x (scratch space, no allocation).
            indices.removeAll(keepingCapacity: true)
            for index in points.indices where keep[index] { indices.append(PenPoint(x: Double(index), y: 0, half: 0)) }
            for segment in 0..<(indices.count - 1) {
                let i1 = Int(indices[segment].x), i2 = Int(indices[segment + 1].x)
                guard i2 - i1 > 1 else { continue }
                let i0 = Int(indices[max(0, segment - 1)].x), i3 = Int(indices[min(indices.count - 1, segment + 2)].x)
                let p0 = points[i0], p1 = points[i1], p2 = points[i2], p3 = points[i3]
                let c1 = (x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6), c2 = (x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6)
                let steps = 16
                var worst = tolerance, worstIndex = -1
                for index in (i1 + 1)..<i2 {
                    var best = Double.infinity
                    var previous = p1
                    for step in 1...steps {
                        let t = Double(step) / Double(steps), u = 1 - t
                        let sample = PenPoint(x: u * u * u * p1.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * p2.x,
                                              y: u * u * u * p1.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * p2.y,
                                              half: p1.half + (p2.half - p1.half) * t)
                        best = min(best, deviation(of: points[index], from: previous, to: sample))
                        previous = sample
                    }
                    if best > worst { worst = best; worstIndex = index }
                }
                if worstIndex >= 0 {
                    keep[worstIndex] = true
                    changed = true
                }
            }
        }
    }

    /// How far the edge at `point` moves when it is replaced by the segment a→b: the distance
    /// from the point to the segment (not the infinite line: a stroke that doubles back keeps its
    /// turning point), plus the difference of half-widths at the nearest place on the segment.
    public static func deviation(of point: PenPoint, from a: PenPoint, to b: PenPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        var t = 0.0
        if lengthSquared > 0 {
            t = min(1, max(0, ((point.x - a.x) * dx + (point.y - a.y) * dy) / lengthSquared))
        }
        let nx = a.x + t * dx - point.x, ny = a.y + t * dy - point.y
        let half = a.half + t * (b.half - a.half)
        return (nx * nx + ny * ny).squareRoot() + abs(point.half - half)
    }

    /// Catmull-Rom through points[index] → points[index + 1], as a cubic Bézier's control points.
    @inline(__always)
    static func controlPoints(_ points: [PenPoint], _ index: Int) -> (x1: Double, y1: Double, x2: Double, y2: Double) {
        let p0 = points[max(0, index - 1)], p1 = points[index], p2 = points[index + 1]
        let p3 = points[min(points.count - 1, index + 2)]
        return (p1.x + (p2.x - p0.x) / 6, p1.y + (p2.y - p0.y) / 6, p2.x - (p3.x - p1.x) / 6, p2.y - (p3.y - p1.y) / 6)
    }

    /// The unit normal (the tangent (dx, dy) turned to (−dy, dx)) of
    /// the Catmull-Rom curve at points[index]: along points[index + 1] − points[index − 1]
    /// (ends clamped); `fallback` where the points stand still.
    @inline(__always)
    static func normal(_ points: [PenPoint], _ index: Int, fallback: (x: Double, y: Double)) -> (x: Double, y: Double) {
        let a = points[max(0, index - 1)], b = points[min(points.count - 1, index + 1)]
        let dx = b.x - a.x, dy = b.y - a.y, length = (dx * dx + dy * dy).squareRoot()
        return length > 1e-9 ? (x: -dy / length, y: dx / length) : fallback
    }
}
