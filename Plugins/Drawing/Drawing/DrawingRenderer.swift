public import Bus
import CCairo
public import DrawingAPI
public import Foundation

/// Renders a ``Drawing`` with cairo: antialiased, strokes smoothed into curves through their points
/// (Catmull-Rom), width following stylus pressure, eraser strokes clearing to transparent.
public enum DrawingRenderer {
    public enum Output: String, Sendable, CaseIterable { case png, svg }

    /// The drawing at `width`×`height` pixels, on a transparent background; a drawing with an
    /// aspect is letterboxed into it, centred, its proportions kept.
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
            sink.data = try PNGWriter.encode(surface)
        case .svg:
            cairo_surface_finish(surface)
        }
        return withExtendedLifetime(sink) { sink.data }
    }

    /// Draws into the drawing's frame (``Drawing/frame(width:height:)``): the whole canvas for a
    /// drawing without an aspect, else the largest rectangle of its shape, centred, so nothing is
    /// stretched. What lies outside the frame (a stroke's edge, coordinates a little past 0…1) is
    /// clipped, as the canvas' edge clips a drawing that fills it.
    static func draw(_ drawing: Drawing, on context: OpaquePointer, width canvasWidth: Double, height canvasHeight: Double) {
        let frame = drawing.frame(width: canvasWidth, height: canvasHeight)
        let width = frame.width, height = frame.height
        cairo_save(context)
        defer { cairo_restore(context) }
        if frame.width < canvasWidth || frame.height < canvasHeight {
            cairo_rectangle(context, frame.x, frame.y, frame.width, frame.height)
            cairo_clip(context)
        }
        cairo_translate(context, frame.x, frame.y)
        let scale = min(width, height)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_set_antialias(context, CAIRO_ANTIALIAS_GOOD)
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
            if points.contains(where: { $0.pressure != nil }) {
                pressureOutline(points, baseWidth: baseWidth, on: context)
                cairo_fill(context)
                continue
            }
            cairo_set_line_width(context, baseWidth)
            cairo_move_to(context, points[0].x, points[0].y)
            for index in 0..<(points.count - 1) {
                let (c1, c2) = controlPoints(points, index)
                cairo_curve_to(context, c1.x, c1.y, c2.x, c2.y, points[index + 1].x, points[index + 1].y)
            }
            cairo_stroke(context)
        }
        cairo_set_operator(context, CAIRO_OPERATOR_OVER)
        for text in drawing.texts {
            let color = RGBA(hex: text.color)
            cairo_set_source_rgba(context, color?.red ?? 0, color?.green ?? 0, color?.blue ?? 0, color?.alpha ?? 1)
            drawText(text.text, size: text.size * height, at: (text.x * width, text.y * height), on: context)
        }
    }

    /// One label through Pango, its baseline's start at `point` (as cairo's own text was placed):
    /// characters the sans-serif font lacks come from a font that has them — an emoji from the
    /// colour emoji font.
    static func drawText(_ text: String, size: Double, at point: (x: Double, y: Double), on context: OpaquePointer) {
        guard size > 0, let layout = pango_cairo_create_layout(context) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        guard let font = pango_font_description_from_string("sans-serif") else { return }
        defer { pango_font_description_free(font) }
        pango_font_description_set_absolute_size(font, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_layout_set_text(layout, text, -1)
        let baseline = Double(pango_layout_get_baseline(layout)) / Double(PANGO_SCALE)
        cairo_move_to(context, point.x, point.y - baseline)
        pango_cairo_show_layout(context, layout)
    }
}

extension DrawingRenderer {
    typealias StrokePoint = (x: Double, y: Double, pressure: Double?)

    /// Catmull-Rom through points[index] → points[index + 1], as a cubic Bézier's control points.
    static func controlPoints(_ points: [StrokePoint], _ index: Int) -> ((x: Double, y: Double), (x: Double, y: Double)) {
        let p0 = points[max(0, index - 1)], p1 = points[index], p2 = points[index + 1]
        let p3 = points[min(points.count - 1, index + 2)]
        return ((x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6),
                (x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6))
    }

