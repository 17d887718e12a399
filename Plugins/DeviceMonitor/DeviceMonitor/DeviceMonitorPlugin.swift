public import AppConfig
public import Bus
import DeviceMonitorAPI
import Foundation
public import HTTPKit
import HTTPTypes
import Hummingbird
import MediaAPI
public import PluginKit
public import ServiceLifecycle

/// The `device-monitor` plugin: what the phone's battery monitor and camera light check did, from
/// client telemetry. Battery (FR3.2.18, UC-14): the low-battery alert, its dismissal and verified
/// "I am charging", and an event on entering low battery. Lighting (ADC3): a lux reading or a
/// camera frame judged too dark or too warm.
///
/// ```yaml
/// device-monitor: { battery_critical_percent: 5, min_colour_temperature: 4000 }
/// ```
public struct DeviceMonitorPlugin: Plugin {
    public static let descriptor = PluginDescriptor(
        id: "device-monitor",
        summary: "Battery alert (at or below 5 % and not charging; it cannot be dismissed then) and lighting checks from lux or a camera frame",
        dependencies: ["auth", "media"],
        settings: [
            SettingDescription("battery_critical_percent", "number 1...50", default: "5", "At or below this level, not charging, the alert shows"),
            SettingDescription("battery_warning_percent", "number 1...90", default: "15", "quire-monitor's WARNING level"),
            SettingDescription("min_lux", "number 0...100000", default: "50", "Under this many lux, too dark"),
            SettingDescription("min_luminance", "number 0...1", default: "0.1", "Under this mean luminance of a camera frame, too dark"),
            SettingDescription("min_colour_temperature", "number 1000...20000", default: "4000", "Under this many kelvin, the light is too warm (ADC3)"),
        ])

    public static func configure(_ section: ConfigSection) -> DeviceThresholds {
        DeviceThresholds(batteryCritical: section.double("battery_critical_percent", default: 5, in: 1...50),
                         batteryWarning: section.double("battery_warning_percent", default: 15, in: 1...90),
                         minLux: section.double("min_lux", default: 50, in: 0...100_000),
                         minLuminance: section.double("min_luminance", default: 0.1, in: 0...1),
                         minColourTemperature: section.double("min_colour_temperature", default: 4000, in: 1000...20_000))
    }

    let thresholds: DeviceThresholds
    let battery: BatteryMonitor
    let bus: any MessageBus
    let maxFrameBytes: Int
    let peers: BatteryPeers

    public init(config: DeviceThresholds, context: PluginContext) async throws {
        thresholds = config
        bus = context.bus
        battery = BatteryMonitor(thresholds: config, bus: context.bus, clock: context.clock)
        peers = BatteryPeers(monitor: battery, reported: context.bus.subscribe(to: BatteryReported.self))
        maxFrameBytes = try await context.bus.request(GetMediaLimits()).maxBytes
    }

    public var features: [String] { ["battery-alert", "lighting-check"] }

    public var services: [any Service] { [peers] }

    public func register(on bus: any MessageBus) async throws {
        let battery = self.battery
        try bus.handle(ReportBattery.self) { request, _ in try await battery.report(user: request.user, request.reading) }
    }

    public func routes(_ routes: PluginRoutes) throws {
        let battery = self.battery
        let thresholds = self.thresholds
        let bus = self.bus
        let maxFrameBytes = self.maxFrameBytes
        try routes.add(.post, "battery", summary: "Report the device's battery: {level, unit: percent|fraction, state: charging|full|discharging|unplugged|not-charging|unknown}") {
            request, context, identity in
            var request = request
            let reading = try BatteryRules.reading(try await request.decodeJSON(BatteryReport.self, context: context))
            return try .json(try await battery.report(user: identity.accountID, reading))
        }
        try routes.add(.get, "battery", summary: "The battery status and whether the low-battery alert shows") { _, _, identity in
            try .json(await battery.status(identity.accountID))
        }
        try routes.add(.post, "battery/dismiss", summary: "Dismiss the alert: 409 battery_critical while at or below the critical level and not charging") { _, _, identity in
            try .json(try await battery.dismiss(user: identity.accountID))
        }
        try routes.add(.post, "battery/charging", summary: "\"I am charging\": 200 when the device's latest reading confirms it, else 409") {
            _, _, identity in
            try .json(try await battery.claimCharging(user: identity.accountID))
        }
        try routes.add(.post, "lighting", summary: "Check the light: JSON {lux} or a camera frame (image/*) as the body; warns too_dark, too_warm") {
            request, context, _ in
            var request = request
            let contentType = request.headers[.contentType]?.lowercased() ?? ""
            if contentType.hasPrefix("application/json") {
                let input = try await request.decodeJSON(LuxInput.self, context: context)
                return try .json(try LightingRules.judge(lux: input.lux, colour: nil, thresholds))
            }
            guard contentType.hasPrefix("image/") || contentType.hasPrefix("application/octet-stream") else {
                throw Problem(status: .unsupportedMediaType, code: "unsupported_media_type",
                              detail: "Send {\"lux\": N} as application/json, or a camera frame with its image/* Content-Type.")
            }
            let frame = try await request.collectUpload(limit: maxFrameBytes, what: "a camera frame")
            let colour = try await bus.request(try await MeasureColour.of(frame, on: bus), timeout: .seconds(30))
            return try .json(try LightingRules.judge(lux: nil, colour: colour, thresholds))
        }
    }

    struct LuxInput: Decodable { var lux: Double }
}
