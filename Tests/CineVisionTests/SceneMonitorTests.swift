// Scene monitoring: `notEnoughLight` entered and left with hysteresis in level and time, from
// scripts of measurements; the measurement itself on flat, noisy and synthetic frames.
import CineMedia
import CineVision
import Testing

@Suite struct SceneMonitorTests {
    /// A stretch of frames at 10 fps: from `from` to `to` seconds, all with one measurement.
    typealias Stretch = (from: Double, to: Double, SceneMeasurement)

    struct MonitorCase: Sendable, CustomTestStringConvertible {
        var name: String
        var stretches: [Stretch]
        /// (time, whether notEnoughLight is reported after the frame at that time)
        var expect: [(Double, Bool)]
        var testDescription: String { name }
    }

    static let bright = SceneMeasurement(luminance: 0.45, noise: 0.01, disparityConfidence: 0.8)
    static let dark = SceneMeasurement(luminance: 0.04, noise: 0.01, disparityConfidence: 0.2)
    /// Between the thresholds: keeps whatever is in force.
    static let dusk = SceneMeasurement(luminance: 0.13, noise: 0.01, disparityConfidence: 0.8)
    /// Bright enough on average but drowned in gain noise.
    static let grainy = SceneMeasurement(luminance: 0.35, noise: 0.09, disparityConfidence: 0.6)
    /// Dim and the matcher unsure (no luma threshold crossed, no noise measured).
    static let dimUnsure = SceneMeasurement(luminance: 0.2, disparityConfidence: 0.1)
    /// A bright textureless wall: the matcher is unsure but the light is fine.
    static let blankWall = SceneMeasurement(luminance: 0.6, noise: 0.005, disparityConfidence: 0.1)
    /// Only a disparity map (no video): its confidence alone decides.
    static let unsureMapOnly = SceneMeasurement(disparityConfidence: 0.1)

    static let cases: [MonitorCase] = [
        MonitorCase(
            name: "darknessIsReportedAfterHalfASecondAndWithdrawnAfterOne",
            stretches: [(0, 2, bright), (2, 5, dark), (5, 8, bright)],
            expect: [(1.9, false), (2.4, false), (2.5, true), (4.9, true), (5.9, true), (6.0, false), (8, false)]),
        MonitorCase(
            name: "shortDipsDoNotFlicker",
            stretches: [(0, 1, bright), (1, 1.4, dark), (1.4, 2, bright), (2, 2.4, dark), (2.4, 3, bright)],
            expect: [(1.3, false), (2.3, false), (3, false)]),
        MonitorCase(
            name: "lightBetweenTheThresholdsKeepsTheStatus",
            stretches: [(0, 1, dusk), (1, 2, dark), (2, 6, dusk), (6, 8, bright)],
            expect: [(0.9, false), (1.6, true), (5.9, true), (6.9, true), (7, false)]),
        MonitorCase(
            name: "aBriefReturnOfLightDoesNotEndIt",
            stretches: [(0, 1, dark), (1, 1.5, bright), (1.5, 3, dark), (3, 4.5, bright)],
            expect: [(0.5, true), (1.4, true), (2.5, true), (3.9, true), (4.0, false)]),
        MonitorCase(
            name: "noiseAloneMeansNotEnoughLight",
            stretches: [(0, 1, bright), (1, 3, grainy)],
            expect: [(1.4, false), (1.5, true)]),
        MonitorCase(
            name: "lowConfidenceCountsWhenDim",
            stretches: [(0, 2, dimUnsure)],
            expect: [(0.5, true)]),
        MonitorCase(
            name: "lowConfidenceOnABrightBlankWallIsNotDarkness",
            stretches: [(0, 3, blankWall)],
            expect: [(3, false)]),
        MonitorCase(
            name: "withoutVideoTheConfidenceDecides",
            stretches: [(0, 2, unsureMapOnly), (2, 4, SceneMeasurement(disparityConfidence: 0.9))],
            expect: [(0.4, false), (0.5, true), (2.9, true), (3.0, false)]),
        MonitorCase(
            name: "nothingMeasuredIsNormal",
            stretches: [(0, 3, SceneMeasurement())],
            expect: [(3, false)]),
    ]

