import Bus
import CCairo
import Drawing
import DrawingAPI
import Foundation
import Media
import MediaAPI
import Testing

/// Reads a rendered PNG back with cairo, for pixel checks.
struct Pixels {
    let width: Int
    let height: Int
    private let argb: [UInt32]

    init(png: Data) throws {
        final class Source { var data: Data; var offset = 0; init(_ data: Data) { self.data = data } }
        let source = Source(png)
        let read: cairo_read_func_t = { closure, buffer, length in
            guard let closure, let buffer else { return CAIRO_STATUS_READ_ERROR }
            let source = Unmanaged<Source>.fromOpaque(closure).takeUnretainedValue()
            guard source.offset + Int(length) <= source.data.count else { return CAIRO_STATUS_READ_ERROR }
            source.data.copyBytes(to: buffer, from: source.offset..<source.offset + Int(length))
            source.offset += Int(length)
            return CAIRO_STATUS_SUCCESS
        }
        let surface = withExtendedLifetime(source) {
            cairo_image_surface_create_from_png_stream(read, Unmanaged.passUnretained(source).toOpaque())
        }
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { throw BusError(.invalid, "not a PNG") }
        defer { cairo_surface_destroy(surface) }
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { throw BusError(.invalid, "no pixels") }
        var pixels: [UInt32] = []
        for y in 0..<height {
            for x in 0..<width {
                pixels.append(UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self))
            }
        }
        argb = pixels
    }

    func alpha(_ x: Int, _ y: Int) -> UInt32 { argb[y * width + x] >> 24 }
    func value(_ x: Int, _ y: Int) -> UInt32 { argb[y * width + x] }
    var isBlank: Bool { argb.allSatisfy { $0 >> 24 == 0 } }
}

@Suite("Drawing")
struct DrawingTests {
    let line = Drawing.Stroke(color: "#ff0000", width: 0.05, points: [.init(x: 0.1, y: 0.5), .init(x: 0.9, y: 0.5)])

    @Test("a stroke is drawn where its relative coordinates say, at any canvas size", arguments: [(200, 100), (1024, 768)])
    func strokePlacement(_ size: (Int, Int)) throws {
        let pixels = try Pixels(png: try DrawingRenderer.render(Drawing(strokes: [line]), width: size.0, height: size.1, as: .png))
        #expect(pixels.width == size.0 && pixels.height == size.1)
        #expect(pixels.alpha(size.0 / 2, size.1 / 2) == 255, "on the line")
        #expect(pixels.alpha(size.0 / 2, size.1 / 10) == 0, "off the line: transparent")
    }

    @Test("an emoji in a label is drawn from the emoji font, in colour — not an empty box in the label's black")
    func emoji() throws {
        let label = Drawing.TextAnnotation(text: "Tom 🙂", x: 0.05, y: 0.7, size: 0.4, color: "#000000")
        let pixels = try Pixels(png: try DrawingRenderer.render(Drawing(texts: [label]), width: 400, height: 200, as: .png))
        var coloured = 0
        for y in 0..<pixels.height {
            for x in 0..<pixels.width {
                let argb = pixels.value(x, y)
                let (a, r, g, b) = (argb >> 24, (argb >> 16) & 0xff, (argb >> 8) & 0xff, argb & 0xff)
                // A yellow face: premultiplied red and green well above blue.
                if a > 200, r > 150, g > 100, b + 80 < g { coloured += 1 }
            }
        }
        #expect(coloured > 200, "the smiley's yellow")
        #expect(pixels.alpha(10, 10) == 0, "the rest stays transparent")
    }

    @Test("a translucent pressure stroke is evenly translucent: no darker dots where its segments meet")
    func pressureOverlap() throws {
        let points = (0...40).map { Drawing.Point(x: 0.1 + Double($0) * 0.02, y: 0.5, pressure: 0.8) }
        let stroke = Drawing.Stroke(color: "#0000ff80", width: 0.1, points: points)
        let pixels = try Pixels(png: try DrawingRenderer.render(Drawing(strokes: [stroke]), width: 400, height: 200, as: .png))
        let alphas = Set((60...340).map { pixels.alpha($0, 100) })
        #expect(alphas.count == 1, "one alpha along the stroke, got \(alphas.sorted())")
        #expect(alphas.first.map { (120...136).contains($0) } == true, "the colour's own alpha (0x80)")
    }

