public import Bus

/// A record's place on Earth. `subject` names what is geotagged as `kind/id`, in its plugin's words
/// (`album.photos/<id>`, `media.image/<sha256>`, `notebooks/<id>`); one geotag per subject and owner.
/// Each kind has its own spatial index, so a search for one kind never wades through another's.
public struct Geotag: Codable, Sendable, Equatable {
    public var subject: String
    public var latitude: Double
    public var longitude: Double
    /// Horizontal accuracy in metres, when the source gives one.
    public var accuracy: Double?
    /// Metres above sea level.
    public var altitude: Double?
    /// Where it came from: `exif`, `device` (the client's location at capture), `user`, …
    public var source: String

    public init(subject: String, latitude: Double, longitude: Double, accuracy: Double? = nil, altitude: Double? = nil,
                source: String = "user") {
        self.subject = subject
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.altitude = altitude
        self.source = source
    }

    enum CodingKeys: String, CodingKey { case subject, latitude, longitude, accuracy, altitude, source }

    /// `source` may be left out (a person setting it: `user`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        subject = try container.decode(String.self, forKey: .subject)
        latitude = try container.decode(Double.self, forKey: .latitude)
        longitude = try container.decode(Double.self, forKey: .longitude)
        accuracy = try container.decodeIfPresent(Double.self, forKey: .accuracy)
        altitude = try container.decodeIfPresent(Double.self, forKey: .altitude)
        source = try container.decodeIfPresent(String.self, forKey: .source) ?? "user"
    }

    public static let maxSubjectLength = 200

    /// The kind of a `kind/id` subject, if it is one.
    public static func kind(of subject: String) -> String? {
        guard let slash = subject.firstIndex(of: "/"), subject.index(after: slash) < subject.endIndex else { return nil }
        let kind = String(subject[..<slash])
        return isValidKind(kind) ? kind : nil
    }

    public static func isValidKind(_ kind: String) -> Bool {
        (1...40).contains(kind.utf8.count) && kind.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 95 || $0 == 45 }
    }

    /// Refuses what cannot be a place: out-of-range or non-finite coordinates, a negative accuracy,
    /// an altitude deeper than the ocean floor or higher than a balloon.
    public func validate() throws(BusError) {
        guard Self.kind(of: subject) != nil, subject.utf8.count <= Self.maxSubjectLength, !subject.contains(where: \.isNewline) else {
            throw BusError.invalid("A geotag's subject is 'kind/id' (kind: a-z 0-9 . _ -, up to 40), at most \(Self.maxSubjectLength) bytes on one line.",
                                   field: "subject")
        }
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw BusError.invalid("A latitude is between −90 and 90 degrees, not \(latitude).", field: "latitude")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw BusError.invalid("A longitude is between −180 and 180 degrees, not \(longitude).", field: "longitude")
        }
        if let accuracy, !(accuracy.isFinite && (0...1_000_000).contains(accuracy)) {
            throw BusError.invalid("An accuracy is 0 to 1,000,000 metres.", field: "accuracy")
        }
        if let altitude, !(altitude.isFinite && (-11_000...50_000).contains(altitude)) {
            throw BusError.invalid("An altitude is −11,000 to 50,000 metres.", field: "altitude")
        }
        guard (1...32).contains(source.count), source.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw BusError.invalid("A geotag's source is a short word such as exif, device or user.", field: "source")
        }
    }
}

/// Sets (or moves) the owner's geotag of a subject.
public struct SetGeotag: BusRequest {
    public static let name: MessageName = "geo.tag.set.v1"
    public typealias Reply = Geotag
    public var owner: String
    public var geotag: Geotag
    public init(owner: String, geotag: Geotag) {
        self.owner = owner
        self.geotag = geotag
    }
}

/// Sets many geotags of one owner at once (an import): one storage batch per kind, at most 500.
public struct SetGeotags: BusRequest {
    public static let name: MessageName = "geo.tags.set.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var set: Int
        public init(set: Int) { self.set = set }
    }
    public var owner: String
    public var geotags: [Geotag]
    public init(owner: String, geotags: [Geotag]) {
        self.owner = owner
        self.geotags = geotags
    }
}

