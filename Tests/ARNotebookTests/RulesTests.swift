import Bus
import BusInProcess
import DeviceMonitor
import DeviceMonitorAPI
import MediaAPI
import StorageAPI
@testable import Notebooks
import Testing

@Suite("AR Notebook's rules: placement, clamping, light")
struct RulesTests {
    let layout = NotebookLayout(pageWidth: 600, pageHeight: 800)

    @Test("an item with no slot is centred; an image in a slot keeps its aspect ratio inside it")
    func placement() throws {
        let centred = layout.place(in: nil, aspect: nil)
        #expect(centred.x + centred.width / 2 == 300)
        #expect(centred.y + centred.height / 2 == 400)
        let slot = try #require(layout.template("two-slots")?.slots.last)
        let wide = layout.place(in: slot, aspect: 4)
        #expect(wide.width == slot.width)
        #expect(abs(wide.width / wide.height - 4) < 1e-9)
        #expect(wide.y > slot.y && wide.y + wide.height < slot.y + slot.height)
        let tall = layout.place(in: slot, aspect: 0.5)
        #expect(tall.height == slot.height)
        #expect(tall.x > slot.x)
    }

    @Test("an item with no slot is not put on top of those already on the page: the nearest free place, else the farthest")
    func placementApart() throws {
        let first = layout.place(in: nil, aspect: nil)
        let second = layout.place(in: nil, aspect: nil, avoiding: [first])
        #expect(second.y >= first.y + first.height, "below the first, as one reads")
        #expect(second.x == first.x && second.width == first.width)
        let third = layout.place(in: nil, aspect: nil, avoiding: [first, second])
        #expect(![first, second].contains { $0.y < third.y + third.height && third.y < $0.y + $0.height })
        #expect(third.y >= 0 && third.y + third.height <= 800)
        // A full one-box page: the box's text is written in its middle, which stays uncovered.
        let box = try #require(layout.template("one-slot")?.slots.first)
        let kept = layout.place(in: nil, aspect: nil, avoiding: [box])
        let middle = box.y + box.height / 2
        #expect(kept.y > middle || kept.y + kept.height < middle)
        #expect(kept.y >= 0 && kept.y + kept.height <= 800)
        // In a slot, the slot decides.
        let slot = try #require(layout.template("two-slots")?.slots.first)
        #expect(layout.place(in: slot, aspect: nil, avoiding: [slot]) == layout.place(in: slot, aspect: nil))
    }

    @Test("a frame past an edge comes back inside; too wide becomes the page's width; inside stays as is",
          arguments: [
              (Frame(x: 500, y: 700, width: 900, height: 300), Frame(x: 0, y: 500, width: 600, height: 300), true),
              (Frame(x: -50, y: -10, width: 100, height: 100), Frame(x: 0, y: 0, width: 100, height: 100), true),
              (Frame(x: 10, y: 10, width: 2, height: 5000), Frame(x: 10, y: 0, width: 16, height: 800), true),
              (Frame(x: 100, y: 100, width: 200, height: 200), Frame(x: 100, y: 100, width: 200, height: 200), false),
          ])
    func clamp(_ asked: Frame, _ expected: Frame, _ clamped: Bool) throws {
        let result = try layout.clamp(asked)
        #expect(result.frame == expected)
        #expect(result.clamped == clamped)
    }

    @Test("a frame that is not a rectangle is refused")
    func badFrames() {
        #expect(throws: BusError.self) { try layout.clamp(Frame(x: .nan, y: 0, width: 10, height: 10)) }
        #expect(throws: BusError.self) { try layout.clamp(Frame(x: 0, y: 0, width: 0, height: 10)) }
    }

    @Test("McCamy: D65 white is about 6500 K, incandescent orange about 2600 K")
    func colourTemperature() throws {
        let white = try #require(LightingRules.chromaticity(MeanColour(red: 1, green: 1, blue: 1)))
        #expect(abs(LightingRules.mcCamy(x: white.x, y: white.y) - 6504) < 60)
        let tungsten = try #require(LightingRules.chromaticity(MeanColour(red: 1, green: 170.0 / 255, blue: 90.0 / 255)))
        #expect((2400...2900).contains(LightingRules.mcCamy(x: tungsten.x, y: tungsten.y)))
    }

