public import DrawingAPI
public import Foundation

/// Writes a drawing as SVG: one `<path>` per stroke, numbers in tenths of a pixel, relative
/// coordinates, into one byte buffer.
///
/// - A plain stroke is its Catmull-Rom curve, stroked: `M`, one `c`, then `s` (each segment's
///   first control point is the mirror of the previous one's second, so `s` needs 4 numbers, not 6).
/// - A pressure stroke is filled: its outline, the curve through each point's left offset, a
///   round cap, back along the right offsets, a round cap. (The PNG fills a union of pieces
///   instead; at a turn tighter than the stroke is wide the outline's inner edge can fold, which
///   nonzero filling mostly hides.)
/// - An eraser clears what came before it: everything drawn before it sits in a group masked by
///   a white canvas with the eraser painted black on it. Groups nest, one per eraser.
/// - Texts are `<text>` at their baseline, in the viewer's sans-serif (which, like Pango, falls
///   back per character, emoji included).
///
/// Tenths: a pixel needs no more, and relative tenths are mostly 2–4 characters. Each absolute
/// position is rounded once and every relative step is taken between rounded positions, so
/// rounding never accumulates along a path.
public enum SVGWriter {
    public static func write(_ drawing: Drawing, width: Int, height: Int, tolerance: Double = StrokeGeometry.tolerance) -> Data {
        var out = Output()
        out.bytes.reserveCapacity(1024 + drawing.strokes.reduce(0) { $0 + $1.points.count * 24 })
        out.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n")
        let frame = drawing.frame(width: Double(width), height: Double(height))
        let clipped = frame.width < Double(width) || frame.height < Double(height)
        if clipped {
            out.text("<clipPath id=\"frame\"><rect")
            out.attribute("x", frame.x)
            out.attribute("y", frame.y)
            out.attribute("width", frame.width)
            out.attribute("height", frame.height)
            out.text("/></clipPath>\n")
        }
        // What every stroke shares, said once.
        out.text("<g fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\"\(clipped ? " clip-path=\"url(#frame)\"" : "")>\n")
        let erasers = drawing.strokes.reduce(0) { $0 + ($1.tool == .eraser ? 1 : 0) }
        // The outermost group is masked by the last eraser, the innermost by the first.
        for eraser in stride(from: erasers, through: 1, by: -1) { out.text("<g mask=\"url(#e\(eraser))\">\n") }
        var scratch = Scratch()
        var erased = 0
        for stroke in drawing.strokes {
            scratch.prepare(stroke, width: frame.width, height: frame.height, tolerance: tolerance)
            let pressured = stroke.points.contains { $0.pressure != nil }
            if stroke.tool == .eraser {
                erased += 1
                out.text("</g>\n<mask id=\"e\(erased)\" maskUnits=\"userSpaceOnUse\" x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\">")
                out.text("<rect width=\"\(width)\" height=\"\(height)\" fill=\"#fff\"/>")
                path(scratch.kept, pressured: pressured, color: nil, origin: (frame.x, frame.y), into: &out)
                out.text("</mask>\n")
            } else {
                path(scratch.kept, pressured: pressured, color: RGBA(hex: stroke.color), origin: (frame.x, frame.y), into: &out)
                out.text("\n")
            }
        }
        for text in drawing.texts {
            out.text("<text")
            out.attribute("x", frame.x + text.x * frame.width)
            out.attribute("y", frame.y + text.y * frame.height)
            out.text(" font-family=\"sans-serif\"")
            out.attribute("font-size", text.size * frame.height)
            paint("fill", RGBA(hex: text.color), into: &out)
            out.text(" stroke=\"none\">")
            out.escaped(text.text)
            out.text("</text>\n")
        }
        out.text("</g>\n</svg>\n")
        return Data(out.bytes)
    }

