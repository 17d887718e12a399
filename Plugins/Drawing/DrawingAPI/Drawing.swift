public import Bus

/// A drawing: pen and eraser strokes and text annotations, in coordinates relative to the canvas
/// (0…1 on each axis), so that one drawing fits any rendition of the photo it belongs to.
///
/// `aspect` is the width-to-height ratio of the surface it was drawn on. A drawing that has one is
/// rendered into the largest rectangle of that shape centred in the output (letterboxed), so a
/// circle stays a circle at any size; one without (drawings made before it was recorded) fills the
/// output, as it always did.
public struct Drawing: Codable, Sendable, Equatable {
    public var strokes: [Stroke]
    public var texts: [TextAnnotation]
    /// Width ÷ height of the surface the drawing was made on; nil: stretch to whatever canvas.
    public var aspect: Double?

    public init(strokes: [Stroke] = [], texts: [TextAnnotation] = [], aspect: Double? = nil) {
        self.strokes = strokes
        self.texts = texts
        // Nothing drawn has no shape: the empty drawing is one drawing, whatever surface it was cleared on.
        self.aspect = strokes.isEmpty && texts.isEmpty ? nil : aspect
    }

    /// The empty drawing ("Clear").
    public static let empty = Drawing()

    /// Either list may be left out (an empty drawing is `{}`), and `aspect` too (the drawing fills
    /// the canvas). An empty drawing's aspect is dropped: it is `.empty`, so saving it clears.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let strokes = try container.decodeIfPresent([Stroke].self, forKey: .strokes) ?? []
        let texts = try container.decodeIfPresent([TextAnnotation].self, forKey: .texts) ?? []
        self.init(strokes: strokes, texts: texts, aspect: try container.decodeIfPresent(Double.self, forKey: .aspect))
    }

    /// Where a drawing goes on a `width`×`height` canvas: all of it without an aspect, else the
    /// largest rectangle of the drawing's aspect, centred (the rest stays empty).
    public func frame(width: Double, height: Double) -> (x: Double, y: Double, width: Double, height: Double) {
        guard let aspect, aspect.isFinite, aspect > 0, width > 0, height > 0 else { return (0, 0, width, height) }
        if width / height > aspect {
            let fitted = height * aspect
            return ((width - fitted) / 2, 0, fitted, height)
        }
        let fitted = width / aspect
        return (0, (height - fitted) / 2, width, fitted)
    }

    public struct Point: Codable, Sendable, Equatable {
        public var x: Double
        public var y: Double
        /// 0…1 from a stylus; absent for a finger or mouse.
        public var pressure: Double?
        public init(x: Double, y: Double, pressure: Double? = nil) {
            self.x = x
            self.y = y
            self.pressure = pressure
        }
    }

    public struct Stroke: Codable, Sendable, Equatable {
        public enum Tool: String, Codable, Sendable { case pen, eraser }
        public var tool: Tool
        /// `#rrggbb` or `#rrggbbaa`.
        public var color: String
        /// Line width as a fraction of the canvas' shorter side.
        public var width: Double
        public var points: [Point]
        public init(tool: Tool = .pen, color: String = "#000000", width: Double = 0.01, points: [Point]) {
            self.tool = tool
            self.color = color
            self.width = width
            self.points = points
        }

        /// `tool`, `color` and `width` may be left out: a black pen, 1 % of the canvas wide. Not null.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            tool = try container.decodeUnlessNull(Tool.self, forKey: .tool) ?? .pen
            color = try container.decodeUnlessNull(String.self, forKey: .color) ?? "#000000"
            width = try container.decodeUnlessNull(Double.self, forKey: .width) ?? 0.01
            points = try container.decode([Point].self, forKey: .points)
        }
    }

    public struct TextAnnotation: Codable, Sendable, Equatable {
        public var text: String
        /// Where the text's baseline starts.
        public var x: Double
        public var y: Double
        /// Font size as a fraction of the canvas height.
        public var size: Double
        public var color: String
        public init(text: String, x: Double, y: Double, size: Double = 0.05, color: String = "#000000") {
            self.text = text
            self.x = x
            self.y = y
            self.size = size
            self.color = color
        }

        /// `size` and `color` may be left out: black, 5 % of the canvas high. Not null.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            x = try container.decode(Double.self, forKey: .x)
            y = try container.decode(Double.self, forKey: .y)
            size = try container.decodeUnlessNull(Double.self, forKey: .size) ?? 0.05
            color = try container.decodeUnlessNull(String.self, forKey: .color) ?? "#000000"
        }
    }
}

