import Bus
import Foundation
import ShareLinkAPI
import StorageAPI

/// What share-link shows of a shared photo or search, read-only.
extension AlbumService {
    /// One photo: its picture, time and tags; its notes only when the sharer chose to show them
    /// (`notes: true` when the link was made: notes are often private, and a page's title is
    /// what a chat app shows beside the link).
    /// With `people` (the album's `people` switch), the people named in it head its caption, each as
    /// "Emma — your granddaughter": the page is read by the family in it — unless the sharer chose
    /// to leave the names out of this link (`people: false` when it was made).
    func sharedPhoto(owner: String, resource: [String: String], people: Bool = false) async throws(BusError) -> SharedView {
        guard let id = resource["photo"] else { throw BusError.invalid("A shared photo names its 'photo'.", field: "resource") }
        let photo = try await photo(owner: owner, id: id).decode(PhotoData.self)
        let when = Self.readable(photo.takenAt)
        let notes = resource["notes"] == "true" && !photo.notes.isEmpty ? photo.notes : nil
        let title = notes?.split(whereSeparator: \.isNewline).first.map { String($0.prefix(80)) } ?? "A photo from \(when)"
        let named = people && resource["people"] != "false" ? try await AlbumPeople(album: self).captions(owner: owner, photo: id) : []
        // No place: a public page tells the photo's time, never where it was taken (its image has no GPS either).
        return SharedView(title: title, description: when,
                          items: [SharedView.Item(id: id, title: named.isEmpty ? nil : named.joined(separator: " · "), text: notes, takenAt: photo.takenAt,
                                                  place: nil, tags: photo.tags, image: photo.image,
                                                  overlay: resource["markup"] == "true" ? photo.markup : nil)])
    }

    func sharedSearch(owner: String, resource: [String: String]) async throws(BusError) -> SharedView {
        let filter = try Self.filter(tags: resource["tags"], from: resource["from"], to: resource["to"], match: resource["match"], place: resource["place"])
        let page = try await list(owner: owner, filter: filter, descending: false, limit: 60, cursor: nil)
        var words = filter.include.map { "#" + $0 }
        words += filter.exclude.map { "not #" + $0 }
        if let from = resource["from"] { words.append("from \(from)") }
        if let to = resource["to"] { words.append("to \(to)") }
        let title = words.isEmpty ? "Photos" : "Photos: " + words.joined(separator: ", ")
        let count = "\(page.items.count)\(page.next == nil ? "" : "+")"
        return SharedView(title: title, description: count == "1" ? "1 photo" : "\(count) photos",
                          items: page.items.map { SharedView.Item(id: $0.id, takenAt: $0.takenAt, tags: $0.tags, image: $0.image) })
    }

    /// "May 3, 2024 at 14:22".
    static func readable(_ time: String) -> String {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        let parts = time.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        guard parts.count >= 5, (1...12).contains(parts[1]) else { return time }
        return "\(months[parts[1] - 1]) \(parts[2]), \(parts[0]) at \(String(format: "%02d:%02d", parts[3], parts[4]))"
    }

    /// A filter from what people type: `tags=beach -work +sunset` (or commas), `from`/`to` dates or
    /// times, `match=all`.
    static func filter(tags: String?, from: String?, to: String?, match: String?, place: String?) throws(BusError) -> PhotoFilter {
        var filter = PhotoFilter()
        for word in (tags ?? "").split(whereSeparator: { $0.isWhitespace || $0 == "," }) {
            let excluded = word.hasPrefix("-") || word.hasPrefix("−")
            let bare = String(word.drop { $0 == "+" || $0 == "-" || $0 == "−" })
            for tag in try TagRules.normalize([bare]).map(TagRules.key) {
                if excluded {
                    if !filter.exclude.contains(tag) { filter.exclude.append(tag) }
                } else if !filter.include.contains(tag) {
                    filter.include.append(tag)
                }
            }
        }
        guard filter.include.count + filter.exclude.count <= 20 else { throw BusError.invalid("A search takes at most 20 tags.", field: "tags") }
        filter.from = try from.flatMap { $0.isEmpty ? nil : $0 }.map { text throws(BusError) in try TakenTime.lowerBound(text) }
        filter.to = try to.flatMap { $0.isEmpty ? nil : $0 }.map { text throws(BusError) in try TakenTime.upperBound(text) }
        if let lower = filter.from, let upper = filter.to, lower > upper {
            throw BusError.invalid("'from' is after 'to'; swap them.", field: "from")
        }
        switch match {
        case nil, "", "any": filter.matchAll = false
        case "all": filter.matchAll = true
        default: throw BusError.invalid("'match' is any (a photo with one of the + tags) or all (with every one).", field: "match")
        }
        filter.placeKey = place.flatMap { $0.isEmpty ? nil : $0 }
        return filter
    }
}