    /// One stroke's `<path>`. `color` nil: an eraser, black in its mask.
    static func path(_ points: [PenPoint], pressured: Bool, color: RGBA?, origin: (x: Double, y: Double), into out: inout Output) {
        out.text("<path")
        let filled = pressured || points.count == 1
        if filled {
            if let color { paint("fill", color, into: &out) } else { out.text(" fill=\"#000\"") }
        } else {
            if let color { paint("stroke", color, into: &out) } else { out.text(" stroke=\"#000\"") }
            out.attribute("stroke-width", points[0].half * 2)
        }
        out.text(" d=\"")
        var pen = Pen(origin: origin)
        if points.count == 1 {
            // A dot: two half circles.
            let p = points[0]
            pen.move(p.x - p.half, p.y, into: &out)
            pen.arc(radius: p.half, sweep: 1, to: p.x + p.half, p.y, into: &out)
            pen.arc(radius: p.half, sweep: 1, to: p.x - p.half, p.y, into: &out)
            out.byte(UInt8(ascii: "z"))
        } else if !pressured {
            pen.move(points[0].x, points[0].y, into: &out)
            for index in 0..<(points.count - 1) {
                let c = StrokeGeometry.controlPoints(points, index)
                pen.curve(c, to: points[index + 1].x, points[index + 1].y, smooth: index > 0, into: &out)
            }
        } else {
            outline(points, pen: &pen, into: &out)
        }
        out.text("\"/>")
    }

    /// A pressure stroke's outline: the Catmull-Rom curve through the points offset by their
    /// half-widths along the normal, a half circle around the last point, the curve back through
    /// the opposite offsets, a half circle around the first.
    static func outline(_ points: [PenPoint], pen: inout Pen, into out: inout Output) {
        var left: [PenPoint] = [], right: [PenPoint] = []
        left.reserveCapacity(points.count)
        right.reserveCapacity(points.count)
        var normal = (x: 0.0, y: -1.0)
        for index in points.indices {
            normal = StrokeGeometry.normal(points, index, fallback: normal)
            let p = points[index]
            left.append(PenPoint(x: p.x + normal.x * p.half, y: p.y + normal.y * p.half, half: p.half))
            right.append(PenPoint(x: p.x - normal.x * p.half, y: p.y - normal.y * p.half, half: p.half))
        }
        right.reverse()
        pen.move(left[0].x, left[0].y, into: &out)
        for index in 0..<(left.count - 1) {
            pen.curve(StrokeGeometry.controlPoints(left, index), to: left[index + 1].x, left[index + 1].y, smooth: index > 0, into: &out)
        }
        // From the normal's side to the other, around the end: the angle decreases (sweep 0).
        pen.arc(radius: points[points.count - 1].half, sweep: 0, to: right[0].x, right[0].y, into: &out)
        for index in 0..<(right.count - 1) {
            pen.curve(StrokeGeometry.controlPoints(right, index), to: right[index + 1].x, right[index + 1].y, smooth: index > 0, into: &out)
        }
        pen.arc(radius: points[0].half, sweep: 0, to: left[0].x, left[0].y, into: &out)
        out.byte(UInt8(ascii: "z"))
    }

    /// ` fill="#rrggbb"` (or stroke), and its opacity when the colour is translucent.
    static func paint(_ property: String, _ color: RGBA?, into out: inout Output) {
        // A colour that does not parse was refused by validation; black, as the PNG draws it.
        out.text(" \(property)=\"#")
        for channel in [color?.red ?? 0, color?.green ?? 0, color?.blue ?? 0] {
            let value = Int((channel * 255).rounded())
            out.hexDigit(value >> 4)
            out.hexDigit(value & 0xF)
        }
        out.byte(UInt8(ascii: "\""))
        if let alpha = color?.alpha, alpha < 1 {
            out.text(" \(property)-opacity=\"")
            out.opacity(thousandths: Int((alpha * 1000).rounded()))
            out.byte(UInt8(ascii: "\""))
        }
    }

    /// The path being written: where the pen is, in rounded tenths of a pixel on the canvas.
    struct Pen {
        let origin: (x: Double, y: Double)
        var x = 0, y = 0

        init(origin: (x: Double, y: Double)) { self.origin = origin }

        func tenths(_ x: Double, _ y: Double) -> (Int, Int) {
            (Int(((origin.x + x) * 10).rounded()), Int(((origin.y + y) * 10).rounded()))
        }

        mutating func move(_ px: Double, _ py: Double, into out: inout Output) {
            (x, y) = tenths(px, py)
            out.command(UInt8(ascii: "M"))
            out.coordinate(x)
            out.coordinate(y)
        }

