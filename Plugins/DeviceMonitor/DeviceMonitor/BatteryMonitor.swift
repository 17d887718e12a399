public import Bus
public import DeviceMonitorAPI
import Foundation
public import PluginKit
import ServiceLifecycle
import StorageAPI

/// Each user's battery state (FR3.2.18, UC-14): the alert shows at or below the critical level
/// while not charging and cannot be dismissed then ("exit out of this alert if and only if they are
/// above 5%"); "I am charging" is accepted only when the device itself reports charging.
public actor BatteryMonitor {
    struct State {
        var reading: BatteryReading
        var at: Date
    }

    let thresholds: DeviceThresholds
    let bus: any MessageBus
    /// How recent a reading must be to verify "I am charging".
    let freshness: TimeInterval
    /// The plugin's clock: readings are stamped and aged in its time.
    let clock: PluginClock
    private var states: [String: State] = [:]

    public init(thresholds: DeviceThresholds, bus: any MessageBus, freshness: TimeInterval = 120, clock: PluginClock = .system) {
        self.thresholds = thresholds
        self.clock = clock
        self.bus = bus
        self.freshness = freshness
    }

    public func report(user: String, _ reading: BatteryReading) async throws(BusError) -> BatteryStatus {
        try BatteryRules.validate(reading)
        let wasLow = states[user].map { BatteryRules.isLow($0.reading, thresholds) } ?? false
        let now = clock.now()
        states[user] = State(reading: reading, at: now)
        // The user's next request may reach another node of a cluster: it must know this reading.
        await bus.publish(BatteryReported(node: ThisNode.id, user: user, reading: reading, at: now))
        let isLow = BatteryRules.isLow(reading, thresholds)
        if isLow, !wasLow {
            await bus.publish(LowBatteryEntered(user: user, level: reading.level))
            // The device may die any moment: what it was told is saved goes to disk now.
            _ = try? await bus.request(FlushStorage(), timeout: .seconds(5))
        }
        return status(user)
    }

    /// A reading another node took, unless this node has a newer one.
    func apply(_ event: BatteryReported) {
        guard event.node != ThisNode.id, (states[event.user]?.at ?? .distantPast) <= event.at else { return }
        states[event.user] = State(reading: event.reading, at: event.at)
    }

    /// The alert's "OK": refused while the battery is at or below the critical level and not
    /// charging (the alert keeps reappearing, FR3.2.18); above it there is no alert to dismiss.
    public func dismiss(user: String) throws(BusError) -> BatteryStatus {
        if let state = states[user], BatteryRules.isLow(state.reading, thresholds) {
            throw BusError(.conflict, "The alert stays while the battery is at \(Int(state.reading.level.rounded())) % and not charging: "
                           + "plug in your phone and tap \"I am charging\", or close the app.", details: ["reason": "battery_critical"])
        }
        return status(user)
    }

    /// "I am charging my phone": verified against the device's latest reading, never taken on trust.
    public func claimCharging(user: String) throws(BusError) -> BatteryStatus {
        guard let state = states[user], clock.now().timeIntervalSince(state.at) <= freshness else {
            throw BusError(.conflict, "No recent battery reading from your device; the app sends one when you plug it in.",
                           details: ["reason": "charging_not_verified"])
        }
        guard state.reading.isCharging || state.reading.level > thresholds.batteryCritical else {
            throw BusError(.conflict, "Your device does not report charging yet (\(Int(state.reading.level)) %, \(state.reading.state)); "
                           + "plug it in and try again.", details: ["reason": "charging_not_verified"])
        }
        return status(user)
    }

    public func status(_ user: String) -> BatteryStatus {
        guard let state = states[user] else {
            return BatteryStatus(level: nil, state: "unknown", alert: false, status: "unknown", message: "No battery reading yet.",
                                 threshold: thresholds.batteryCritical)
        }
        let low = BatteryRules.isLow(state.reading, thresholds)
        let level = Int(state.reading.level.rounded())
        let message = low
            ? "Battery at \(level) %: AR needs more than \(Int(thresholds.batteryCritical)) %. Plug in your phone, or close the app."
            : state.reading.isCharging ? "Charging (\(level) %)." : "Battery at \(level) %."
        return BatteryStatus(level: state.reading.level, state: state.reading.state, alert: low, status: low ? "low" : "ok",
                             message: message, threshold: thresholds.batteryCritical)
    }
}

/// A battery reading taken by one node, for the others (their users' next requests may reach them).
struct BatteryReported: BusEvent {
    static let name: MessageName = "device-monitor.battery.reported.v1"
    var node: String
    var user: String
    var reading: BatteryReading
    /// Wall-clock time, which two machines share: a reading older than one held is ignored.
    var at: Date
}

/// Applies the readings other nodes took.
struct BatteryPeers: Service {
    let monitor: BatteryMonitor
    let reported: EventSubscription<BatteryReported>

    func run() async throws {
        for await event in reported.cancelOnGracefulShutdown() {
            await monitor.apply(event)
        }
    }
}
