// The `disparity` node: driven by the node harness with synthetic-camera frames; checks the map's
// size, units and accuracy, the confidence output, live parameter changes, and errors.
import CineGraph
import CineMedia
import CineNodes
import CineVision
import Foundation
import Testing

@Suite struct DisparityNodeTests {
    /// A 480×270 synthetic frame and its truth.
    func frame() -> (StereoFrame, Image) {
        let scene = SyntheticScene(SyntheticScene.Configuration(width: 480, height: 270, fps: 30, seed: 1))
        let l = Image(width: 480, height: 270, format: .i420), r = Image(width: 480, height: 270, format: .i420)
        let t = Image(width: 480, height: 270, format: .float32)
        scene.render(frame: 150, left: l, right: r, groundTruth: t)
        return (StereoFrame(left: l, right: r), t)
    }

    @Test func nodeOutputsAMapInFullResolutionPixelsWithConfidence() throws {
        let (stereo, truth) = frame()
        var h = try NodeHarness(DisparityNode.self, parameters: ["scale": "0.5", "max-disparity": "64"])
        try h.start()
        let out = try h.process([\.$stereo: stereo])
        let map = try #require(out[\.$disparity])
        let confidence = try #require(out[\.$confidence])
        #expect(map.values.width == 240 && map.values.height == 135)
        #expect(map.referenceWidth == 480 && map.referenceHeight == 270)
        #expect(confidence.width == 240 && confidence.format == .gray8)
        var bad = 0, n = 0
        for y in 0..<135 {
            let v = map.values.plane(0).row(y, as: Float.self), t = truth.plane(0).row(2 * y, as: Float.self)
            for x in 0..<240 {
                n += 1
                if !v[x].isFinite || abs(v[x] - t[2 * x]) > 2 { bad += 1 }
            }
        }
        #expect(Double(bad) / Double(n) < 0.12, "bad-2.0 \(Double(bad) / Double(n) * 100) %")
    }

    @Test func edgeAwareUpsamplingGivesTheReferenceSize() throws {
        let (stereo, _) = frame()
        var h = try NodeHarness(
            DisparityNode.self, parameters: ["scale": "0.5", "max-disparity": "64", "upsample": "edge-aware"])
        try h.start()
        let map = try #require(try h.process([\.$stereo: stereo])[\.$disparity])
        #expect(map.values.width == 480 && map.values.height == 270)
        // A parameter changed through the control channel takes effect on the next frame.
        try h.set("upsample", "none")
        let low = try #require(try h.process([\.$stereo: stereo])[\.$disparity])
        #expect(low.values.width == 240)
    }

    @Test func badParametersAreRejectedByName() {
        #expect(throws: ParameterError.self) { try NodeHarness(DisparityNode.self, parameters: ["paths": "4"]) }
        do {
            _ = try NodeHarness(DisparityNode.self, parameters: ["p1": "50", "p2": "20"])
            Issue.record("p2 < p1 accepted")
        } catch let e as ParameterError {
            #expect(e.parameter == "p2")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aMaxDisparityWiderThanTheImageFailsClearly() throws {
        let (stereo, _) = frame()
        var h = try NodeHarness(DisparityNode.self, parameters: ["max-disparity": "600"])
        try h.start()
        do {
            _ = try h.process([\.$stereo: stereo])
            Issue.record("accepted max-disparity 600 on a 480-wide pair")
        } catch {
            #expect("\(error)".contains("max-disparity 600"))
        }
    }
}
