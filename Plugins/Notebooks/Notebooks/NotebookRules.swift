import Bus
import Foundation

/// What a notebook's names, covers, colours and texts may be; each refusal says what is allowed.
enum NotebookRules {
    static let maxNameLength = 100
    static let maxTextLength = 2000
    /// UC-5: clipboard text is at most 140 characters.
    static let maxClipboardLength = 140

    static func checkName(_ name: String) throws(BusError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxNameLength, !trimmed.contains(where: \.isNewline) else {
            throw BusError.invalid("A notebook's name is 1 to \(maxNameLength) characters on one line.", field: "name")
        }
        return trimmed
    }

    static func checkCover(_ cover: String) throws(BusError) -> String {
        guard NotebookLayout.covers.contains(where: { $0.id == cover }) else {
            throw BusError.invalid("'cover' is one of \(NotebookLayout.covers.map(\.id).joined(separator: ", ")).", field: "cover")
        }
        return cover
    }

    static func checkCoverText(_ text: String) throws(BusError) -> String {
        guard text.count <= 60, !text.contains(where: \.isNewline) else {
            throw BusError.invalid("The cover's text is at most 60 characters on one line.", field: "coverText")
        }
        return text
    }

    static func checkBackground(_ background: String) throws(BusError) -> String {
        guard NotebookLayout.palette.contains(where: { $0.id == background }) else {
            throw BusError.invalid("'background' is one of the palette's colours: \(NotebookLayout.palette.map(\.id).joined(separator: ", ")).",
                                   field: "background")
        }
        return background
    }

    static func checkText(_ text: String, kind: String) throws(BusError) -> String {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw BusError.invalid(kind == "clipboard" ? "The clipboard is empty; copy some text first." : "Type some text first.", field: "text")
        }
        if kind == "clipboard", text.count > maxClipboardLength {
            throw BusError.invalid("Clipboard text is at most \(maxClipboardLength) characters; this is \(text.count). "
                                   + "Copy a shorter passage or type it as keyboard text.", field: "text")
        }
        guard text.count <= maxTextLength else {
            throw BusError.invalid("Text is at most \(maxTextLength) characters; this is \(text.count).", field: "text")
        }
        return text
    }
}
