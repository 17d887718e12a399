public import Bus
import CCairo
public import DrawingAPI
public import Foundation

/// Renders a ``Drawing``: antialiased, strokes smoothed into curves through their points
/// (Catmull-Rom), width following stylus pressure, eraser strokes clearing to transparent. PNG is
/// rasterised by cairo; SVG is written directly (``SVGWriter``), as vector paths.
///
/// Each stroke is first simplified to the output's resolution (``StrokeGeometry/simplify``:
/// no edge moves by more than `tolerance`, half a pixel by default), so what a render costs
/// follows what can be seen rather than how often the stylus reported.
public enum DrawingRenderer {
    public enum Output: String, Sendable, CaseIterable { case png, svg }

    /// The drawing at `width`×`height` pixels, on a transparent background; a drawing with an
    /// aspect is letterboxed into it, centred, its proportions kept. `tolerance` (pixels) is how
    /// far simplification may move a stroke's edge; 0 draws every point as given.
    public static func render(_ drawing: Drawing, width: Int, height: Int, as output: Output,
                              tolerance: Double = StrokeGeometry.tolerance) throws(BusError) -> Data {
        try drawing.validate()
        guard (1...DrawingLimits.maxCanvasSide).contains(width), (1...DrawingLimits.maxCanvasSide).contains(height) else {
            throw BusError.invalid("A canvas is 1 to \(DrawingLimits.maxCanvasSide) pixels on each side.", field: "size")
        }
        guard tolerance.isFinite, tolerance >= 0 else { throw BusError.invalid("The tolerance is a distance in pixels.", field: "tolerance") }
        switch output {
        case .svg:
            // cairo's SVG surface cannot express an eraser (CLEAR): it rasterised the whole drawing
            // into an embedded PNG (10 MB for 1,000 strokes). SVG has masks, and paths written
            // with the precision a pixel needs are a tenth of that.
            return SVGWriter.write(drawing, width: width, height: height, tolerance: tolerance)
        case .png:
            return try rasterise(drawing, width: width, height: height, tolerance: tolerance)
        }
    }

    /// The PNG by Quire's own rasteriser (``StrokeRasteriser``) and PNG encoder (``PNGEncoder``);
    /// texts, if any, are laid over the strokes by cairo and Pango.
    /// `capsEverySegment`: the tests' reference (``StrokeRasteriser/capsEverySegment``).
    static func rasterise(_ drawing: Drawing, width: Int, height: Int, tolerance: Double,
                          capsEverySegment: Bool = false) throws(BusError) -> Data {
        let frame = drawing.frame(width: Double(width), height: Double(height))
        var canvas = StrokeRasteriser(width: width, height: height, clip: frame)
        canvas.capsEverySegment = capsEverySegment
        var scratch = Scratch()
        for stroke in drawing.strokes {
            scratch.prepare(stroke, width: frame.width, height: frame.height, tolerance: tolerance)
            for index in scratch.kept.indices {
                scratch.kept[index].x += frame.x
                scratch.kept[index].y += frame.y
            }
            canvas.stroke(scratch.kept, pressure: stroke.points.contains { $0.pressure != nil }, color: RGBA(hex: stroke.color),
                          eraser: stroke.tool == .eraser)
        }
        if !drawing.texts.isEmpty {
            let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
            guard stride == width * 4 else { throw BusError(.internal, "The drawing surface could not be created.") }
            let status = canvas.pixels.withUnsafeMutableBytes { bytes -> cairo_status_t in
                guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let surface = cairo_image_surface_create_for_data(base, CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(stride))
                else { return CAIRO_STATUS_NO_MEMORY }
                defer { cairo_surface_destroy(surface) }
                guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let context = cairo_create(surface) else { return CAIRO_STATUS_NO_MEMORY }
                drawTexts(drawing, on: context, width: Double(width), height: Double(height))
                let status = cairo_status(context)
                cairo_destroy(context)
                cairo_surface_flush(surface)
                return status
            }
            guard status == CAIRO_STATUS_SUCCESS else {
                throw BusError(.internal, "Rendering failed: \(String(cString: cairo_status_to_string(status))).")
            }
        }
        return PNGEncoder.encode(canvas.pixels, width: width, height: height)
    }

