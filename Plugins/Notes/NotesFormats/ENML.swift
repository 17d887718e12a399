import Foundation

/// Evernote's note markup (ENML, an XHTML subset) as the plain text a note holds: paragraphs and
/// line breaks kept, lists as bullets, check boxes as ☐ and ☑, tables a row a line, media and
/// markup dropped. Lenient by design: a note's body is not refused for being untidy HTML.
public enum ENML {
    static let blocks: Set<String> = ["div", "p", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "blockquote",
                                      "pre", "hr", "en-note", "dl", "dt", "dd", "section", "article", "header", "footer", "address"]
    static let hidden: Set<String> = ["style", "script", "head", "title"]
    static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "ndash": "–", "mdash": "—", "hellip": "…",
        "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«", "raquo": "»", "copy": "©", "reg": "®", "trade": "™",
        "euro": "€", "pound": "£", "yen": "¥", "cent": "¢", "deg": "°", "middot": "·", "bull": "•", "times": "×", "divide": "÷",
        "para": "¶", "sect": "§", "shy": "", "zwj": "\u{200D}", "zwnj": "\u{200C}", "thinsp": " ", "ensp": " ", "emsp": " ",
    ].merging(letters) { a, _ in a }

    /// HTML's accented Latin letters (`&eacute;`, `&Uuml;`…), lower and upper case.
    static let letters: [String: String] = {
        var table: [String: String] = ["szlig": "ß"]
        let accents = ["acute": "\u{301}", "grave": "\u{300}", "circ": "\u{302}", "uml": "\u{308}", "tilde": "\u{303}", "ring": "\u{30A}",
                       "cedil": "\u{327}"]
        for letter in ["a", "e", "i", "o", "u", "y", "n", "c"] {
            for (name, mark) in accents {
                let composed = (letter + mark).precomposedStringWithCanonicalMapping
                guard composed.unicodeScalars.count == 1 else { continue }
                table[letter + name] = composed
                table[letter.uppercased() + name] = composed.uppercased()
            }
        }
        for (name, value) in ["aelig": "æ", "oslash": "ø", "eth": "ð", "thorn": "þ"] {
            table[name] = value
            table[name.prefix(1).uppercased() + name.dropFirst()] = value.uppercased()
        }
        return table
    }()

    public static func text(_ markup: String) -> String {
        var output = ""
        var pendingSpace = false
        var hiddenDepth = 0
        var preDepth = 0
        var scalars = Substring(markup)

        /// Ends the line, if one is open.
        func newline() {
            pendingSpace = false
            if output.isEmpty || output.hasSuffix("\n") { return }
            output += "\n"
        }
        /// A blank line (around paragraphs), at most one in a row.
        func blankLine() {
            newline()
            if output.isEmpty || output.hasSuffix("\n\n") { return }
            output += "\n"
        }
        func emit(_ text: String) {
            guard hiddenDepth == 0 else { return }
            for character in text {
                if preDepth == 0 && (character == " " || character == "\n" || character == "\t" || character == "\r") {
                    pendingSpace = true
                    continue
                }
                if pendingSpace && !output.isEmpty && !output.hasSuffix("\n") { output += " " }
                pendingSpace = false
                output.append(character)
            }
        }

        while let lt = scalars.firstIndex(of: "<") {
            emit(decode(scalars[..<lt]))
            guard let gt = scalars[lt...].firstIndex(of: ">") else {
                scalars = scalars[scalars.endIndex...]
                break
            }
            let tag = scalars[scalars.index(after: lt)..<gt]
            scalars = scalars[scalars.index(after: gt)...]
            if tag.hasPrefix("!") || tag.hasPrefix("?") { continue }  // comment, doctype, declaration
            let closing = tag.hasPrefix("/")
            let body = closing ? tag.dropFirst() : tag
            let name = String(body.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == ":" }).lowercased()
            let selfClosing = body.hasSuffix("/")
            if hidden.contains(name) {
                if !selfClosing { hiddenDepth += closing ? (hiddenDepth > 0 ? -1 : 0) : 1 }
                continue
            }
            switch name {
            case "en-todo":
                if !closing { emit(attribute("checked", in: body) == "true" ? "☑ " : "☐ ") }
            case "en-crypt":
                if !closing { emit("[encrypted text]") }
                if !selfClosing && !closing { hiddenDepth += 1 } else if closing && hiddenDepth > 0 { hiddenDepth -= 1 }
            case "li":
                newline()
                if !closing { emit("• ") }
            case "td", "th":
                if closing { pendingSpace = true; emit("\t") }
            case "pre":
                newline()
                if !selfClosing { preDepth = max(0, preDepth + (closing ? -1 : 1)) }
            case "br":
                if output.hasSuffix("\n") && !output.hasSuffix("\n\n") { output += "\n" } else { newline() }
            case "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote":
                blankLine()
            default:
                if blocks.contains(name) { newline() }
            }
        }
        emit(decode(scalars))
        return output.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacing("\t", with: " ").trimmingCharacters(" ") }
            .joined(separator: "\n")
            .trimmingCharacters("\n")
    }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let range = tag.range(of: name + "=") else { return nil }
        var rest = tag[range.upperBound...]
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        return String(rest.prefix { $0 != quote }).lowercased()
    }

    /// Text with its entities decoded; an unknown one is left as written.
    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var output = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
                output += "&"
                rest = after
                continue
            }
            let name = String(after[..<semicolon])
            var replacement: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                replacement = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                replacement = entities[name]
            }
            if let replacement {
                output += replacement
                rest = after[after.index(after: semicolon)...]
            } else {
                output += "&"
                rest = after
            }
        }
        return output + rest
    }
}

extension StringProtocol {
    /// The text without `character` at either end.
    func trimmingCharacters(_ character: Character) -> String {
        guard let first = firstIndex(where: { $0 != character }), let last = lastIndex(where: { $0 != character }) else { return "" }
        return String(self[first...last])
    }
}
