public import Bus
import CCairo
public import DrawingAPI
public import Foundation

/// Renders a ``Drawing`` with cairo: antialiased, strokes smoothed into curves through their points
/// (Catmull-Rom), width following stylus pressure, eraser strokes clearing to transparent.
public enum DrawingRenderer {
    public enum Output: String, Sendable, CaseIterable { case png, svg }

    /// The drawing at `width`×`height` pixels, on a transparent background.
    public static func render(_ drawing: Drawing, width: Int, height: Int, as output: Output) throws(BusError) -> Data {
        try drawing.validate()
        guard (1...DrawingLimits.maxCanvasSide).contains(width), (1...DrawingLimits.maxCanvasSide).contains(height) else {
            throw BusError.invalid("A canvas is 1 to \(DrawingLimits.maxCanvasSide) pixels on each side.", field: "size")
        }
        let sink = ByteSink()
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let surface: OpaquePointer? = switch output {
        case .png: cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg: cairo_svg_surface_create_for_stream(ByteSink.write, closure, Double(width), Double(height))
        }
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw BusError(.internal, "The drawing surface could not be created.")
        }
        defer { cairo_surface_destroy(surface) }
        guard let context = cairo_create(surface) else { throw BusError(.internal, "The drawing context could not be created.") }
        draw(drawing, on: context, width: Double(width), height: Double(height))
        let status = cairo_status(context)
        cairo_destroy(context)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw BusError(.internal, "Rendering failed: \(String(cString: cairo_status_to_string(status))).")
        }
        switch output {
        case .png:
            guard cairo_surface_write_to_png_stream(surface, ByteSink.write, closure) == CAIRO_STATUS_SUCCESS else {
                throw BusError(.internal, "The PNG could not be written.")
            }
        case .svg:
            cairo_surface_finish(surface)
        }
        return withExtendedLifetime(sink) { sink.data }
    }

    static func draw(_ drawing: Drawing, on context: OpaquePointer, width: Double, height: Double) {
        let scale = min(width, height)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_set_antialias(context, CAIRO_ANTIALIAS_BEST)
        for stroke in drawing.strokes {
            let color = RGBA(hex: stroke.color) ?? RGBA(hex: "#000000")
            cairo_set_operator(context, stroke.tool == .eraser ? CAIRO_OPERATOR_CLEAR : CAIRO_OPERATOR_OVER)
            cairo_set_source_rgba(context, color?.red ?? 0, color?.green ?? 0, color?.blue ?? 0, color?.alpha ?? 1)
            let points = stroke.points.map { (x: $0.x * width, y: $0.y * height, pressure: $0.pressure) }
            let baseWidth = stroke.width * scale
            if points.count == 1 {
                cairo_arc(context, points[0].x, points[0].y, baseWidth * (points[0].pressure ?? 1) / 2, 0, 2 * Double.pi)
                cairo_fill(context)
                continue
            }
            let pressured = points.contains { $0.pressure != nil }
            // A pressure stroke is drawn segment by segment, each with round caps; with a
            // translucent colour the overlaps would show as dots. Drawn opaque in a group and laid
            // down once with the colour's alpha, the stroke is evenly translucent.
            let grouped = pressured && stroke.tool == .pen && (color?.alpha ?? 1) < 1
            if grouped {
                cairo_push_group(context)
                cairo_set_source_rgba(context, color?.red ?? 0, color?.green ?? 0, color?.blue ?? 0, 1)
            }
            if !pressured {
                cairo_set_line_width(context, baseWidth)
                cairo_move_to(context, points[0].x, points[0].y)
            }
            for index in 0..<(points.count - 1) {
                // Catmull-Rom through p1→p2, as a cubic Bézier.
                let p0 = points[max(0, index - 1)], p1 = points[index], p2 = points[index + 1]
                let p3 = points[min(points.count - 1, index + 2)]
                let c1 = (x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6)
                let c2 = (x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6)
                if pressured {
                    let pressure = ((p1.pressure ?? 1) + (p2.pressure ?? 1)) / 2
                    cairo_set_line_width(context, max(0.5, baseWidth * pressure))
                    cairo_move_to(context, p1.x, p1.y)
                    cairo_curve_to(context, c1.x, c1.y, c2.x, c2.y, p2.x, p2.y)
                    cairo_stroke(context)
                } else {
                    cairo_curve_to(context, c1.x, c1.y, c2.x, c2.y, p2.x, p2.y)
                }
            }
            if !pressured { cairo_stroke(context) }
            if grouped {
                cairo_pop_group_to_source(context)
                cairo_paint_with_alpha(context, color?.alpha ?? 1)
            }
        }
        cairo_set_operator(context, CAIRO_OPERATOR_OVER)
        cairo_select_font_face(context, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        for text in drawing.texts {
            let color = RGBA(hex: text.color)
            cairo_set_source_rgba(context, color?.red ?? 0, color?.green ?? 0, color?.blue ?? 0, color?.alpha ?? 1)
            cairo_set_font_size(context, text.size * height)
            cairo_move_to(context, text.x * width, text.y * height)
            cairo_show_text(context, text.text)
        }
    }
}

/// Collects what cairo writes through its stream callback.
final class ByteSink {
    var data = Data()

    static let write: cairo_write_func_t = { closure, bytes, length in
        guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
        Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
        return CAIRO_STATUS_SUCCESS
    }
}