    @Test("an eraser clears what was drawn under it")
    func eraser() throws {
        let eraser = Drawing.Stroke(tool: .eraser, width: 0.1, points: [.init(x: 0.5, y: 0), .init(x: 0.5, y: 1)])
        let pixels = try Pixels(png: try DrawingRenderer.render(Drawing(strokes: [line, eraser]), width: 200, height: 100, as: .png))
        #expect(pixels.alpha(100, 50) == 0, "erased")
        #expect(pixels.alpha(40, 50) == 255, "kept beside the eraser")
    }

    @Test("clear: the empty drawing renders fully transparent")
    func clear() throws {
        #expect(try Pixels(png: try DrawingRenderer.render(.empty, width: 64, height: 48, as: .png)).isBlank)
    }

    @Test("SVG output is an SVG document of the requested size")
    func svg() throws {
        let text = String(decoding: try DrawingRenderer.render(Drawing(strokes: [line], texts: [.init(text: "hi", x: 0.1, y: 0.2)]),
                                                               width: 300, height: 200, as: .svg), as: UTF8.self)
        #expect(text.hasPrefix("<?xml"))
        #expect(text.contains("<svg") && text.contains("viewBox=\"0 0 300 200\""))
    }

    @Test("invalid drawings are refused, naming the field", arguments: [
        (Drawing(strokes: [Drawing.Stroke(color: "red", points: [.init(x: 0, y: 0)])]), "strokes[0].color"),
        (Drawing(strokes: [Drawing.Stroke(width: 0, points: [.init(x: 0, y: 0)])]), "strokes[0].width"),
        (Drawing(strokes: [Drawing.Stroke(points: [])]), "strokes[0].points"),
        (Drawing(strokes: [Drawing.Stroke(points: [.init(x: .nan, y: 0)])]), "strokes[0].points[0]"),
        (Drawing(strokes: [Drawing.Stroke(points: [.init(x: 0, y: 0, pressure: 3)])]), "strokes[0].points[0].pressure"),
        (Drawing(texts: [.init(text: "", x: 0, y: 0)]), "texts[0].text"),
        (Drawing(texts: [.init(text: "x", x: 0, y: 0, size: .infinity)]), "texts[0].size"),
    ])
    func invalid(_ drawing: Drawing, _ field: String) {
        do {
            try drawing.validate()
            Issue.record("expected \(field) to be refused")
        } catch {
            #expect(error.code == .invalid)
            #expect(error.details["field"] == field)
        }
    }

    @Test("bounded: too many points in all are refused before rendering")
    func bounds() {
        let many = Drawing.Stroke(points: Array(repeating: .init(x: 0.5, y: 0.5), count: DrawingLimits.maxPointsPerStroke))
        let drawing = Drawing(strokes: Array(repeating: many, count: DrawingLimits.maxPoints / DrawingLimits.maxPointsPerStroke + 1))
        #expect(throws: BusError.self) { try DrawingRenderer.render(drawing, width: 10, height: 10, as: .png) }
    }

    /// A circle of radius 120 px drawn on a `surface` (width × height in px), as the client records it.
    static func circle(on surface: (Double, Double), aspect: Bool = true, pressure: Double? = nil, steps: Int = 72) -> Drawing {
        let points = (0...steps).map { step -> Drawing.Point in
            let angle = Double(step) / Double(steps) * 2 * Double.pi
            return .init(x: 0.5 + 120 * cos(angle) / surface.0, y: 0.5 + 120 * sin(angle) / surface.1, pressure: pressure)
        }
        return Drawing(strokes: [.init(color: "#1b1b1b", width: 0.02, points: points)], aspect: aspect ? surface.0 / surface.1 : nil)
    }

    /// The box around every pixel at least half opaque: (minX, minY, maxX, maxY).
    static func box(_ pixels: Pixels) -> (Int, Int, Int, Int) {
        var box = (Int.max, Int.max, Int.min, Int.min)
        for y in 0..<pixels.height {
            for x in 0..<pixels.width where pixels.alpha(x, y) >= 128 {
                box = (min(box.0, x), min(box.1, y), max(box.2, x), max(box.3, y))
            }
        }
        return box
    }

