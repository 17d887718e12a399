public import Bus
import Foundation
public import StorageAPI

/// What the `audio` plugin allows, so that a route refuses an oversized body before reading it.
public struct AudioLimits: Codable, Sendable, Equatable {
    /// The largest WAV upload, in bytes (413 before it is read).
    public var maxBytes: Int
    /// The longest recording, in seconds (413 `too_long`, from the WAV's header when it says so).
    public var maxSeconds: Int
    public init(maxBytes: Int, maxSeconds: Int) {
        self.maxBytes = maxBytes
        self.maxSeconds = maxSeconds
    }
}

/// Checks a WAV upload (``WAVFormat``), encodes it to Opus (libopus) in an Ogg file (RFC 7845) and
/// keeps that as a blob; the WAV is let go. Repeatable: the same WAV makes the same Ogg file.
public struct IngestAudio: BusRequest {
    public static let name: MessageName = "audio.ingest.v1"
    public typealias Reply = IngestedAudio
    public static var repeatable: Bool { true }
    /// Five minutes of 48 kHz speech encode in a few seconds; a queue of them takes longer.
    public static let timeout: Duration = .seconds(60)
    public var owner: String
    /// The WAV: inline when small, else a blob the caller put.
    public var audio: BlobPayload
    public init(owner: String, audio: BlobPayload) {
        self.owner = owner
        self.audio = audio
    }
}

public struct IngestedAudio: Codable, Sendable, Equatable {
    /// SHA-256 of the Ogg Opus file, its blob address.
    public var sha256: String
    public var size: Int
    /// The recording's length in milliseconds.
    public var durationMs: Int
    public init(sha256: String, size: Int, durationMs: Int) {
        self.sha256 = sha256
        self.size = size
        self.durationMs = durationMs
    }

    /// The media type the file is served with.
    public static let mimeType = "audio/ogg; codecs=opus"
}

public struct GetAudioLimits: BusRequest {
    public static let name: MessageName = "audio.limits.get.v1"
    public typealias Reply = AudioLimits
    public static var repeatable: Bool { true }
    /// Quick: answered from the plugin's configuration, read once at start.
    public static var quick: Bool { true }
    public init() {}
}

/// Every audio message, for name checks.
public enum AudioMessages {
    public static let all: [any BusMessage.Type] = [IngestAudio.self, GetAudioLimits.self]
}
