import Bus
import DrawingAPI
import Foundation
import MediaAPI

/// The mark-up follows the picture: a crop, a quarter turn or a straightening moves every stroke
/// and text with the part of the picture it was drawn on, and a revert moves it back. Drawings are
/// in fractions of the picture (0…1), so each edit step is an affine map of fractions — exact both
/// ways. What an edit leaves wholly outside the picture (a stroke with no point on it, a text
/// whose start is off it) goes; a stroke crossing the edge keeps its points, to the drawing's
/// bounds (a little outside is clipped when painted).
enum MarkupFollow {
    /// Edits kept since the original (each is a few numbers; past this, revert first).
    static let maxEdits = 200

    /// `x' = a·x + b·y + c`, `y' = d·x + e·y + f`, in fractions of the picture before and after.
    struct Map: Equatable {
        var a = 1.0, b = 0.0, c = 0.0, d = 0.0, e = 1.0, f = 0.0

        func callAsFunction(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
            (a * x + b * y + c, d * x + e * y + f)
        }

        /// `self` then `next`.
        func then(_ next: Map) -> Map {
            Map(a: next.a * a + next.b * d, b: next.a * b + next.b * e, c: next.a * c + next.b * f + next.c,
                d: next.d * a + next.e * d, e: next.d * b + next.e * e, f: next.d * c + next.e * f + next.f)
        }

        /// The map back; every edit's map has one (its determinant is never 0).
        var inverse: Map {
            let determinant = a * e - b * d
            guard determinant != 0, determinant.isFinite else { return Map() }
            let (ia, ib, id, ie) = (e / determinant, -b / determinant, -d / determinant, a / determinant)
            return Map(a: ia, b: ib, c: -(ia * c + ib * f), d: id, e: ie, f: -(id * c + ie * f))
        }
    }

    /// An edit of a `width`×`height` picture, in the order the media plugin applies it (straighten,
    /// quarter turns, crop in fractions of the turned picture): the map of fractions, and the size after.
    static func map(_ edit: ImageEdit, width: Double, height: Double) -> (map: Map, width: Double, height: Double) {
        var map = Map()
        var (width, height) = (width, height)
        if let degrees = edit.straighten, degrees != 0, width > 0, height > 0 {
            // Turned clockwise about the centre, then the inner rectangle of the same proportions
            // (scale s) kept: x' = ((x - ½)·w·cos − (y - ½)·h·sin) / (w·s) + ½, and so on.
            let angle = degrees * Double.pi / 180
            let scale = straightenedScale(width: width, height: height, degrees: degrees)
            let (cosine, sine) = (cos(angle), sin(angle))
            let turn = Map(a: cosine / scale, b: -sine * height / (width * scale), c: 0,
                           d: sine * width / (height * scale), e: cosine / scale, f: 0)
            let centred = Map(a: 1, b: 0, c: -0.5, d: 0, e: 1, f: -0.5)
            map = map.then(centred).then(turn).then(Map(a: 1, b: 0, c: 0.5, d: 0, e: 1, f: 0.5))
            (width, height) = (width * scale, height * scale)
        }
        switch edit.rotate {
        case 90:
            map = map.then(Map(a: 0, b: -1, c: 1, d: 1, e: 0, f: 0))
            (width, height) = (height, width)
        case 180:
            map = map.then(Map(a: -1, b: 0, c: 1, d: 0, e: -1, f: 1))
        case 270:
            map = map.then(Map(a: 0, b: 1, c: 0, d: -1, e: 0, f: 1))
            (width, height) = (height, width)
        default:
            break
        }
        if let crop = edit.cropFractions, crop.width > 0, crop.height > 0 {
            map = map.then(Map(a: 1 / crop.width, b: 0, c: -crop.x / crop.width, d: 0, e: 1 / crop.height, f: -crop.y / crop.height))
            (width, height) = (width * crop.width, height * crop.height)
        }
        return (map, width, height)
    }

    /// As ``ImageEditor``'s straightening: the largest rectangle of the picture's proportions
    /// inside it turned by `degrees`.
    static func straightenedScale(width: Double, height: Double, degrees: Double) -> Double {
        let angle = abs(degrees) * Double.pi / 180
        let (cosine, sine) = (cos(angle), sin(angle))
        return min(width / (width * cosine + height * sine), height / (width * sine + height * cosine))
    }

    /// The drawing moved by `map` onto a picture that went from `from` to `to` pixels: stroke
    /// widths stay as wide on the picture (a fraction of the shorter side), texts as tall.
    static func move(_ drawing: Drawing, by map: Map, from: (width: Double, height: Double),
                     to: (width: Double, height: Double)) -> Drawing {
        let shorter = min(from.width, from.height) / max(min(to.width, to.height), 1)
        let taller = from.height / max(to.height, 1)
        let bound = { (value: Double) in min(2, max(-1, value)) }
        let onPicture = { (point: (x: Double, y: Double)) in (0...1).contains(point.x) && (0...1).contains(point.y) }
        var strokes: [Drawing.Stroke] = []
        for var stroke in drawing.strokes {
            let moved = stroke.points.map { point in (point, map(point.x, point.y)) }
            guard moved.contains(where: { onPicture($0.1) }) else { continue }
            stroke.points = moved.map { Drawing.Point(x: bound($0.1.x), y: bound($0.1.y), pressure: $0.0.pressure) }
            stroke.width = min(0.5, max(0.0005, stroke.width * shorter))
            strokes.append(stroke)
        }
        var texts: [Drawing.TextAnnotation] = []
        for var text in drawing.texts {
            let moved = map(text.x, text.y)
            guard onPicture(moved) else { continue }
            (text.x, text.y) = (moved.x, moved.y)
            text.size = min(1, max(0.005, text.size * taller))
            texts.append(text)
        }
        let aspect = to.height > 0 ? to.width / to.height : nil
        return Drawing(strokes: strokes, texts: texts,
                       aspect: aspect.map { min(DrawingLimits.aspect.upperBound, max(DrawingLimits.aspect.lowerBound, $0)) })
    }
}

extension AlbumService {
    /// The photo's mark-up moved by `map` onto the picture's new size, saved; nil when it had
    /// none or nothing of it is left on the picture.
    func followMarkup(_ sha256: String?, by map: MarkupFollow.Map, from: (width: Double, height: Double),
                      to: (width: Double, height: Double)) async throws(BusError) -> String? {
        guard let sha256 else { return nil }
        let drawing = try await LoadDrawing.drawing(sha256, on: bus)
        let moved = MarkupFollow.move(drawing, by: map, from: from, to: to)
        guard moved != .empty else { return nil }
        return try await bus.request(try await SaveDrawing.of(moved, on: bus)).sha256
    }
}