public struct GetGeotag: BusRequest {
    public static let name: MessageName = "geo.tag.get.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var geotag: Geotag?
        public init(geotag: Geotag?) { self.geotag = geotag }
    }
    public var owner: String
    public var subject: String
    public init(owner: String, subject: String) {
        self.owner = owner
        self.subject = subject
    }
}

public struct RemoveGeotag: BusRequest {
    public static let name: MessageName = "geo.tag.remove.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var removed: Bool
        public init(removed: Bool) { self.removed = removed }
    }
    public var owner: String
    public var subject: String
    public init(owner: String, subject: String) {
        self.owner = owner
        self.subject = subject
    }
}

/// Geotags in an area, nearest first. Exactly one of: a circle (`latitude`, `longitude`,
/// `radiusMeters`), a box, or the `nearest` N to the point.
public struct FindGeotags: BusRequest {
    public static let name: MessageName = "geo.tag.find.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var hits: [GeotagHit]
        public init(hits: [GeotagHit]) { self.hits = hits }
    }
    public enum Area: Codable, Sendable, Equatable {
        case within(latitude: Double, longitude: Double, radiusMeters: Double)
        /// `west > east` crosses the ±180° meridian.
        case box(south: Double, west: Double, north: Double, east: Double)
        case nearest(latitude: Double, longitude: Double)
    }
    /// Whose geotags; nil for everyone's (plugins answering across users, never a user's request).
    public var owner: String?
    public var area: Area
    /// Only subjects of this kind (`album.photos`), when given; else every kind.
    public var kind: String?
    /// 1...1000.
    public var limit: Int

    public init(owner: String?, area: Area, kind: String? = nil, limit: Int = 100) {
        self.owner = owner
        self.area = area
        self.kind = kind
        self.limit = limit
    }
}

public struct GeotagHit: Codable, Sendable, Equatable {
    public var owner: String
    public var geotag: Geotag
    /// From the circle's centre, the point, or the box's centre.
    public var distanceMeters: Double
    public init(owner: String, geotag: Geotag, distanceMeters: Double) {
        self.owner = owner
        self.geotag = geotag
        self.distanceMeters = distanceMeters
    }
}

/// The place a point is in, from the offline gazetteer (GeoNames).
public struct LookUpPlace: BusRequest {
    public static let name: MessageName = "geo.place.lookup.v1"
    public typealias Reply = Place
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

public struct Place: Codable, Sendable, Equatable {
    /// The town or city a person would name: the largest populated place close by.
    public var city: String
    /// Its GeoNames id: a stable folder key.
    public var geonameID: Int
    /// The first-level division (state, province, region), when known.
    public var region: String?
    public var countryCode: String
    public var country: String
    /// The nearest populated place of any size (a neighbourhood, a village), which may be `city`.
    public var locality: String
    /// From the point to `city`'s centre.
    public var distanceMeters: Double
    /// "Vancouver, British Columbia, Canada".
    public var label: String

    enum CodingKeys: String, CodingKey {
        case city, geonameID = "geonameId", region, countryCode, country, locality, distanceMeters, label
    }

    public init(city: String, geonameID: Int, region: String?, countryCode: String, country: String, locality: String,
                distanceMeters: Double) {
        self.city = city
        self.geonameID = geonameID
        self.region = region
        self.countryCode = countryCode
        self.country = country
        self.locality = locality
        self.distanceMeters = distanceMeters
        self.label = [city, region, country].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
    }
}

/// Published when a geotag is set or moved, so that other plugins (album's place folders, notebook
/// pins) can follow.
public struct GeotagSet: BusEvent {
    public static let name: MessageName = "geo.tag.set-event.v1"
    public var owner: String
    public var geotag: Geotag
    public init(owner: String, geotag: Geotag) {
        self.owner = owner
        self.geotag = geotag
    }
}

public enum GeoMessages {
    public static let all: [any BusMessage.Type] = [
        SetGeotag.self, SetGeotags.self, GetGeotag.self, RemoveGeotag.self, FindGeotags.self, LookUpPlace.self, GeotagSet.self,
    ]
}
