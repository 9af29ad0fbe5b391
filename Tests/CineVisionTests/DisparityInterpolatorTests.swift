// DisparityInterpolator: the maps of carried frames, re-made from the maps on either side and the
// recorded picture, against the synthetic camera's exact disparity.
import CineMedia
import CineVision
import Testing

@Suite struct DisparityInterpolatorTests {
    /// The exact disparity of `frame` averaged to a quarter of the frame's size, and its picture.
    static func key(_ scene: SyntheticScene, frame: Int, w: Int, h: Int) -> (DisparityInterpolator.Key, LumaGrid) {
        let left = Image(width: w, height: h, format: .i420), right = Image(width: w, height: h, format: .i420)
        let truth = Image(width: w, height: h, format: .float32)
        scene.render(frame: frame, left: left, right: right, groundTruth: truth)
        let mw = w / 4, mh = h / 4
        let small = Image(width: mw, height: mh, format: .float32)
        for y in 0..<mh {
            let o = small.plane(0).row(y, as: Float.self)
            for x in 0..<mw {
                var sum: Float = 0, n: Float = 0
                for yy in 4 * y..<4 * y + 4 {
                    let r = truth.plane(0).row(yy, as: Float.self)
                    for xx in 4 * x..<4 * x + 4 where r[xx].isFinite { sum += r[xx]; n += 1 }
                }
                o[x] = n > 0 ? sum / n : .infinity
            }
        }
        let luma = LumaGrid(left, width: mw, height: mh)
        let map = DisparityMap(values: small, referenceWidth: w, referenceHeight: h)
        return (DisparityInterpolator.Key(luma: luma, map: map), luma)
    }

    /// Share of cells more than 2 px (of the full frame) from `truth`.
    static func off(_ m: DisparityMap, _ truth: DisparityMap) -> Double {
        var bad = 0, all = 0
        for y in 0..<m.values.height {
            let a = m.values.plane(0).row(y, as: Float.self), b = truth.values.plane(0).row(y, as: Float.self)
            for x in 0..<m.values.width where b[x].isFinite {
                all += 1
                if !(abs(a[x] - b[x]) <= 2) { bad += 1 }
            }
        }
        return Double(bad) / Double(max(1, all))
    }

    @Test func carriedMapsAreRemadeWherePeopleWalkedOn() throws {
        // Half a second carried (15 frames) while people walk: the map sent again shows them
        // where they were; the re-made maps show them where they are.
        let w = 640, h = 360
        let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: 1))
        let (before, _) = Self.key(scene, frame: 150, w: w, h: h)
        let (after, _) = Self.key(scene, frame: 165, w: w, h: h)
        var between: [LumaGrid] = [], truths: [DisparityMap] = []
        for f in 151..<165 {
            let (k, luma) = Self.key(scene, frame: f, w: w, h: h)
            between.append(luma)
            truths.append(k.map)
        }
        let filled = DisparityInterpolator().fill(between: between, before: before, after: after)
        #expect(filled.count == between.count)
        var carriedOff = 0.0, filledOff = 0.0
        for (m, t) in zip(filled, truths) {
            carriedOff += Self.off(before.map, t)
            filledOff += Self.off(m, t)
            #expect(m.referenceWidth == w && m.values.width == w / 4)
        }
        carriedOff /= Double(truths.count)
        filledOff /= Double(truths.count)
        // The scene must move for the check to mean anything.
        #expect(carriedOff > 0.02, "carried maps off on \(carriedOff)")
        #expect(filledOff < carriedOff / 3, "re-made \(filledOff), carried \(carriedOff)")
    }

    @Test func withNothingAfterTheRunTheMapBeforeIsMovedAlone() throws {
        let w = 640, h = 360
        let scene = SyntheticScene(SyntheticScene.Configuration(width: w, height: h, fps: 30, seed: 2))
        let (before, _) = Self.key(scene, frame: 200, w: w, h: h)
        let (k, luma) = Self.key(scene, frame: 201, w: w, h: h)
        let filled = DisparityInterpolator().fill(between: [luma], before: before, after: nil)
        #expect(filled.count == 1)
        #expect(Self.off(filled[0], k.map) <= Self.off(before.map, k.map) + 0.005)
        #expect(DisparityInterpolator().fill(between: [], before: before, after: nil).isEmpty)
    }
}
