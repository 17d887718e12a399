public import Bus
public import DeviceMonitorAPI
import Foundation
public import MediaAPI

/// The thresholds the monitor judges by (YAML `device-monitor:`, or the tool's options).
public struct DeviceThresholds: Sendable, Equatable {
    /// FR3.2.18: at or below this level (percent), not charging, the alert shows.
    public var batteryCritical: Double
    /// The tool's WARNING level, above the critical one.
    public var batteryWarning: Double
    /// Below this many lux, too dark.
    public var minLux: Double
    /// Below this mean relative luminance (0...1) of a frame, too dark.
    public var minLuminance: Double
    /// ADC3: below this correlated colour temperature (kelvin), too warm a light.
    public var minColourTemperature: Double

    public init(batteryCritical: Double = 5, batteryWarning: Double = 15, minLux: Double = 50, minLuminance: Double = 0.1,
                minColourTemperature: Double = 4000) {
        self.batteryCritical = batteryCritical
        self.batteryWarning = batteryWarning
        self.minLux = minLux
        self.minLuminance = minLuminance
        self.minColourTemperature = minColourTemperature
    }
}

/// Battery readings checked and judged.
public enum BatteryRules {
    public static let states = ["charging", "full", "discharging", "not-charging", "unknown"]
    /// The words phones and browsers use for the same states: iOS `UIDevice.BatteryState` says
    /// `unplugged`, Android's `BatteryManager` `not_charging`.
    static let synonyms = ["unplugged": "discharging", "not_charging": "not-charging", "notcharging": "not-charging"]
    public static let units = ["percent", "fraction"]

    /// A client's report as a reading in percent with one of `states`.
    public static func reading(_ report: BatteryReport) throws(BusError) -> BatteryReading {
        guard report.level.isFinite else { throw BusError.invalid("'level' is a number.", field: "level") }
        let percent: Double
        switch report.unit.lowercased() {
        case "percent":
            percent = report.level
        case "fraction":
            guard (0...1).contains(report.level) else {
                throw BusError.invalid("'level' in unit 'fraction' is from 0.0 to 1.0 (0.42 is 42 %).", field: "level")
            }
            percent = report.level * 100
        default:
            throw BusError.invalid("'unit' is 'percent' (0–100) or 'fraction' (0.0–1.0, as iOS batteryLevel and the web's BatteryManager.level give it).",
                                   field: "unit")
        }
        let word = report.state.lowercased()
        let reading = BatteryReading(level: percent, state: synonyms[word] ?? word)
        try validate(reading)
        return reading
    }

    public static func validate(_ reading: BatteryReading) throws(BusError) {
        guard reading.level.isFinite, (0...100).contains(reading.level) else {
            throw BusError.invalid("'level' is a percentage from 0 to 100.", field: "level")
        }
        guard states.contains(reading.state) else {
            throw BusError.invalid("'state' is one of \((states + synonyms.keys.sorted()).joined(separator: ", ")).", field: "state")
        }
    }

    /// Low: at or below the critical level and not charging.
    public static func isLow(_ reading: BatteryReading, _ thresholds: DeviceThresholds) -> Bool {
        reading.level <= thresholds.batteryCritical && !reading.isCharging
    }
}

/// Light judged from a lux reading or from a camera frame's mean colour.
public enum LightingRules {
    /// sRGB (gamma-encoded, 0...1) to linear light.
    static func linear(_ component: Double) -> Double {
        component <= 0.04045 ? component / 12.92 : pow((component + 0.055) / 1.055, 2.4)
    }

    /// Relative luminance Y and CIE 1931 chromaticity (x, y) of a mean sRGB colour (D65).
    public static func chromaticity(_ colour: MeanColour) -> (luminance: Double, x: Double, y: Double)? {
        let (r, g, b) = (linear(colour.red), linear(colour.green), linear(colour.blue))
        let bigX = 0.4124 * r + 0.3576 * g + 0.1805 * b
        let bigY = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let bigZ = 0.0193 * r + 0.1192 * g + 0.9505 * b
        let sum = bigX + bigY + bigZ
        guard sum > 1e-9 else { return nil }
        return (bigY, bigX / sum, bigY / sum)
    }

    /// McCamy's approximation of the correlated colour temperature from chromaticity (kelvin).
    public static func mcCamy(x: Double, y: Double) -> Double {
        let n = (x - 0.3320) / (0.1858 - y)
        return 449 * n * n * n + 3525 * n * n + 6823.3 * n + 5520.33
    }

    public static func judge(lux: Double?, colour: MeanColour?, _ thresholds: DeviceThresholds) throws(BusError) -> LightingStatus {
        if let lux, !(lux.isFinite && lux >= 0) { throw BusError.invalid("'lux' is a number of at least 0.", field: "lux") }
        var warnings: [String] = []
        var sentences: [String] = []
        var luminance: Double?
        var temperature: Double?
        if let lux, lux < thresholds.minLux {
            warnings.append("too_dark")
            sentences.append("Too dark: \(Int(lux.rounded())) lux, under \(Int(thresholds.minLux)); turn on a light.")
        }
        if let colour {
            let measured = chromaticity(colour)
            luminance = measured?.luminance ?? 0
            if (measured?.luminance ?? 0) < thresholds.minLuminance {
                if !warnings.contains("too_dark") {
                    warnings.append("too_dark")
                    sentences.append("Too dark: the camera sees \(percent(measured?.luminance ?? 0)) brightness, under \(percent(thresholds.minLuminance)); "
                                     + "turn on a light.")
                }
            } else if let measured {
                // Colour temperature means little in near-darkness; it is judged only in usable light.
                let kelvin = mcCamy(x: measured.x, y: measured.y)
                temperature = kelvin.rounded()
                if kelvin < thresholds.minColourTemperature {
                    warnings.append("too_warm")
                    sentences.append("The light is too warm: about \(whole(kelvin)) K, under \(Int(thresholds.minColourTemperature)) K; "
                                     + "use daylight or a cool white lamp.")
                }
            }
        }
        return LightingStatus(lux: lux, luminance: luminance.map { ($0 * 1000).rounded() / 1000 }, colourTemperature: temperature, warnings: warnings,
                              message: sentences.isEmpty ? "The light is good for AR." : sentences.joined(separator: " "))
    }

    static func percent(_ value: Double) -> String { "\(whole(value * 100)) %" }

    /// A measured number for a sentence; never traps (McCamy's formula is unbounded near its pole).
    static func whole(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return value.isNaN ? "?" : (value < 0 ? "−∞" : "∞") }
        return String(Int(value.rounded()))
    }
}
