import Bus
import CCairo
import Drawing
import DrawingAPI
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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
        let paths = svg.components(separatedBy: " d=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let stroke = try #require(paths.max { $0.count < $1.count })
        // The points the curve passes through, in the SVG's pixels.
        let points = SVGPath.points(stroke)
        let xs = points.map(\.x), ys = points.map(\.y)
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

/// The on-curve points of an SVG path as the writer writes it (M, then relative c, s, a; z).
enum SVGPath {
    static func points(_ d: String) -> [(x: Double, y: Double)] {
        var tokens: [String] = []
        var number = ""
        func flush() { if !number.isEmpty { tokens.append(number); number = "" } }
        for character in d {
            if character.isLetter { flush(); tokens.append(String(character)) }
            else if character == "-" { flush(); number = "-" }
            else if character == "." && number.contains(".") { flush(); number = "." }
            else if character == " " || character == "," { flush() }
            else { number.append(character) }
        }
        flush()
        var points: [(x: Double, y: Double)] = []
        var current = (x: 0.0, y: 0.0), command = "M", arguments: [Double] = []
        let counts = ["M": 2, "c": 6, "s": 4, "a": 7, "z": 0]
        func apply() {
            switch command {
            case "M": current = (arguments[0], arguments[1])
            case "c", "s", "a": current = (current.x + arguments[arguments.count - 2], current.y + arguments[arguments.count - 1])
            default: return
            }
            points.append(current)
        }
        for token in tokens {
            if let value = Double(token) {
                arguments.append(value)
                if arguments.count == counts[command] { apply(); arguments = [] }
            } else {
                command = token
                arguments = []
            }
        }
        return points
    }
}

@Suite("Drawing simplified to the output's resolution")
struct SimplificationTests {
    /// A hand-drawn stroke as a stylus reports it: a point every pixel or two along a wavy
    /// line, pressure rising and falling.
    static func handDrawn(_ index: Int, points: Int = 400, pressure: Bool) -> Drawing.Stroke {
        let y0 = 0.08 + Double(index) * 0.07, phase = Double(index)
        let line = (0..<points).map { step -> Drawing.Point in
            let t = Double(step) / Double(points - 1)
            return Drawing.Point(x: 0.05 + 0.9 * t, y: y0 + 0.03 * sin(t * 9 + phase) + 0.01 * sin(t * 31),
                                 pressure: pressure ? 0.4 + 0.5 * sin(t * 5 + phase).magnitude : nil)
        }
        let colours = ["#1e90ff", "#ff4500", "#2e8b57", "#00000080", "#ffd700c0"]
        return Drawing.Stroke(color: colours[index % colours.count], width: 0.004 + 0.003 * Double(index % 4), points: line)
    }

    static let drawing = Drawing(strokes: (0..<12).map { handDrawn($0, pressure: $0 % 2 == 0) }
        + [Drawing.Stroke(tool: .eraser, width: 0.03, points: [.init(x: 0.5, y: 0.2), .init(x: 0.55, y: 0.5), .init(x: 0.5, y: 0.8)])],
        texts: [.init(text: "a < b & c", x: 0.1, y: 0.95, size: 0.04)])

    /// Distance from a point to the polyline through `line`, and the half-width there.
    static func distance(_ point: PenPoint, to line: [PenPoint]) -> Double {
        var best = Double.infinity
        for index in 0..<(line.count - 1) {
            best = min(best, StrokeGeometry.deviation(of: point, from: line[index], to: line[index + 1]))
        }
        return best
    }

    @Test("simplification keeps the endpoints, drops most of a stylus' points, and moves no edge by more than half a pixel",
          arguments: [true, false])
    func withinHalfAPixel(_ pressure: Bool) {
        let stroke = Self.handDrawn(3, pressure: pressure)
        var original: [PenPoint] = [], kept: [PenPoint] = [], keep: [Bool] = [], stack: [(Int, Int)] = []
        StrokeGeometry.pixels(of: stroke, width: 1024, height: 768, into: &original)
        StrokeGeometry.simplify(original, tolerance: 0.5, into: &kept, keep: &keep, stack: &stack)
        #expect(kept.first == original.first && kept.last == original.last, "the endpoints are kept")
        #expect(kept.count < original.count / 3, "\(kept.count) of \(original.count) points kept")
        let worst = original.map { Self.distance($0, to: kept) }.max() ?? .infinity
        #expect(worst <= 0.5 + 1e-9, "every dropped point's edge within half a pixel: \(worst)")
        // Every kept point is one of the originals, in order.
        var cursor = original.startIndex
        for point in kept {
            guard let found = original[cursor...].firstIndex(of: point) else { Issue.record("\(point) is not an original point"); break }
            cursor = found + 1
        }
        StrokeGeometry.simplify(original, tolerance: 0, into: &kept, keep: &keep, stack: &stack)
        #expect(kept == original, "tolerance 0: every point as given")
    }

    /// An edge moved by at most half a pixel changes an edge pixel's coverage by at most half:
    /// no pixel may differ by more than 128 of 255, and few by more than a quarter.
    @Test("a simplified drawing renders as the full one does: no pixel off by half, few by a quarter")
    func samePixels() throws {
        let full = try Pixels(png: try DrawingRenderer.render(Self.drawing, width: 1024, height: 768, as: .png, tolerance: 0))
        let simplified = try Pixels(png: try DrawingRenderer.render(Self.drawing, width: 1024, height: 768, as: .png))
        var drawn = 0, overQuarter = 0, overHalf = 0
        for y in 0..<full.height {
            for x in 0..<full.width {
                let a = full.value(x, y), b = simplified.value(x, y)
                if a >> 24 != 0 || b >> 24 != 0 { drawn += 1 }
                var worst = 0
                for shift in [0, 8, 16, 24] as [UInt32] { worst = max(worst, abs(Int(a >> shift & 0xFF) - Int(b >> shift & 0xFF))) }
                if worst > 64 { overQuarter += 1 }
                if worst > 128 { overHalf += 1 }
            }
        }
        #expect(drawn > 20_000, "the drawing covers something: \(drawn) pixels")
        #expect(overHalf == 0, "\(overHalf) pixels differ by more than half")
        #expect(Double(overQuarter) <= 0.02 * Double(drawn), "\(overQuarter) of \(drawn) drawn pixels differ by more than a quarter")
    }

    @Test("the SVG is well-formed XML: one path per stroke (erasers in their masks), one mask per eraser, the texts escaped")
    func svgIsXML() throws {
        let svg = try DrawingRenderer.render(Self.drawing, width: 1024, height: 768, as: .svg)
        let counter = ElementCounter()
        let parser = XMLParser(data: svg)
        parser.delegate = counter
        #expect(parser.parse(), "parses: \(String(describing: parser.parserError))")
        #expect(counter.counts["path"] == Self.drawing.strokes.count)
        #expect(counter.counts["mask"] == 1)
        #expect(counter.counts["text"] == 1)
        #expect(counter.text.contains("a < b & c"))
        #expect(counter.svgAttributes["viewBox"] == "0 0 1024 768")
    }

    @Test("a 1,000-stroke scribble's SVG stays under 1 MB and well-formed")
    func svgSize() throws {
        var state: UInt64 = 42
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let strokes = (0..<1000).map { index -> Drawing.Stroke in
            var x = next(), y = next()
            let points = (0..<32).map { _ -> Drawing.Point in
                x = min(1, max(0, x + (next() - 0.5) * 0.04))
                y = min(1, max(0, y + (next() - 0.5) * 0.04))
                return Drawing.Point(x: x, y: y, pressure: index % 2 == 0 ? 0.3 + next() * 0.7 : nil)
            }
            return Drawing.Stroke(tool: index % 50 == 49 ? .eraser : .pen, color: "#1e90ff", width: 0.002 + next() * 0.01, points: points)
        }
        let svg = try DrawingRenderer.render(Drawing(strokes: strokes), width: 1024, height: 768, as: .svg)
        #expect(svg.count < 1_000_000, "\(svg.count) bytes")
        let counter = ElementCounter()
        let parser = XMLParser(data: svg)
        parser.delegate = counter
        #expect(parser.parse())
        #expect(counter.counts["path"] == 1000 && counter.counts["mask"] == 20)
    }
}

/// Counts the elements of an XML document and collects its text.
final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    var text = ""
    var svgAttributes: [String: String] = [:]

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        counts[elementName, default: 0] += 1
        if elementName == "svg" { svgAttributes = attributes }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
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
