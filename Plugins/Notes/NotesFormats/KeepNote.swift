public import Foundation

/// One note of a Google Keep export (Google Takeout: `Takeout/Keep/<note>.json`, its images beside
/// it), as Keep writes it: `title`, `textContent` or a checklist's `listContent`, `labels`,
/// `attachments` (`filePath`, `mimetype`), `createdTimestampUsec` (or, in older exports, only
/// `userEditedTimestampUsec`), `isTrashed`.
public struct KeepNote: Sendable, Equatable {
    public var title: String
    public var text: String
    public var labels: [String]
    /// The attachments' file names (beside the JSON), images first in their order.
    public var images: [(path: String, mimeType: String)]
    public var created: Date?
    public var trashed: Bool

    public static func == (a: KeepNote, b: KeepNote) -> Bool {
        a.title == b.title && a.text == b.text && a.labels == b.labels && a.created == b.created && a.trashed == b.trashed
            && a.images.map(\.path) == b.images.map(\.path) && a.images.map(\.mimeType) == b.images.map(\.mimeType)
    }

    struct Wire: Decodable {
        struct Item: Decodable {
            var text: String?
            var isChecked: Bool?
        }
        struct Label: Decodable { var name: String? }
        struct Attachment: Decodable {
            var filePath: String?
            var mimetype: String?
        }
        var title: String?
        var textContent: String?
        var listContent: [Item]?
        var labels: [Label]?
        var attachments: [Attachment]?
        var createdTimestampUsec: Int64?
        var userEditedTimestampUsec: Int64?
        var isTrashed: Bool?
    }

    /// Reads one note's JSON; says what is wrong when it is not a Keep note.
    public static func parse(_ json: Data) throws(NoteProblem) -> KeepNote {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: json)
        } catch {
            throw NoteProblem(index: 0, message: "it is not a Keep note's JSON (\(Self.describe(error)))")
        }
        guard wire.title != nil || wire.textContent != nil || wire.listContent != nil else {
            throw NoteProblem(index: 0, message: "it is JSON but not a Keep note: it has no title, textContent or listContent")
        }
        let text = wire.textContent ?? (wire.listContent ?? []).map { ($0.isChecked == true ? "☑ " : "☐ ") + ($0.text ?? "") }.joined(separator: "\n")
        let microseconds = wire.createdTimestampUsec ?? wire.userEditedTimestampUsec
        return KeepNote(title: wire.title ?? "", text: text,
                        labels: (wire.labels ?? []).compactMap(\.name).filter { !$0.isEmpty },
                        images: (wire.attachments ?? []).compactMap { attachment in
                            guard let path = attachment.filePath, !path.isEmpty else { return nil }
                            let type = attachment.mimetype ?? ""
                            return type.isEmpty || type.hasPrefix("image/") ? (path, type) : nil
                        },
                        created: microseconds.flatMap { $0 > 0 ? Date(timeIntervalSince1970: Double($0) / 1_000_000) : nil },
                        trashed: wire.isTrashed ?? false)
    }

    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not a JSON object" : "\(path) has the wrong type"
        case .dataCorrupted?: return "not valid JSON"
        default: return "not readable"
        }
    }

    /// Where Keep put an attachment it names: beside the JSON, under the name given or — Takeout
    /// writes `.jpg` files that the JSON calls `.jpeg`, and the other way round — another image
    /// extension of the same name.
    public static func candidates(for path: String, beside json: String) -> [String] {
        let folder = json.contains("/") ? String(json[...(json.lastIndex(of: "/") ?? json.startIndex)]) : ""
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var names = [name]
        if let dot = name.lastIndex(of: ".") {
            let stem = name[..<dot]
            for other in ["jpg", "jpeg", "png", "gif", "webp", "heic"] where "\(stem).\(other)" != name { names.append("\(stem).\(other)") }
        }
        return names.map { folder + $0 }
    }
}
