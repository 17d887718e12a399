public import Foundation
import Synchronization

/// The time as a plugin sees it: the system's, or one a test sets and moves.
///
/// This file is the one place a plugin's time comes from the world (`ArchitectureTests` holds every
/// other plugin source to it): a plugin reads ``PluginContext/clock``, so a test of an expiry, an
/// undo window or a schedule moves a manual clock instead of sleeping. Durations a plugin measures
/// for itself (a retry's patience, how often it saves progress) are `ContinuousClock`'s, not this.
public struct PluginClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) { self.read = read }

    public static let system = PluginClock { Date() }

    public func now() -> Date { read() }

    /// Seconds since 1970, for values stored as numbers.
    public var seconds: TimeInterval { now().timeIntervalSince1970 }
}

/// Where a plugin draws the random part of the ids it makes: the system's generator, or a seeded
/// one that gives a test the same ids on every run.
///
/// Ids keep their plugin's shape (a prefix, hex or base-36 digits); only the randomness comes from
/// here. Secrets (tokens, share links' keys) are not ids: they come from `Secrets`, never from a
/// source a test can seed.
public struct IDSource: Sendable {
    private let draw: @Sendable () -> UInt64

    public init(_ draw: @escaping @Sendable () -> UInt64) { self.draw = draw }

    public static let system = IDSource {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }

    /// The same sequence for the same seed (SplitMix64), safe to share between tasks.
    public static func seeded(_ seed: UInt64) -> IDSource {
        let state = Mutex(seed)
        return IDSource {
            state.withLock { value in
                value &+= 0x9E37_79B9_7F4A_7C15
                var z = value
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
        }
    }

    /// 64 random bits.
    public func next() -> UInt64 { draw() }

    /// 64 random bits as 16 lowercase hex digits.
    public func hex() -> String {
        let hex = String(next(), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A random (version 4) UUID, for names that must look like one (a mail's Message-ID, a scratch file).
    public func uuid() -> UUID {
        var bytes = withUnsafeBytes(of: next().bigEndian) { Array($0) } + withUnsafeBytes(of: next().bigEndian) { Array($0) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
