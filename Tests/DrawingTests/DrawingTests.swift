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