    /// The PNG as cairo rasterises it (the renderer before issue 42's own rasteriser): kept as the
    /// reference the tests compare Quire's rasteriser with (RasteriserTests).
    public static func renderWithCairo(_ drawing: Drawing, width: Int, height: Int,
                                       tolerance: Double = StrokeGeometry.tolerance) throws(BusError) -> Data {
        try drawing.validate()
        guard (1...DrawingLimits.maxCanvasSide).contains(width), (1...DrawingLimits.maxCanvasSide).contains(height) else {
            throw BusError.invalid("A canvas is 1 to \(DrawingLimits.maxCanvasSide) pixels on each side.", field: "size")
        }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw BusError(.internal, "The drawing surface could not be created.")
        }
        defer { cairo_surface_destroy(surface) }
        guard let context = cairo_create(surface) else { throw BusError(.internal, "The drawing context could not be created.") }
        draw(drawing, on: context, width: Double(width), height: Double(height), tolerance: tolerance)
        let status = cairo_status(context)
        cairo_destroy(context)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw BusError(.internal, "Rendering failed: \(String(cString: cairo_status_to_string(status))).")
        }
        return try PNGWriter.encode(surface)
    }

    /// Draws into the drawing's frame (``Drawing/frame(width:height:)``): the whole canvas for a
    /// drawing without an aspect, else the largest rectangle of its shape, centred, so nothing is
    /// stretched. What lies outside the frame (a stroke's edge, coordinates a little past 0…1) is
    /// clipped, as the canvas' edge clips a drawing that fills it.
    static func draw(_ drawing: Drawing, on context: OpaquePointer, width canvasWidth: Double, height canvasHeight: Double,
                     tolerance: Double) {
        let frame = drawing.frame(width: canvasWidth, height: canvasHeight)
        let width = frame.width, height = frame.height
        cairo_save(context)
        defer { cairo_restore(context) }
        if frame.width < canvasWidth || frame.height < canvasHeight {
            cairo_rectangle(context, frame.x, frame.y, frame.width, frame.height)
            cairo_clip(context)
        }
        cairo_translate(context, frame.x, frame.y)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_set_antialias(context, CAIRO_ANTIALIAS_GOOD)
        // Scratch space reused by every stroke: one allocation per render, not per stroke or point.
        var scratch = Scratch()
        for stroke in drawing.strokes {
            let color = RGBA(hex: stroke.color)
            cairo_set_operator(context, stroke.tool == .eraser ? CAIRO_OPERATOR_CLEAR : CAIRO_OPERATOR_OVER)
            cairo_set_source_rgba(context, color?.red ?? 0, color?.green ?? 0, color?.blue ?? 0, color?.alpha ?? 1)
            scratch.prepare(stroke, width: width, height: height, tolerance: tolerance)
            let points = scratch.kept
            if points.count == 1 {
                cairo_arc(context, points[0].x, points[0].y, points[0].half, 0, 2 * Double.pi)
                cairo_fill(context)
                continue
            }
            if stroke.points.contains(where: { $0.pressure != nil }) {
                pressureOutline(points, on: context, samples: &scratch.samples, edges: &scratch.edges)
                cairo_fill(context)
                continue
            }
            cairo_set_line_width(context, points[0].half * 2)
            cairo_move_to(context, points[0].x, points[0].y)
            for index in 0..<(points.count - 1) {
                let c = StrokeGeometry.controlPoints(points, index)
                cairo_curve_to(context, c.x1, c.y1, c.x2, c.y2, points[index + 1].x, points[index + 1].y)
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

    /// The drawing's texts alone, in its frame, clipped to it (as ``draw(_:on:width:height:tolerance:)`` lays them).
    static func drawTexts(_ drawing: Drawing, on context: OpaquePointer, width canvasWidth: Double, height canvasHeight: Double) {
        let frame = drawing.frame(width: canvasWidth, height: canvasHeight)
        cairo_save(context)
        defer { cairo_restore(context) }
        if frame.width < canvasWidth || frame.height < canvasHeight {
            cairo_rectangle(context, frame.x, frame.y, frame.width, frame.height)
            cairo_clip(context)
        }
        cairo_translate(context, frame.x, frame.y)
        for text in drawing.texts {
            let color = RGBA(hex: text.color)
            cairo_set_source_rgba(context, color?.red ?? 0, color?.green ?? 0, color?.blue ?? 0, color?.alpha ?? 1)
            drawText(text.text, size: text.size * frame.height, at: (text.x * frame.width, text.y * frame.height), on: context)
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

/// Buffers one render reuses from stroke to stroke.
struct Scratch {
    var pixels: [PenPoint] = []
    var kept: [PenPoint] = []
    var keep: [Bool] = []
    var stack: [(Int, Int)] = []
    var samples: [PenPoint] = []
    var edges: [(left: (x: Double, y: Double), right: (x: Double, y: Double))] = []

    /// `kept`: the stroke in pixels within the frame, simplified within `tolerance`.
    mutating func prepare(_ stroke: Drawing.Stroke, width: Double, height: Double, tolerance: Double) {
        StrokeGeometry.pixels(of: stroke, width: width, height: height, into: &pixels)
        StrokeGeometry.simplify(pixels, tolerance: tolerance, into: &kept, keep: &keep, stack: &stack)
    }
}

extension DrawingRenderer {
    /// A stroke whose width follows pressure, as one path to fill: the smoothed centre line is
    /// sampled, offset both ways along its normals by the half-width, and the path is the union
    /// (nonzero winding, every piece wound the same way) of ribbons and a round cap/join disc at
    /// every point. One fill paints each pixel once, so a translucent stroke is evenly
    /// translucent, and the rasteriser runs once per stroke rather than once per segment.
    ///
    /// A ribbon runs along the samples for as long as neither edge doubles back; where one does
    /// (a turn tighter than the half-width) the ribbon ends and the next begins, so no ribbon
    /// folds over itself (a fold would cancel its own winding and leave a hole). Ribbons rather
    /// than a quadrilateral per sample step: a quadrilateral per step crossed every scanline the
    /// stroke covers with two more edges, and the rasteriser's work is per edge per scanline.
    static func pressureOutline(_ points: [PenPoint], on context: OpaquePointer, samples: inout [PenPoint],
                                edges: inout [(left: (x: Double, y: Double), right: (x: Double, y: Double))]) {
        samples.removeAll(keepingCapacity: true)
        for index in 0..<(points.count - 1) {
            let p1 = points[index], p2 = points[index + 1]
            let c = StrokeGeometry.controlPoints(points, index)
            // About one sample every 3.5 px along the curve (its control polygon's length bounds
            // it): fine enough that the edges look round, however far apart the points are.
            let length = hypot(c.x1 - p1.x, c.y1 - p1.y) + hypot(c.x2 - c.x1, c.y2 - c.y1) + hypot(p2.x - c.x2, p2.y - c.y2)
            let steps = min(64, max(1, Int((length / 3.5).rounded(.up))))
            for step in 0..<steps {
                let t = Double(step) / Double(steps), u = 1 - t
                let x = u * u * u * p1.x + 3 * u * u * t * c.x1 + 3 * u * t * t * c.x2 + t * t * t * p2.x
                let y = u * u * u * p1.y + 3 * u * u * t * c.y1 + 3 * u * t * t * c.y2 + t * t * t * p2.y
                samples.append(PenPoint(x: x, y: y, half: p1.half + (p2.half - p1.half) * t))
            }
        }
        samples.append(points[points.count - 1])
        // The two edges' points per sample, along a normal from the sample's neighbours (the
        // previous normal where the line stands still).
        edges.removeAll(keepingCapacity: true)
        var normal = (x: 0.0, y: -1.0)
        for index in samples.indices {
            normal = StrokeGeometry.normal(samples, index, fallback: normal)
            let s = samples[index]
            edges.append((left: (x: s.x + normal.x * s.half, y: s.y + normal.y * s.half),
                          right: (x: s.x - normal.x * s.half, y: s.y - normal.y * s.half)))
        }
        var first = 0
        for index in 1..<samples.count {
            // The centre's direction over this step; an edge stepping against it has folded.
            let dx = samples[index].x - samples[index - 1].x, dy = samples[index].y - samples[index - 1].y
            let a = edges[index - 1], b = edges[index]
            let folds = (b.left.x - a.left.x) * dx + (b.left.y - a.left.y) * dy <= 0
                || (b.right.x - a.right.x) * dx + (b.right.y - a.right.y) * dy <= 0
            if folds && index - 1 > first {
                ribbon(edges, first, index - 1, on: context)
                first = index - 1
            }
            if folds {
                // The folded step alone: a quadrilateral (its own winding fixed by `ribbon`).
                ribbon(edges, index - 1, index, on: context)
                first = index
            }
        }
        if first < samples.count - 1 { ribbon(edges, first, samples.count - 1, on: context) }
        for point in points {
            cairo_new_sub_path(context)
            cairo_arc(context, point.x, point.y, point.half, 0, 2 * Double.pi)
        }
    }

    /// The ribbon between samples `first` and `last`: along the left edge, back along the right,
    /// wound like cairo_arc's discs (positive area) so overlaps add up instead of cancelling.
    static func ribbon(_ edges: [(left: (x: Double, y: Double), right: (x: Double, y: Double))], _ first: Int, _ last: Int,
                       on context: OpaquePointer) {
        var area = 0.0
        var previous = edges[first].right
        for index in first...last {
            let p = edges[index].left
            area += previous.x * p.y - p.x * previous.y
            previous = p
        }
        for index in stride(from: last, through: first, by: -1) {
            let p = edges[index].right
            area += previous.x * p.y - p.x * previous.y
            previous = p
        }
        if area >= 0 {
            cairo_move_to(context, edges[first].left.x, edges[first].left.y)
            for index in (first + 1)...last { cairo_line_to(context, edges[index].left.x, edges[index].left.y) }
            for index in stride(from: last, through: first, by: -1) { cairo_line_to(context, edges[index].right.x, edges[index].right.y) }
        } else {
            cairo_move_to(context, edges[first].right.x, edges[first].right.y)
            for index in (first + 1)...last { cairo_line_to(context, edges[index].right.x, edges[index].right.y) }
            for index in stride(from: last, through: first, by: -1) { cairo_line_to(context, edges[index].left.x, edges[index].left.y) }
        }
        cairo_close_path(context)
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
        return PNGEncoder.container(width: width, height: height, idat: Data(compressed.prefix(Int(compressedLength))))
    }
}