        /// A Catmull-Rom segment: `s` when its first control point mirrors the last one (every
        /// segment but a path's first), else `c`.
        mutating func curve(_ c: (x1: Double, y1: Double, x2: Double, y2: Double), to px: Double, _ py: Double,
                            smooth: Bool, into out: inout Output) {
            let (x2, y2) = tenths(c.x2, c.y2), (ex, ey) = tenths(px, py)
            if smooth {
                out.command(UInt8(ascii: "s"))
            } else {
                let (x1, y1) = tenths(c.x1, c.y1)
                out.command(UInt8(ascii: "c"))
                out.coordinate(x1 - x)
                out.coordinate(y1 - y)
            }
            out.coordinate(x2 - x)
            out.coordinate(y2 - y)
            out.coordinate(ex - x)
            out.coordinate(ey - y)
            (x, y) = (ex, ey)
        }

        /// A circular arc (less than a full turn) to (px, py).
        mutating func arc(radius: Double, sweep: Int, to px: Double, _ py: Double, into out: inout Output) {
            let (ex, ey) = tenths(px, py), r = Int((radius * 10).rounded(.up))
            out.command(UInt8(ascii: "a"))
            out.coordinate(r)
            out.coordinate(r)
            out.coordinate(0)
            out.coordinate(0)
            out.coordinate(sweep * 10)
            out.coordinate(ex - x)
            out.coordinate(ey - y)
            (x, y) = (ex, ey)
        }
    }

    /// The document's bytes, and what the number writer needs to know of the last one written.
    struct Output {
        var bytes: [UInt8] = []
        /// Whether the last thing written was a number with a decimal point: a number starting
        /// with "." then needs no separator (".5.3" is two numbers).
        var lastHadPoint = false
        /// Whether the last thing written was a number (then the next needs a separator, unless
        /// its sign or point separates it).
        var afterNumber = false

        mutating func byte(_ byte: UInt8) {
            bytes.append(byte)
            afterNumber = false
        }

        mutating func text(_ text: String) {
            bytes.append(contentsOf: text.utf8)
            afterNumber = false
        }

        mutating func hexDigit(_ value: Int) {
            bytes.append(UInt8(value < 10 ? 48 + value : 87 + value))
        }

        mutating func command(_ letter: UInt8) { byte(letter) }

        /// ` name="value"` with the value in tenths.
        mutating func attribute(_ name: String, _ value: Double) {
            text(" \(name)=\"")
            coordinate(Int((value * 10).rounded()))
            byte(UInt8(ascii: "\""))
        }

        /// A path number given in tenths, as short as SVG's grammar allows: "12", "-3.5", ".5".
        mutating func coordinate(_ tenths: Int) {
            let magnitude = tenths.magnitude
            let whole = magnitude / 10, fraction = magnitude % 10
            if afterNumber {
                let startsWithPoint = whole == 0 && fraction != 0
                if !(tenths < 0 || (startsWithPoint && lastHadPoint)) { bytes.append(UInt8(ascii: " ")) }
            }
            if tenths < 0 { bytes.append(UInt8(ascii: "-")) }
            if whole != 0 || fraction == 0 { digits(whole) }
            if fraction != 0 {
                bytes.append(UInt8(ascii: "."))
                bytes.append(UInt8(48 + fraction))
            }
            lastHadPoint = fraction != 0
            afterNumber = true
        }

        /// An opacity, 0…1, to three decimals ("0.502" → ".502").
        mutating func opacity(thousandths: Int) {
            let value = min(1000, max(0, thousandths))
            if value == 1000 { bytes.append(UInt8(ascii: "1")); return }
            bytes.append(UInt8(ascii: "."))
            bytes.append(UInt8(48 + value / 100))
            bytes.append(UInt8(48 + value / 10 % 10))
            bytes.append(UInt8(48 + value % 10))
        }

        mutating func digits(_ value: UInt) {
            if value >= 10 { digits(value / 10) }
            bytes.append(UInt8(48 + value % 10))
        }

        /// Text content with XML's five specials escaped.
        mutating func escaped(_ text: String) {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "<"): self.text("&lt;")
                case UInt8(ascii: ">"): self.text("&gt;")
                case UInt8(ascii: "&"): self.text("&amp;")
                case UInt8(ascii: "\""): self.text("&quot;")
                case UInt8(ascii: "'"): self.text("&apos;")
                default: bytes.append(byte)
                }
            }
        }
    }
}
