public import Bus

/// A battery reading from a device: its level and what the OS says about charging.
public struct BatteryReading: Codable, Sendable, Equatable {
    /// 0...100.
    public var level: Double
    /// `charging`, `full`, `discharging`, `not-charging` or `unknown`, as the device's OS reports it.
    public var state: String
    public init(level: Double, state: String) {
        self.level = level
        self.state = state
    }

    public var isCharging: Bool { state == "charging" || state == "full" }
}

/// A battery reading as a phone or browser sends it: `level` in the stated `unit` (`percent`, 0–100,
/// or `fraction`, 0.0–1.0 as iOS `batteryLevel` and the web's `BatteryManager.level` give it) and
/// the OS's state word (`charging`, `full`, `discharging`, `unplugged`, `not-charging`, `unknown`).
public struct BatteryReport: Codable, Sendable, Equatable {
    public var level: Double
    public var unit: String
    public var state: String
    public init(level: Double, unit: String, state: String) {
        self.level = level
        self.unit = unit
        self.state = state
    }
}

/// What the battery monitor says now (FR3.2.18, UC-14).
public struct BatteryStatus: Codable, Sendable, Equatable {
    public var level: Double?
    public var state: String
    /// Whether the low-battery alert shows: at or below the threshold and not charging. It cannot be
    /// dismissed then (FR3.2.18: "exit out of this alert if and only if they are above 5%").
    public var alert: Bool
    /// `ok`, `low` (at or below the threshold, not charging) or `unknown` (no reading yet).
    public var status: String
    public var message: String
    public var threshold: Double
    public init(level: Double?, state: String, alert: Bool, status: String, message: String, threshold: Double) {
        self.level = level
        self.state = state
        self.alert = alert
        self.status = status
        self.message = message
        self.threshold = threshold
    }
}

/// Published when a user's device enters low battery: plugins flush what they hold (storage
/// checkpoints its journal) before the device may die.
public struct LowBatteryEntered: BusEvent {
    public static let name: MessageName = "device.battery.low.v1"
    public var user: String
    public var level: Double
    public init(user: String, level: Double) {
        self.user = user
        self.level = level
    }
}

/// Reports a reading for a user's device; answers the status after it.
public struct ReportBattery: BusRequest {
    public static let name: MessageName = "device.battery.report.v1"
    public typealias Reply = BatteryStatus
    public var user: String
    public var reading: BatteryReading
    public init(user: String, reading: BatteryReading) {
        self.user = user
        self.reading = reading
    }
}

/// What the lighting check found (ADC3).
public struct LightingStatus: Codable, Sendable, Equatable {
    public var lux: Double?
    /// Mean relative luminance of a frame, 0...1.
    public var luminance: Double?
    /// Correlated colour temperature estimated from the frame's mean chromaticity (McCamy), kelvin.
    public var colourTemperature: Double?
    /// `too_dark`, `too_warm`.
    public var warnings: [String]
    public var message: String
    public init(lux: Double?, luminance: Double?, colourTemperature: Double?, warnings: [String], message: String) {
        self.lux = lux
        self.luminance = luminance
        self.colourTemperature = colourTemperature
        self.warnings = warnings
        self.message = message
    }
}

public enum DeviceMonitorMessages {
    public static let all: [any BusMessage.Type] = [LowBatteryEntered.self, ReportBattery.self]
}
