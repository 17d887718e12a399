import ArgumentParser
import Bus
import DeviceMonitor
import DeviceMonitorAPI
import Foundation
import Media
import MediaAPI

/// `quire-monitor`: the device monitor's battery and lighting checks as a monitoring plugin.
///
/// One status line (`BATTERY CRITICAL - …| perfdata`) and the usual exit codes, so Nagios, Icinga,
/// Zabbix or Prometheus' script exporter can run it: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (no
/// sensor, unreadable frame, bad arguments). `--json` prints the details instead.
@main
struct QuireMonitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-monitor",
        abstract: "Battery and lighting checks (exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).",
        subcommands: [Battery.self, Lighting.self])
}

enum Verdict: Int32 {
    case ok = 0, warning = 1, critical = 2, unknown = 3
    var word: String { ["OK", "WARNING", "CRITICAL", "UNKNOWN"][Int(rawValue)] }
}

struct Output: ParsableArguments {
    @Flag(help: "Print the details as JSON instead of the status line.") var json = false
    @Option(help: "Where sysfs is mounted (for tests and containers).") var sysfs = "/sys"

    func finish(_ service: String, _ verdict: Verdict, _ text: String, perf: String = "", details: [String: any Sendable] = [:]) throws -> Never {
        if json {
            var body = details
            body["status"] = verdict.word
            body["message"] = text
            let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("\(service) \(verdict.word) - \(text)\(perf.isEmpty ? "" : " | " + perf)")
        }
        throw ExitCode(verdict.rawValue)
    }
}

struct Battery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The battery: CRITICAL at or below --critical % not charging, WARNING at or below --warning %; without --level, reads /sys/class/power_supply.")
    @Option(help: "The level to judge (0-100) instead of reading the machine's battery.") var level: Double?
    @Option(help: "Whether the device is charging (true|false), with --level.") var charging: Bool?
    @Option(help: "CRITICAL at or below this level.") var critical = 5.0
    @Option(help: "WARNING at or below this level.") var warning = 15.0
    @OptionGroup var output: Output

    func run() async throws {
        let thresholds = DeviceThresholds(batteryCritical: critical, batteryWarning: max(warning, critical))
        let reading: BatteryReading
        if let level {
            reading = BatteryReading(level: level, state: charging == true ? "charging" : charging == false ? "discharging" : "unknown")
        } else if let found = SystemSensors(sysfs: output.sysfs).battery() {
            reading = found
        } else {
            try output.finish("BATTERY", .unknown, "no battery found under \(output.sysfs)/class/power_supply; pass --level N --charging true|false")
        }
        do {
            try BatteryRules.validate(reading)
        } catch {
            try output.finish("BATTERY", .unknown, error.message)
        }
        let percent = Int(reading.level.rounded())
        let verdict: Verdict = reading.isCharging ? .ok
            : reading.level <= thresholds.batteryCritical ? .critical : reading.level <= thresholds.batteryWarning ? .warning : .ok
        let text = switch verdict {
        case .critical: "\(percent)% \(reading.state), at or below \(Int(thresholds.batteryCritical))%: plug the device in"
        case .warning: "\(percent)% \(reading.state), at or below \(Int(thresholds.batteryWarning))%"
        default: "\(percent)% \(reading.state)"
        }
        try output.finish("BATTERY", verdict, text, perf: "level=\(percent)%;\(Int(thresholds.batteryWarning));\(Int(thresholds.batteryCritical));0;100",
                          details: ["level": reading.level, "state": reading.state, "critical": thresholds.batteryCritical, "warning": thresholds.batteryWarning])
    }
}

struct Lighting: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The light: a camera frame (mean luminance, colour temperature) or lux; CRITICAL too dark, WARNING too warm. "
            + "With neither, reads an IIO ambient-light sensor.")
    @Argument(help: "A camera frame (JPEG, PNG, WebP).") var frame: String?
    @Option(help: "A lux reading to judge instead of a frame.") var lux: Double?
    @Option(help: "Under this many lux, too dark.") var minLux = 50.0
    @Option(help: "Under this mean luminance (0-1), too dark.") var minLuminance = 0.1
    @Option(help: "Under this many kelvin, too warm.") var minKelvin = 4000.0
    @OptionGroup var output: Output

    func run() async throws {
        let thresholds = DeviceThresholds(minLux: minLux, minLuminance: minLuminance, minColourTemperature: minKelvin)
        var colour: MeanColour?
        var lux = self.lux
        if let frame {
            guard let bytes = FileManager.default.contents(atPath: frame) else { try output.finish("LIGHTING", .unknown, "cannot read \(frame)") }
            do {
                colour = try Thumbnailer.meanColour(bytes, limits: MediaLimits(maxBytes: 50 << 20))
            } catch {
                try output.finish("LIGHTING", .unknown, "\(frame): \(error.message)")
            }
        } else if lux == nil {
            lux = SystemSensors(sysfs: output.sysfs).illuminance()
            if lux == nil {
                try output.finish("LIGHTING", .unknown, "no ambient-light sensor under \(output.sysfs)/bus/iio/devices; pass a FRAME or --lux N")
            }
        }
        let status: LightingStatus
        do {
            status = try LightingRules.judge(lux: lux, colour: colour, thresholds)
        } catch {
            try output.finish("LIGHTING", .unknown, error.message)
        }
        let verdict: Verdict = status.warnings.contains("too_dark") ? .critical : status.warnings.contains("too_warm") ? .warning : .ok
        var perf: [String] = []
        var details: [String: any Sendable] = ["warnings": status.warnings]
        if let lux = status.lux { perf.append("lux=\(lux);;\(minLux)"); details["lux"] = lux }
        if let luminance = status.luminance { perf.append("luminance=\(luminance);;\(minLuminance);0;1"); details["luminance"] = luminance }
        if let kelvin = status.colourTemperature { perf.append("cct=\(Int(kelvin))K;\(Int(minKelvin))"); details["colourTemperature"] = kelvin }
        try output.finish("LIGHTING", verdict, status.message, perf: perf.joined(separator: " "), details: details)
    }
}