    /// A stroke whose width follows pressure, as one path to fill: the smoothed centre line is
    /// sampled, and the path is the union (nonzero winding, every piece wound the same way) of a
    /// quadrilateral per sample step and a round cap/join disc at every input point. One fill
    /// paints each pixel once, so a translucent stroke is evenly translucent, and the rasteriser
    /// runs once per stroke rather than once per segment.
    static func pressureOutline(_ points: [StrokePoint], baseWidth: Double, on context: OpaquePointer) {
        let steps = 4
        var samples: [(x: Double, y: Double, half: Double)] = []
        samples.reserveCapacity((points.count - 1) * steps + 1)
        for index in 0..<(points.count - 1) {
            let p1 = points[index], p2 = points[index + 1]
            let (c1, c2) = controlPoints(points, index)
            let w1 = max(0.5, baseWidth * (p1.pressure ?? 1)) / 2, w2 = max(0.5, baseWidth * (p2.pressure ?? 1)) / 2
            for step in 0..<steps {
                let t = Double(step) / Double(steps), u = 1 - t
                let x = u * u * u * p1.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * p2.x
                let y = u * u * u * p1.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * p2.y
                samples.append((x, y, w1 + (w2 - w1) * t))
            }
        }
        let last = points[points.count - 1]
        samples.append((last.x, last.y, max(0.5, baseWidth * (last.pressure ?? 1)) / 2))
        // A normal per sample, from its neighbours (the previous one where the line stands still).
        var normals: [(x: Double, y: Double)] = []
        normals.reserveCapacity(samples.count)
        var previous = (x: 0.0, y: -1.0)
        for index in samples.indices {
            let a = samples[max(0, index - 1)], b = samples[min(samples.count - 1, index + 1)]
            let dx = b.x - a.x, dy = b.y - a.y, length = (dx * dx + dy * dy).squareRoot()
            if length > 1e-9 { previous = (x: -dy / length, y: dx / length) }
            normals.append(previous)
        }
        for index in 0..<(samples.count - 1) {
            let a = samples[index], b = samples[index + 1], na = normals[index], nb = normals[index + 1]
            var quad = [(a.x + na.x * a.half, a.y + na.y * a.half), (b.x + nb.x * b.half, b.y + nb.y * b.half),
                        (b.x - nb.x * b.half, b.y - nb.y * b.half), (a.x - na.x * a.half, a.y - na.y * a.half)]
            // Wound like cairo_arc's discs (positive area), so overlaps add up instead of cancelling.
            let area = zip(quad, quad.dropFirst() + [quad[0]]).reduce(0.0) { $0 + $1.0.0 * $1.1.1 - $1.1.0 * $1.0.1 }
            if area < 0 { quad.reverse() }
            cairo_move_to(context, quad[0].0, quad[0].1)
            for corner in quad.dropFirst() { cairo_line_to(context, corner.0, corner.1) }
            cairo_close_path(context)
        }
        for point in points {
            cairo_new_sub_path(context)
            cairo_arc(context, point.x, point.y, max(0.5, baseWidth * (point.pressure ?? 1)) / 2, 0, 2 * Double.pi)
        }
    }
}

/// Writes a cairo ARGB32 image surface as an RGBA PNG: rows unfiltered, deflated at level 1.
///
/// cairo's own writer (libpng, zlib's default level 6, adaptive row filters) took 65 % of a
/// 1,000-stroke render at 1024×768 (`quire-bench drawing`); a drawing's mostly transparent canvas
/// compresses well without the extra effort.
enum PNGWriter {
    static func encode(_ surface: OpaquePointer) throws(BusError) -> Data {
        cairo_surface_flush(surface)
        let width = Int(cairo_image_surface_get_width(surface)), height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let pixels = cairo_image_surface_get_data(surface) else { throw BusError(.internal, "The drawing has no pixels.") }
        var raw = [UInt8](repeating: 0, count: (width * 4 + 1) * height)
        raw.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = UnsafeRawPointer(pixels + y * stride)
                var offset = y * (width * 4 + 1) + 1  // filter byte 0: none
                for x in 0..<width {
                    // Native-endian premultiplied ARGB → straight RGBA.
                    let argb = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                    let alpha = argb >> 24
                    if alpha != 0 {
                        let unpremultiply = { (channel: UInt32) -> UInt8 in UInt8(min(255, (channel * 255 + alpha / 2) / alpha)) }
                        out[offset] = unpremultiply(argb >> 16 & 0xFF)
                        out[offset + 1] = unpremultiply(argb >> 8 & 0xFF)
                        out[offset + 2] = unpremultiply(argb & 0xFF)
                        out[offset + 3] = UInt8(alpha)
                    }
                    offset += 4
                }
            }
        }
        var compressedLength = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
        let status = compress2(&compressed, &compressedLength, raw, uLong(raw.count), 1)
        guard status == Z_OK else { throw BusError(.internal, "The PNG could not be compressed (zlib \(status)).") }
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(bigEndian: UInt32(width))
        header.append(bigEndian: UInt32(height))
        header.append(contentsOf: [8, 6, 0, 0, 0])  // 8 bits, RGBA, deflate, no filter method, no interlace
        chunk("IHDR", header, into: &png)
        chunk("IDAT", Data(compressed.prefix(Int(compressedLength))), into: &png)
        chunk("IEND", Data(), into: &png)
        return png
    }

    private static func chunk(_ type: String, _ body: Data, into png: inout Data) {
        png.append(bigEndian: UInt32(body.count))
        let typed = Data(type.utf8) + body
        png.append(typed)
        let crc = typed.withUnsafeBytes { crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, uInt(typed.count)) }
        png.append(bigEndian: UInt32(crc))
    }
}

extension Data {
    fileprivate mutating func append(bigEndian value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
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