    @Test("a circle drawn on a portrait phone stays a circle on any canvas: the drawing is letterboxed at its aspect",
          arguments: [(844, 390), (1024, 768), (390, 844), (300, 300)], [nil, 0.7])
    func aspectKept(_ size: (Int, Int), _ pressure: Double?) throws {
        let drawing = Self.circle(on: (358, 506), pressure: pressure)
        let pixels = try Pixels(png: try DrawingRenderer.render(drawing, width: size.0, height: size.1, as: .png))
        let (minX, minY, maxX, maxY) = Self.box(pixels)
        let width = maxX - minX + 1, height = maxY - minY + 1
        #expect(abs(width - height) <= 2, "a circle, not an ellipse: \(width)×\(height) on \(size)")
        #expect(abs((minX + maxX) - size.0) <= 2 && abs((minY + maxY) - size.1) <= 2, "centred: \((minX, minY, maxX, maxY)) on \(size)")
        // Its size on the canvas is its size on the surface, scaled by the frame: 240 px + the line
        // on a 506 px high surface, in a frame as high as the canvas allows.
        let frame = drawing.frame(width: Double(size.0), height: Double(size.1))
        let expected = (240 + 0.02 * 358 * (pressure ?? 1)) * frame.height / 506
        #expect(abs(Double(height) - expected) <= 3, "\(height) px high, expected about \(expected)")
    }

    @Test("the SVG is letterboxed like the PNG: the circle's path spans a square as high as the frame allows")
    func aspectKeptInSVG() throws {
        let drawing = Self.circle(on: (358, 506))
        let svg = String(decoding: try DrawingRenderer.render(drawing, width: 844, height: 390, as: .svg), as: UTF8.self)
        // The stroke's path: every coordinate pair after its M/C commands, in the SVG's pixels.
        let paths = svg.components(separatedBy: " d=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        let stroke = try #require(paths.max { $0.count < $1.count })
        let numbers = stroke.split { !"0123456789.-".contains($0) }.compactMap { Double($0) }
        let xs = stride(from: 0, to: numbers.count - 1, by: 2).map { numbers[$0] }
        let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
        let width = try #require(xs.max()) - (try #require(xs.min())), height = try #require(ys.max()) - (try #require(ys.min()))
        #expect(abs(width - height) <= 1.5, "a circle: \(width)×\(height)")
        #expect(abs(height - 240 * 390 / 506) <= 2, "as high as the portrait frame in a 390 px high canvas allows: \(height)")
    }

    @Test("a drawing without an aspect (saved before it was recorded) still fills the canvas, as it always did")
    func oldDrawingsFill() throws {
        let json = ##"{"strokes":[{"color":"#000000","width":0.02,"points":[{"x":0.1,"y":0.1},{"x":0.9,"y":0.9}]}]}"##
        let drawing = try JSONDecoder().decode(Drawing.self, from: Data(json.utf8))
        #expect(drawing.aspect == nil)
        let pixels = try Pixels(png: try DrawingRenderer.render(drawing, width: 400, height: 100, as: .png))
        let (minX, minY, maxX, maxY) = Self.box(pixels)
        #expect(minX < 45 && maxX > 355 && minY < 15 && maxY > 85, "corner to corner of the whole canvas: \((minX, minY, maxX, maxY))")
        let stretched = try Pixels(png: try DrawingRenderer.render(Self.circle(on: (400, 400), aspect: false), width: 400, height: 200, as: .png))
        let box = Self.box(stretched)
        #expect(box.2 - box.0 > 2 * (box.3 - box.1) - 10, "no aspect: stretched to the canvas as before")
        // Its canonical JSON has no aspect member: the same blob as before.
        #expect(!String(decoding: try JSONEncoder().encode(drawing), as: UTF8.self).contains("aspect"))
    }

    @Test("the aspect is kept through JSON; an empty drawing's aspect is dropped, so saving it is Clear")
    func aspectJSON() throws {
        let drawing = Self.circle(on: (358, 506))
        #expect(try JSONDecoder().decode(Drawing.self, from: try JSONEncoder().encode(drawing)) == drawing)
        #expect(try JSONDecoder().decode(Drawing.self, from: Data(#"{"strokes":[],"texts":[],"aspect":0.7}"#.utf8)) == .empty)
        #expect(Drawing(aspect: 2) == .empty)
    }

    @Test("the frame: the whole canvas without an aspect, else the largest rectangle of the aspect, centred")
    func frame() {
        let frame = { (drawing: Drawing) -> [Double] in
            let frame = drawing.frame(width: 800, height: 400)
            return [frame.x, frame.y, frame.width, frame.height]
        }
        #expect(frame(Drawing(strokes: [line])) == [0, 0, 800, 400])
        #expect(frame(Drawing(strokes: [line], aspect: 0.5)) == [300, 0, 200, 400])
        #expect(frame(Drawing(strokes: [line], aspect: 4)) == [0, 100, 800, 200])
    }

    @Test("an aspect that is no shape is refused, naming it", arguments: [0, -1, Double.nan, Double.infinity, 1_000])
    func invalidAspect(_ aspect: Double) {
        do {
            try Drawing(strokes: [line], aspect: aspect).validate()
            Issue.record("expected the aspect \(aspect) to be refused")
        } catch {
            #expect(error.code == .invalid && error.details["field"] == "aspect")
        }
    }

    @Test("the PNG is one Quire's media plugin reads")
    func pngIsReadable() throws {
        let png = try DrawingRenderer.render(Drawing(strokes: [line]), width: 320, height: 240, as: .png)
        let info = try ImageInspector.inspect(png)
        #expect(info.format == .png && info.width == 320 && info.height == 240)
    }
}

@Suite("Drawing over a photo")
struct CompositeTests {
    @Test("the drawing is laid over the oriented photo as a new image; the photo's bytes are untouched")
    func composite() throws {
        let fixtures = try PhotoFixture()
        let photo = try fixtures.rotatedPhoto()
        let before = photo
        let size = try Compositor.orientedSize(of: photo)
        #expect(size.width == 480 && size.height == 640, "orientation 6 turns 640×480 into 480×640")
        let stroke = Drawing.Stroke(color: "#ff0000", width: 0.05, points: [.init(x: 0.1, y: 0.5), .init(x: 0.9, y: 0.5)])
        let layer = try DrawingRenderer.render(Drawing(strokes: [stroke]), width: size.width, height: size.height, as: .png)
        let result = try Compositor.composite(photo: photo, overlayPNG: layer)
        #expect(photo == before)
        let pixels = try Pixels(png: result)
        #expect(pixels.width == 480 && pixels.height == 640)
        #expect(pixels.alpha(10, 10) == 255, "the photo shows where nothing is drawn")
        #expect(pixels.red(240, 320) > 200 && pixels.green(240, 320) < 60, "the stroke is on top")
    }

