import Bus

/// A rectangle in page coordinates: the origin is the page's top-left corner, y grows downwards.
struct Frame: Codable, Sendable, Equatable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    var isFinite: Bool { [x, y, width, height].allSatisfy(\.isFinite) }
}

/// The page, its templates, covers and palette: what the server places items by and a client
/// draws with (`GET /api/v1/notebooks/catalog`).
struct NotebookLayout: Sendable {
    var pageWidth: Double
    var pageHeight: Double
    /// The smallest side an item may be resized to.
    static let minimumSide = 16.0
    static let margin = 40.0

    /// FR3.2.3: three predefined cover styles.
    static let covers: [Cover] = [
        Cover(id: "colors", summary: "Two-tone leather colours", colors: ["#8E2B2B", "#D9B382"]),
        Cover(id: "image", summary: "A printed picture on the cover", colors: ["#1F3A5F", "#FFFFFF"]),
        Cover(id: "text", summary: "The notebook's name set large on plain card", colors: ["#F5F1E6", "#222222"]),
    ]

    /// Page backgrounds a page may take (named, so clients agree on the colour).
    static let palette: [Swatch] = [
        Swatch(id: "white", hex: "#FFFFFF"), Swatch(id: "cream", hex: "#FFF8E7"), Swatch(id: "sky", hex: "#E3F2FD"),
        Swatch(id: "mint", hex: "#E8F5E9"), Swatch(id: "rose", hex: "#FCE4EC"), Swatch(id: "slate", hex: "#ECEFF1"),
        Swatch(id: "night", hex: "#263238"),
    ]

    static let templateIDs = ["blank", "one-slot", "two-slots"]

    struct Cover: Codable, Sendable, Equatable {
        var id: String
        var summary: String
        var colors: [String]
    }

    struct Swatch: Codable, Sendable, Equatable {
        var id: String
        var hex: String
    }

    struct Template: Codable, Sendable, Equatable {
        var id: String
        var slots: [Frame]
    }

    /// FR3.2.15: blank (items centred), one slot, or two slots one above the other.
    func template(_ id: String) -> Template? {
        let margin = Self.margin
        let inner = (width: pageWidth - 2 * margin, height: pageHeight - 2 * margin)
        switch id {
        case "blank": return Template(id: id, slots: [])
        case "one-slot": return Template(id: id, slots: [Frame(x: margin, y: margin, width: inner.width, height: inner.height)])
        case "two-slots":
            let half = (inner.height - margin) / 2
            return Template(id: id, slots: [Frame(x: margin, y: margin, width: inner.width, height: half),
                                            Frame(x: margin, y: margin + half + margin, width: inner.width, height: half)])
        default: return nil
        }
    }

    var templates: [Template] { Self.templateIDs.compactMap(template) }

    /// Where a new item goes: inside its slot, else centred on the page. An image keeps its aspect
    /// ratio; text takes the slot's width, or 80 % of the page's when centred.
    /// Without a slot, `avoiding` (the frames already on the page) moves it up or down from the
    /// centre to the nearest place that covers none of them (below first, as one reads); with no
    /// such place, to where its middle is farthest from theirs, so it never lands on top of another
    /// item and hides it (every un-slotted insert was centred at the one same place).
    func place(in slot: Frame?, aspect: Double?, avoiding: [Frame] = []) -> Frame {
        let box = slot ?? Frame(x: pageWidth * 0.1, y: pageHeight * 0.3, width: pageWidth * 0.8, height: pageHeight * 0.4)
        var size = (width: box.width, height: box.height)
        if let aspect, aspect.isFinite, aspect > 0 {
            size = box.width / box.height > aspect ? (box.height * aspect, box.height) : (box.width, box.width / aspect)
        } else if slot == nil {
            size.height = min(box.height, pageHeight * 0.15)
        }
        let centred = Frame(x: box.x + (box.width - size.width) / 2, y: box.y + (box.height - size.height) / 2, width: size.width, height: size.height)
        guard slot == nil, !avoiding.isEmpty else { return centred }
        return apart(centred, from: avoiding)
    }

    /// `frame` moved up or down the page (its x kept) off the frames of `others`; see `place`.
    private func apart(_ frame: Frame, from others: [Frame]) -> Frame {
        let gap = 8.0
        let top = min(Self.margin, max(0, pageHeight - frame.height) / 2)
        let bottom = max(top, pageHeight - top - frame.height)
        let step = 10.0
        var candidates: [Double] = [frame.y]
        var offset = step
        while frame.y - offset >= top || frame.y + offset <= bottom {
            if frame.y + offset <= bottom { candidates.append(frame.y + offset) }
            if frame.y - offset >= top { candidates.append(frame.y - offset) }
            offset += step
        }
        candidates.append(contentsOf: [bottom, top])
        func at(_ y: Double) -> Frame { Frame(x: frame.x, y: y, width: frame.width, height: frame.height) }
        func covers(_ a: Frame, _ b: Frame) -> Bool {
            a.x < b.x + b.width + gap && b.x < a.x + a.width + gap && a.y < b.y + b.height + gap && b.y < a.y + a.height + gap
        }
        if let free = candidates.first(where: { y in !others.contains { covers(at(y), $0) } }) { return at(free) }
        func distance(_ y: Double) -> Double {
            let middle = (x: frame.x + frame.width / 2, y: y + frame.height / 2)
            return others.map { other -> Double in
                let (dx, dy) = (other.x + other.width / 2 - middle.x, other.y + other.height / 2 - middle.y)
                return (dx * dx + dy * dy).squareRoot()
            }.min() ?? .infinity
        }
        var best = candidates[0]
        for y in candidates where distance(y) > distance(best) { best = y }
        return at(best)
    }

    /// FR3.2.13: a frame kept inside the page. Too wide or tall shrinks to the page (so an item can
    /// stretch to the full width); an edge past the page moves back in. Also says whether it changed.
    func clamp(_ frame: Frame) throws(BusError) -> (frame: Frame, clamped: Bool) {
        guard frame.isFinite else { throw BusError.invalid("A frame's x, y, width and height are finite numbers.", field: "frame") }
        guard frame.width > 0, frame.height > 0 else {
            throw BusError.invalid("A frame's width and height are greater than 0.", field: "frame")
        }
        var result = frame
        result.width = min(max(frame.width, Self.minimumSide), pageWidth)
        result.height = min(max(frame.height, Self.minimumSide), pageHeight)
        result.x = min(max(frame.x, 0), pageWidth - result.width)
        result.y = min(max(frame.y, 0), pageHeight - result.height)
        return (result, result != frame)
    }
}