    @Test(arguments: cases) func hysteresis(_ c: MonitorCase) {
        var monitor = SceneMonitor()
        var reported: [(Double, Bool)] = []
        for (from, to, m) in c.stretches {
            var i = Int((from * 10).rounded())
            while Double(i) / 10 < to - 1e-9 {
                let s = monitor.update(time: Timestamp(seconds: Double(i) / 10), m)
                reported.append((Double(i) / 10, s.contains(.notEnoughLight)))
                i += 1
            }
        }
        for (t, expected) in c.expect {
            let r = reported.last { $0.0 <= t + 1e-9 }
            #expect(r?.1 == expected, "\(c.name) at \(t)s")
        }
    }

    @Test func flatGreyHasItsLuminanceAndNoNoise() {
        let image = ImagePool().makeImage(width: 64, height: 48, format: .gray8)
        for y in 0..<48 { for x in 0..<64 { image.plane(0).row(y, as: UInt8.self)[x] = 102 } }
        let m = SceneMeasurement.measure(luma: image, disparity: nil)
        #expect(m.luminance == 0.4)
        #expect(m.noise == 0)
        #expect(m.disparityConfidence == nil)
        #expect(SceneMeasurement.measure(luma: nil, disparity: nil) == SceneMeasurement())
    }

    @Test func noiseEstimateFollowsTheSensorNoise() {
        // The synthetic camera at 2 % and 6 % noise: the estimate grows with it (textures add a floor).
        func noise(_ n: Double) -> Double {
            let c = SyntheticScene.Configuration(width: 320, height: 180, fps: 15, seed: 1, noise: n)
            let l = Image(width: 320, height: 180, format: .i420), r = Image(width: 320, height: 180, format: .i420)
            SyntheticScene(c).render(frame: 0, left: l, right: r, groundTruth: nil)
            return SceneMeasurement.measure(luma: l, disparity: nil).noise!
        }
        let low = noise(0.02), high = noise(0.06)
        #expect(high > 2 * low, "\(low) \(high)")
        #expect(abs(high - 0.06) < 0.02, "\(high)")
    }

    @Test func confidenceCountsInvalidSamplesAsZero() {
        let values = ImagePool().makeImage(width: 8, height: 4, format: .float32)
        let conf = ImagePool().makeImage(width: 8, height: 4, format: .gray8)
        for y in 0..<4 {
            for x in 0..<8 {
                values.plane(0).row(y, as: Float.self)[x] = x < 4 ? 20 : .nan
                conf.plane(0).row(y, as: UInt8.self)[x] = 255
            }
        }
        let withPlane = DisparityMap(values: values, confidence: conf, referenceWidth: 80, referenceHeight: 40)
        let without = DisparityMap(values: values, referenceWidth: 80, referenceHeight: 40)
        #expect(SceneMeasurement.measure(luma: nil, disparity: withPlane).disparityConfidence == 0.5)
        #expect(SceneMeasurement.measure(luma: nil, disparity: without).disparityConfidence == 0.5)
    }

    @Test func syntheticLightDropIsReportedAndClears() {
        // The synthetic camera's light drop: 2 s to 5 s at 5 % light.
        var c = SyntheticScene.Configuration(width: 320, height: 180, fps: 10, seed: 1)
        c.lightDrop = SyntheticScene.LightDrop(start: 2, duration: 3, level: 0.05)
        let scene = SyntheticScene(c)
        var monitor = SceneMonitor()
        var changes: [(Double, SceneStatus)] = []
        let l = Image(width: 320, height: 180, format: .i420), r = Image(width: 320, height: 180, format: .i420)
        for i in 0..<80 {
            scene.render(frame: i, left: l, right: r, groundTruth: nil)
            let before = monitor.statuses
            let s = monitor.update(
                time: Timestamp(frame: i, fps: 10), SceneMeasurement.measure(luma: l, disparity: nil))
            if s != before { changes.append((Double(i) / 10, s)) }
        }
        #expect(changes.count == 2, "\(changes)")
        #expect(changes.first.map { $0.1 == .notEnoughLight && (2.4...3.2).contains($0.0) } == true, "\(changes)")
        #expect(changes.last.map { $0.1.isEmpty && (5.0...6.2).contains($0.0) } == true, "\(changes)")
    }
}
