public import AppConfig
public import AudioAPI
public import Bus
import Foundation
public import PluginKit
import StorageAPI

/// The `audio` plugin: a recording (a 16-bit mono WAV the client made of it) checked, encoded to
/// Opus by libopus, kept as an Ogg Opus blob. Napkin Notes' voice notes use it; so can iRemember's
/// recorded captions and Foreign Note's pronunciations.
///
/// ```yaml
/// audio: { max_seconds: 300 }
/// ```
public struct AudioPlugin: Plugin {
    public struct Config: Sendable {
        public var limits: AudioLimits
        public var bitrate: Int
        public var concurrency: Int
    }

    public static let descriptor = PluginDescriptor(
        id: "audio",
        summary: "Recordings: a 16-bit mono WAV checked (header first), encoded to Opus (libopus), kept as an Ogg Opus file",
        dependencies: ["storage"],
        settings: [
            SettingDescription("max_seconds", "int 1...3600", default: "300", "Longest recording; longer is refused with 413 (too_long), from the WAV's header when it says so"),
            SettingDescription("max_upload_bytes", "int 1...1073741824", default: "10485760",
                               "Largest WAV upload; larger is refused with 413 before it is read (5 minutes at 16 kHz are 9.6 MB)"),
            SettingDescription("bitrate", "int 6000...128000", default: "24000", "Opus bits per second (speech is clear from 16000)"),
            SettingDescription("concurrency", "int 1...64", default: "cores", "Recordings encoded at once"),
        ])

    public static func configure(_ section: ConfigSection) -> Config {
        Config(limits: AudioLimits(maxBytes: section.int("max_upload_bytes", default: 10 << 20, in: 1...(1 << 30)),
                                   maxSeconds: section.int("max_seconds", default: 300, in: 1...3600)),
               bitrate: section.int("bitrate", default: 24000, in: 6000...128_000),
               concurrency: section.int("concurrency", default: ProcessInfo.processInfo.activeProcessorCount, in: 1...64))
    }

    let service: AudioService

    public init(config: Config, context: PluginContext) async throws {
        service = AudioService(blobs: BusBlobStore(bus: context.bus), bus: context.bus, config: config,
                               gate: BlockingGate(limit: config.concurrency, label: "quire.audio"))
    }

    public var features: [String] { ["audio"] }

    public func register(on bus: any MessageBus) async throws {
        let service = self.service
        try bus.handle(IngestAudio.self) { request, _ in try await service.ingest(request.audio) }
        try bus.handle(GetAudioLimits.self) { _, _ in service.config.limits }
    }
}

/// Intake: the WAV read and checked, encoded off the cooperative pool, the Ogg file put as a blob.
public struct AudioService: Sendable {
    let blobs: any BlobStore
    let bus: any MessageBus
    public let config: AudioPlugin.Config
    let gate: BlockingGate

    public init(blobs: any BlobStore, bus: any MessageBus, config: AudioPlugin.Config, gate: BlockingGate) {
        self.blobs = blobs
        self.bus = bus
        self.config = config
        self.gate = gate
    }

    public func ingest(_ payload: BlobPayload) async throws(BusError) -> IngestedAudio {
        do throws(BusError) {
            let limits = config.limits
            guard payload.size <= limits.maxBytes else {
                throw BusError(.tooLarge, "A voice recording is at most \(limits.maxBytes) bytes; this one has \(payload.size). Record a shorter one.",
                               details: ["maxBytes": String(limits.maxBytes), "limit": "max_upload_bytes"])
            }
            let wav = try await payload.bytes(from: blobs)
            let bitrate = config.bitrate
            let (ogg, milliseconds) = try await gate.run { () throws(BusError) -> (Data, Int) in
                try Self.encode(wav, limits: limits, bitrate: bitrate)
            }
            let stored = try await blobs.put(ogg)
            // The WAV was only carried here: storage lets it go unless something else holds the same bytes.
            await payload.release(on: bus)
            return IngestedAudio(sha256: stored.sha256, size: stored.size, durationMs: milliseconds)
        } catch {
            if error.code != .deadlineExceeded, error.code != .cancelled { await payload.release(on: bus) }
            throw error
        }
    }

    /// A WAV's bytes to an Ogg Opus file and its length in milliseconds.
    public static func encode(_ wav: Data, limits: AudioLimits, bitrate: Int) throws(BusError) -> (Data, Int) {
        let format = try WAVFormat.parse(wav, limits: limits)
        let samples = format.samples(of: wav)
        // The stream's serial number from the samples (FNV-1a): the same recording, the same file.
        var hash: UInt32 = 2_166_136_261
        for sample in samples.prefix(48000) { hash = (hash ^ UInt32(UInt16(bitPattern: sample))) &* 16_777_619 }
        let ogg = try OpusEncoding.encode(samples, sampleRate: format.sampleRate, bitrate: bitrate, serial: hash ^ UInt32(truncatingIfNeeded: samples.count))
        return (ogg, samples.count * 1000 / format.sampleRate)
    }
}
