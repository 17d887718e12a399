public import DeviceMonitorAPI
import Foundation

/// The machine's own sensors on Linux: batteries under `/sys/class/power_supply` and ambient-light
/// sensors under `/sys/bus/iio/devices` (industrial I/O). Roots can be moved for tests.
public struct SystemSensors: Sendable {
    public var powerSupplyRoot: String
    public var iioRoot: String

    public init(sysfs: String = "/sys") {
        powerSupplyRoot = sysfs + "/class/power_supply"
        iioRoot = sysfs + "/bus/iio/devices"
    }

    /// The first battery's reading, or nil when the machine has none.
    public func battery() -> BatteryReading? {
        for name in entries(powerSupplyRoot) {
            let base = "\(powerSupplyRoot)/\(name)"
            guard read("\(base)/type") == "Battery", let capacity = read("\(base)/capacity").flatMap(Double.init) else { continue }
            let state: String = switch read("\(base)/status")?.lowercased() {
            case "charging": "charging"
            case "full": "full"
            case "discharging": "discharging"
            case "not charging": "not-charging"
            default: "unknown"
            }
            return BatteryReading(level: min(max(capacity, 0), 100), state: state)
        }
        return nil
    }

    /// Lux from the first IIO illuminance channel, or nil when there is none.
    public func illuminance() -> Double? {
        for name in entries(iioRoot) {
            let base = "\(iioRoot)/\(name)"
            if let lux = read("\(base)/in_illuminance_input").flatMap(Double.init) { return lux }
            if let raw = read("\(base)/in_illuminance_raw").flatMap(Double.init) {
                let scale = read("\(base)/in_illuminance_scale").flatMap(Double.init) ?? 1
                let offset = read("\(base)/in_illuminance_offset").flatMap(Double.init) ?? 0
                return (raw + offset) * scale
            }
        }
        return nil
    }

    private func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    private func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
