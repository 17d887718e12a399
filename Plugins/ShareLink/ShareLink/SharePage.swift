import Foundation
import ShareLinkAPI

/// The public page of a link: plain HTML with Open Graph and Twitter card tags, so that a social
/// network shows the title and picture when the link is posted. Everything from users is escaped.
enum SharePage {
    /// `pageURL`: the page's absolute address from the configured `public_url`; without one,
    /// `og:url` is left out (the request's Host header is not the server's to trust).
    static func html(_ view: SharedView, pageURL: String?, imageURL: (Int) -> String) -> String {
        let firstImage = view.items.firstIndex { $0.image != nil || $0.overlay != nil }
        var head = """
            <meta property="og:type" content="website">
            <meta property="og:title" content="\(escape(view.title))">
            <meta name="twitter:title" content="\(escape(view.title))">
            """
        if let pageURL { head += "\n<meta property=\"og:url\" content=\"\(escape(pageURL))\">" }
        if let description = view.description, !description.isEmpty {
            head += "\n<meta property=\"og:description\" content=\"\(escape(description))\">"
            head += "\n<meta name=\"description\" content=\"\(escape(description))\">"
        }
        if let firstImage {
            head += "\n<meta property=\"og:image\" content=\"\(escape(imageURL(firstImage)))\">"
            head += "\n<meta name=\"twitter:card\" content=\"summary_large_image\">"
        }
        var body = "<h1>\(escape(view.title))</h1>\n"
        if let description = view.description, !description.isEmpty { body += "<p>\(escape(description))</p>\n" }
        for (index, item) in view.items.enumerated() {
            body += "<figure>\n"
            // A drawing alone (a note's back): its caption ("The back") above it, as a heading of it.
            let captionFirst = item.image == nil && item.overlay != nil
            var captionHTML = ""
            var picture = ""
            if item.image != nil || item.overlay != nil {
                picture = "<img src=\"\(escape(imageURL(index)))\" alt=\"\(escape(item.title ?? item.text ?? view.title))\">\n"
            }
            var caption: [String] = []
            if let title = item.title, !title.isEmpty { caption.append("<strong>\(escape(title))</strong>") }
            // A note's lines stay lines (each escaped).
            if let text = item.text, !text.isEmpty {
                caption.append(text.split(omittingEmptySubsequences: false, whereSeparator: { $0.isNewline }).map { escape(String($0)) }.joined(separator: "<br>"))
            }
            let facts = [item.takenAt.map(Self.readable), item.place].compactMap { $0 }.filter { !$0.isEmpty }
            if !facts.isEmpty { caption.append("<small>\(escape(facts.joined(separator: " · ")))</small>") }
            if !item.tags.isEmpty { caption.append("<small>\(item.tags.map { "#" + escape($0) }.joined(separator: " "))</small>") }
            if !caption.isEmpty { captionHTML = "<figcaption>\(caption.joined(separator: "<br>"))</figcaption>\n" }
            body += captionFirst ? captionHTML + picture : picture + captionHTML
            body += "</figure>\n"
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex">
            <title>\(escape(view.title))</title>
            \(head)
            <style>body{font:18px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}img{max-width:100%;height:auto}figure{margin:0 0 2rem}</style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    /// A page asking for the link's password (sent back as `?password=`, over GET: a link never takes a POST).
    static func passwordForm(message: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Shared with you</title></head>
        <body><form method="get"><p>\(escape(message))</p>
        <label>Password <input type="password" name="password" autofocus></label> <button>Open</button></form></body></html>

        """
    }

    static func message(_ title: String, _ text: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>\(escape(title))</title></head>
        <body><h1>\(escape(title))</h1><p>\(escape(text))</p></body></html>

        """
    }

    /// An RFC 3339 time as people read it on the page: "May 3, 2024 at 14:22" (its own wall clock).
    static func readable(_ time: String) -> String {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        let parts = time.prefix(19).split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        guard parts.count >= 5, (1...12).contains(parts[1]) else { return time }
        return "\(months[parts[1] - 1]) \(parts[2]), \(parts[0]) at \(String(format: "%02d:%02d", parts[3], parts[4]))"
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
