public import Bus

/// Recognises the text in a photo (the `photo-text` plugin: Tesseract, on the server). The image is
/// a blob another plugin keeps (a note's photo, already checked by media); it is read, its size
/// checked from its header before any pixel is decoded, turned upright by its EXIF orientation,
/// and read in the configured languages. Repeatable: the same photo gives the same text.
///
/// Errors: `too_large` (`reason: too_many_pixels`) over `max_pixels`; `unsupported_media_type`
/// (`reason: not_an_image`) when it cannot be decoded; `unavailable` (`reason: languages_missing`)
/// when a configured language's trained data is not installed.
public struct RecognisePhotoText: BusRequest {
    public static let name: MessageName = "photo-text.recognise.v1"
    public typealias Reply = RecognisedPhotoText
    public static var repeatable: Bool { true }
    /// A 12 MP page takes Tesseract tens of seconds on one core; a queue of them takes longer.
    public static let timeout: Duration = .seconds(600)
    public var owner: String
    /// The image's blob (SHA-256).
    public var sha256: String
    /// EXIF orientation (1...8, as media read it): 6 and 8 are turned a quarter, 3 a half.
    public var orientation: Int
    public init(owner: String, sha256: String, orientation: Int = 1) {
        self.owner = owner
        self.sha256 = sha256
        self.orientation = orientation
    }
}

public struct RecognisedPhotoText: Codable, Sendable, Equatable {
    /// The text as Tesseract read it, lines kept, trimmed; empty when the photo shows none.
    public var text: String
    /// The languages it was read in ("eng", "eng+deu").
    public var languages: String
    /// Tesseract's mean word confidence, 0...100.
    public var confidence: Int
    /// How long recognition took.
    public var milliseconds: Int
    public init(text: String, languages: String, confidence: Int, milliseconds: Int) {
        self.text = text
        self.languages = languages
        self.confidence = confidence
        self.milliseconds = milliseconds
    }
}

/// What the plugin is set to (the app's YAML); `no_handler` when the app has no `photo-text:`.
public struct GetPhotoTextSettings: BusRequest {
    public static let name: MessageName = "photo-text.settings.get.v1"
    public typealias Reply = PhotoTextSettings
    public static var repeatable: Bool { true }
    /// Quick: answered from the plugin's configuration, read once at start.
    public static var quick: Bool { true }
    public init() {}
}

public struct PhotoTextSettings: Codable, Sendable, Equatable {
    public var languages: [String]
    public var maxPixels: Int
    public init(languages: [String], maxPixels: Int) {
        self.languages = languages
        self.maxPixels = maxPixels
    }
}

/// Every photo-text message, for name checks.
public enum PhotoTextMessages {
    public static let all: [any BusMessage.Type] = [RecognisePhotoText.self, GetPhotoTextSettings.self]
}
