public import Bus

/// The owner's photos taken on `date`'s month and day in earlier years (what the home screen's
/// "On this day" shows, asked by the server: the daily push). Nearest year first; empty when none.
/// A photo of 29 February counts on 28 February of a year without one.
public struct FindOnThisDay: BusRequest {
    public static let name: MessageName = "album.on-this-day.v1"
    public struct Memory: Codable, Sendable, Equatable {
        public var photo: String
        /// Its notes' first line, else its place, else its tags; may be empty.
        public var caption: String
        public init(photo: String, caption: String) {
            self.photo = photo
            self.caption = caption
        }
    }
    public struct Year: Codable, Sendable, Equatable {
        public var yearsAgo: Int
        public var photos: [Memory]
        public init(yearsAgo: Int, photos: [Memory]) {
            self.yearsAgo = yearsAgo
            self.photos = photos
        }
    }
    public struct Reply: Codable, Sendable, Equatable {
        public var years: [Year]
        public init(years: [Year]) { self.years = years }
    }
    public var owner: String
    /// The owner's local date, `YYYY-MM-DD`.
    public var date: String
    public init(owner: String, date: String) {
        self.owner = owner
        self.date = date
    }
}