    @Test("an overlay of the wrong size is refused")
    func wrongSize() throws {
        let photo = try PhotoFixture().rotatedPhoto()
        let layer = try DrawingRenderer.render(.empty, width: 640, height: 480, as: .png)
        #expect(throws: BusError.self) { try Compositor.composite(photo: photo, overlayPNG: layer) }
    }
}

/// A 640×480 JPEG marked with EXIF orientation 6, made with the vips and exiftool commands.
final class PhotoFixture: Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-draw-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: directory) }

    func rotatedPhoto() throws -> Data {
        let xyz = directory.appendingPathComponent("xyz.v").path, jpeg = directory.appendingPathComponent("p.jpg").path
        for arguments in [["vips", "xyz", xyz, "640", "480"], ["vips", "cast", xyz, jpeg, "uchar"],
                          ["exiftool", "-q", "-overwrite_original", "-Orientation#=6", jpeg]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BusError(.internal, "\(arguments) failed") }
        }
        return try Data(contentsOf: URL(fileURLWithPath: jpeg))
    }
}

extension Pixels {
    func red(_ x: Int, _ y: Int) -> UInt32 { value(x, y) >> 16 & 0xFF }
    func green(_ x: Int, _ y: Int) -> UInt32 { value(x, y) >> 8 & 0xFF }
}

@Suite("Drawing JSON: null where the schema allows none")
struct DrawingNullTests {
    @Test("decoding: absent is the default, null is refused, a value is kept")
    func decoding() throws {
        let absent = try JSONDecoder().decode(DrawingAPI.Drawing.TextAnnotation.self, from: Data(#"{"text": "a", "x": 0, "y": 0}"#.utf8))
        #expect(absent.color == "#000000" && absent.size == 0.05)
        let given = try JSONDecoder().decode(DrawingAPI.Drawing.TextAnnotation.self, from: Data(##"{"text": "a", "x": 0, "y": 0, "color": "#ff0000"}"##.utf8))
        #expect(given.color == "#ff0000")
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(DrawingAPI.Drawing.TextAnnotation.self, from: Data(#"{"text": "a", "x": 0, "y": 0, "color": null}"#.utf8))
        }
    }
}