    @Test("lighting verdicts: dark frame, warm frame, daylight frame, low lux")
    func lighting() throws {
        let thresholds = DeviceThresholds()
        #expect(try LightingRules.judge(lux: nil, colour: MeanColour(red: 0.04, green: 0.04, blue: 0.035), thresholds).warnings == ["too_dark"])
        #expect(try LightingRules.judge(lux: nil, colour: MeanColour(red: 1, green: 0.67, blue: 0.35), thresholds).warnings == ["too_warm"])
        #expect(try LightingRules.judge(lux: nil, colour: MeanColour(red: 0.92, green: 0.93, blue: 0.96), thresholds).warnings == [])
        #expect(try LightingRules.judge(lux: 20, colour: nil, thresholds).warnings == ["too_dark"])
        #expect(throws: BusError.self) { try LightingRules.judge(lux: -1, colour: nil, thresholds) }
    }

    @Test("battery: low only at or below the threshold while not charging")
    func battery() throws {
        let thresholds = DeviceThresholds()
        #expect(BatteryRules.isLow(BatteryReading(level: 5, state: "discharging"), thresholds))
        #expect(!BatteryRules.isLow(BatteryReading(level: 5, state: "charging"), thresholds))
        #expect(!BatteryRules.isLow(BatteryReading(level: 6, state: "discharging"), thresholds))
        #expect(throws: BusError.self) { try BatteryRules.validate(BatteryReading(level: 101, state: "discharging")) }
        #expect(throws: BusError.self) { try BatteryRules.validate(BatteryReading(level: 50, state: "plugged")) }
    }

    @Test("battery reports: the unit is explicit, fractions are read as fractions, platform state words are accepted")
    func batteryUnits() throws {
        #expect(try BatteryRules.reading(BatteryReport(level: 0.5, unit: "fraction", state: "unplugged")) == BatteryReading(level: 50, state: "discharging"))
        #expect(try BatteryRules.reading(BatteryReport(level: 0.5, unit: "percent", state: "not_charging")) == BatteryReading(level: 0.5, state: "not-charging"))
        #expect(try BatteryRules.reading(BatteryReport(level: 1, unit: "fraction", state: "Full")) == BatteryReading(level: 100, state: "full"))
        #expect(throws: BusError.self) { try BatteryRules.reading(BatteryReport(level: 42, unit: "fraction", state: "full")) }
        #expect(throws: BusError.self) { try BatteryRules.reading(BatteryReport(level: 42, unit: "", state: "full")) }
        #expect(throws: BusError.self) { try BatteryRules.reading(BatteryReport(level: .nan, unit: "percent", state: "full")) }
    }

    @Test("the alert at or below 5 % cannot be dismissed; above it, dismissing is harmless")
    func batteryDismiss() async throws {
        let monitor = BatteryMonitor(thresholds: DeviceThresholds(), bus: InProcessBus())
        _ = try await monitor.report(user: "u", BatteryReading(level: 4, state: "discharging"))
        await #expect(throws: BusError.self) { try await monitor.dismiss(user: "u") }
        #expect(await monitor.status("u").alert)
        _ = try await monitor.report(user: "u", BatteryReading(level: 40, state: "discharging"))
        #expect(try await monitor.dismiss(user: "u").alert == false)
    }

    @Test("entering low battery asks storage to flush once, and again only after the battery recovered")
    func batteryFlushesStorage() async throws {
        let bus = InProcessBus()
        let flushes = FlushCount()
        try bus.handle(FlushStorage.self) { _, _ in
            await flushes.add()
            return Empty()
        }
        let monitor = BatteryMonitor(thresholds: DeviceThresholds(), bus: bus)
        _ = try await monitor.report(user: "u", BatteryReading(level: 40, state: "discharging"))
        #expect(await flushes.count == 0, "not low: nothing to flush")
        _ = try await monitor.report(user: "u", BatteryReading(level: 4, state: "discharging"))
        _ = try await monitor.report(user: "u", BatteryReading(level: 3, state: "discharging"))
        #expect(await flushes.count == 1, "once on entering low battery, not on every low reading")
        _ = try await monitor.report(user: "u", BatteryReading(level: 50, state: "charging"))
        _ = try await monitor.report(user: "u", BatteryReading(level: 5, state: "discharging"))
        #expect(await flushes.count == 2, "again after recovering")
    }
}

actor FlushCount {
    var count = 0
    func add() { count += 1 }
}