/// Bounds that keep a drawing cheap to store and render.
public enum DrawingLimits {
    public static let maxStrokes = 5_000
    public static let maxPointsPerStroke = 10_000
    public static let maxPoints = 200_000
    public static let maxTexts = 500
    public static let maxTextLength = 1_000
    public static let maxCanvasSide = 8_192
    /// A drawing's aspect (width ÷ height of the surface it was drawn on) is within these.
    public static let aspect: ClosedRange<Double> = 0.01...100
}

extension Drawing {
    /// Checks every number is finite and in range, colours parse and counts stay in bounds.
    /// - Throws: `invalid` naming the first offending field, e.g. `strokes[3].points[10].x`.
    public func validate() throws(BusError) {
        guard strokes.count <= DrawingLimits.maxStrokes else {
            throw BusError.invalid("A drawing holds at most \(DrawingLimits.maxStrokes) strokes.", field: "strokes")
        }
        guard texts.count <= DrawingLimits.maxTexts else {
            throw BusError.invalid("A drawing holds at most \(DrawingLimits.maxTexts) texts.", field: "texts")
        }
        if let aspect, !(aspect.isFinite && DrawingLimits.aspect.contains(aspect)) {
            throw BusError.invalid("The aspect is the drawing surface's width divided by its height, from "
                                   + "\(DrawingLimits.aspect.lowerBound) to \(Int(DrawingLimits.aspect.upperBound)).", field: "aspect")
        }
        struct Field { let index: Int; var name: String { "strokes[\(index)]" } }
        var total = 0
        for (index, stroke) in strokes.enumerated() {
            // Field names are written only for an error: a render validates every point.
            let field = Field(index: index)
            guard !stroke.points.isEmpty, stroke.points.count <= DrawingLimits.maxPointsPerStroke else {
                throw BusError.invalid("A stroke has 1 to \(DrawingLimits.maxPointsPerStroke) points.", field: "\(field.name).points")
            }
            total += stroke.points.count
            guard total <= DrawingLimits.maxPoints else {
                throw BusError.invalid("A drawing holds at most \(DrawingLimits.maxPoints) points in all.", field: "strokes")
            }
            guard stroke.width.isFinite, stroke.width > 0, stroke.width <= 0.5 else {
                throw BusError.invalid("A stroke's width is a fraction of the canvas, above 0 and at most 0.5.", field: "\(field.name).width")
            }
            guard RGBA(hex: stroke.color) != nil else {
                throw BusError.invalid("Colours are written #rrggbb or #rrggbbaa.", field: "\(field.name).color")
            }
            for (pointIndex, point) in stroke.points.enumerated() {
                guard point.x.isFinite, point.y.isFinite, (-1...2).contains(point.x), (-1...2).contains(point.y) else {
                    throw BusError.invalid("Coordinates are fractions of the canvas (0 to 1; a little outside is clipped).", field: "\(field.name).points[\(pointIndex)]")
                }
                if let pressure = point.pressure, !(pressure.isFinite && (0...1).contains(pressure)) {
                    throw BusError.invalid("Pressure is between 0 and 1.", field: "\(field.name).points[\(pointIndex)].pressure")
                }
            }
        }
        for (index, text) in texts.enumerated() {
            let field = "texts[\(index)]"
            guard !text.text.isEmpty, text.text.count <= DrawingLimits.maxTextLength else {
                throw BusError.invalid("A text has 1 to \(DrawingLimits.maxTextLength) characters.", field: "\(field).text")
            }
            guard text.x.isFinite, text.y.isFinite, (-1...2).contains(text.x), (-1...2).contains(text.y) else {
                throw BusError.invalid("Coordinates are fractions of the canvas.", field: field)
            }
            guard text.size.isFinite, text.size > 0, text.size <= 1 else {
                throw BusError.invalid("A text's size is a fraction of the canvas height, above 0 and at most 1.", field: "\(field).size")
            }
            guard RGBA(hex: text.color) != nil else {
                throw BusError.invalid("Colours are written #rrggbb or #rrggbbaa.", field: "\(field).color")
            }
        }
    }
}

/// A colour parsed from `#rrggbb` or `#rrggbbaa`, channels 0…1.
public struct RGBA: Sendable, Equatable {
    public var red, green, blue, alpha: Double

    public init?(hex: String) {
        guard hex.first == "#", hex.count == 7 || hex.count == 9, let value = UInt64(hex.dropFirst(), radix: 16) else { return nil }
        let full = hex.count == 7 ? value << 8 | 0xFF : value
        red = Double(full >> 24 & 0xFF) / 255
        green = Double(full >> 16 & 0xFF) / 255
        blue = Double(full >> 8 & 0xFF) / 255
        alpha = Double(full & 0xFF) / 255
    }
}
