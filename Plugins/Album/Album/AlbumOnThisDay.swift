import AlbumAPI
import Bus
import Foundation
import StorageAPI

/// "On this day" on the server (the daily push, issue 41): the photos of a month and day in each
/// earlier year, one range over the time index per year, back to the owner's oldest photo.
extension AlbumService {
    static let onThisDayMaxPerYear = 20

    func onThisDay(owner: String, date: String) async throws(BusError) -> FindOnThisDay.Reply {
        let parts = date.split(separator: "-")
        guard parts.count == 3, let year = Int(parts[0]), Int(parts[1]) != nil, Int(parts[2]) != nil,
              parts[1].count == 2, parts[2].count == 2 else {
            throw BusError.invalid("A date is YYYY-MM-DD, not '\(date.prefix(20))'.", field: "date")
        }
        let monthDay = "\(parts[1])-\(parts[2])"
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = monthDay == "02-28" && !leap ? ["02-28", "02-29"] : [monthDay]
        let oldest = try await store.query(RecordQuery(collection: Self.photos, owner: owner, order: [SortKey("sortKey")], limit: 1)).records.first
        guard let oldest, let first = Int(try oldest.decode(PhotoData.self).takenAt.prefix(4)) else { return .init(years: []) }
        var years: [FindOnThisDay.Year] = []
        for earlier in stride(from: year - 1, through: max(first, year - 150), by: -1) {
            var memories: [FindOnThisDay.Memory] = []
            let yearText = String(format: "%04d", earlier)
            for day in days {
                let from = "\(yearText)-\(day)", to = "\(yearText)-\(day)U"  // sort keys are "YYYY-MM-DDTHH:MM:SS|id"; "T" < "U"
                let page = try await store.query(RecordQuery(collection: Self.photos, owner: owner,
                                                             filters: [Filter("sortKey", .gte, .string(from)), Filter("sortKey", .lt, .string(to))],
                                                             order: [SortKey("sortKey")], limit: Self.onThisDayMaxPerYear))
                for record in page.records {
                    guard let photo = try? record.decode(PhotoData.self) else { continue }
                    memories.append(.init(photo: record.id, caption: Self.caption(photo)))
                }
            }
            if !memories.isEmpty { years.append(.init(yearsAgo: year - earlier, photos: memories)) }
        }
        return .init(years: years)
    }

    /// What a notification says of a photo: its notes' first line, else its place, else its tags.
    static func caption(_ photo: PhotoData) -> String {
        let line = photo.notes.split(whereSeparator: \.isNewline).first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        if !line.isEmpty { return String(line.prefix(120)) }
        if let place = photo.place?.label, !place.isEmpty { return place }
        return photo.tags.prefix(3).joined(separator: ", ")
    }
}
